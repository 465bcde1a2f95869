"""Job 4: stamping a 12 MP JPEG with the logo and text, videowm stamp against ImageMagick and ffmpeg."""
import os

from harness.checks import still_check
from harness.commands import ffmpeg_still
from harness.marks import (DEJAVU_CAP_HEIGHT_PER_EM, EMAIL, FONT, INSET, JPEG_QUALITY, LOGO_OPACITY, MJPEG_QSCALE,
                           TEXT_LAYER, logo_pixels)
from harness.runner import Job

NUMBERS = (4,)
HELP = "  4  stamping a 12 MP JPEG with logo + text: videowm stamp vs ImageMagick convert vs ffmpeg"


def videowm_stamp(ctx, photo, out):
    return [ctx.binary, "stamp", photo, "-o", out, "-c", ctx.cfg["marked"], "--var", f"email={EMAIL}",
            "--quality", str(JPEG_QUALITY), "-y"]


def plan(ctx):
    if not ctx.wants(4):
        return []
    jobs = []
    for kind in ctx.args.photos:
        photo = ctx.inputs.photo(kind)
        short = 3000
        lw, lh = logo_pixels(*ctx.logo_wh, short)
        inset = round(INSET * short)
        em = round(TEXT_LAYER["size"] * short / DEJAVU_CAP_HEIGHT_PER_EM, 1)
        o = lambda name: os.path.join(ctx.out, f"j4-{kind}-{name}.jpg")
        j = Job(f"4-{kind}", 4, f"Stamp one 12 MP JPEG (4000x3000, {kind}, "
                f"{os.path.getsize(photo) / 1e6:.1f} MB) with e-mail + logo", ctx.args.still_reps)
        j.add("videowm-stamp", "videowm stamp", videowm_stamp(ctx, photo, o("videowm")), o("videowm"), still_check(o("videowm")))
        j.add("imagemagick", "ImageMagick convert (annotate + composite)", [
            "/usr/bin/convert", photo,
            "-font", FONT, "-pointsize", str(em), "-fill", "rgba(255,255,255,0.5)", "-gravity", "West",
            "-annotate", f"+{inset}+0", EMAIL,
            "(", ctx.logo, "-resize", f"{lw}x{lh}!", "-channel", "A", "-evaluate", "multiply", str(LOGO_OPACITY), "+channel", ")",
            "-gravity", "NorthEast", "-geometry", f"+{inset}+{inset}", "-composite",
            "-quality", str(JPEG_QUALITY), o("imagemagick")], o("imagemagick"), still_check(o("imagemagick")))
        j.add("ffmpeg-still", "ffmpeg drawtext + overlay to JPEG", ffmpeg_still(photo, ctx.logo, (lw, lh), o("ffmpeg")),
              o("ffmpeg"), still_check(o("ffmpeg")))
        j.ratio("videowm-stamp", "imagemagick", "videowm stamp / ImageMagick", 0.95)
        j.ratio("videowm-stamp", "ffmpeg-still", "videowm stamp / ffmpeg", 0.95)
        j.ratio("videowm-stamp", "imagemagick", "peak RSS videowm / ImageMagick", kind="rss")
        j.ratio("videowm-stamp", "ffmpeg-still", "peak RSS videowm / ffmpeg", 1.00, kind="rss")
        j.notes.append(f"JPEG quality: videowm --quality {JPEG_QUALITY} (libjpeg-turbo), "
                       f"ImageMagick -quality {JPEG_QUALITY} (libjpeg-turbo), ffmpeg -q:v {MJPEG_QSCALE} (mjpeg).")
        jobs.append(j)
    return jobs
