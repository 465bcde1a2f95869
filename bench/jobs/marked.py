"""Job 2: the moving e-mail (pingPong) and a corner logo, videowm against ffmpeg drawtext + overlay."""
import os

from harness.checks import video_check
from harness.commands import ffmpeg_marked, ffmpeg_plain, videowm_transcode
from harness.marks import logo_pixels
from harness.runner import Job

NUMBERS = (2,)
HELP = "  2  moving e-mail (pingPong) + corner logo: videowm vs ffmpeg drawtext + overlay, both also vs ffmpeg plain"


def plan_height(ctx, h):
    seconds, t = ctx.args.seconds, ctx.threads
    clip = ctx.inputs.clip(h, seconds)
    o = lambda name: os.path.join(ctx.out, f"{name}-{h}p.mp4")
    short = h
    j = Job(f"2-{h}p", 2, f"Moving e-mail (pingPong) + corner logo, {h}p30, {seconds:g} s", ctx.args.reps)
    j.add("videowm-marked", "videowm e-mail + logo", videowm_transcode(ctx.binary, clip, o("j2-videowm"), ctx.cfg["marked"], t),
          o("j2-videowm"), video_check(clip, o("j2-videowm")))
    j.add("ffmpeg-marked", "ffmpeg drawtext + overlay",
          ffmpeg_marked(clip, ctx.logo, logo_pixels(*ctx.logo_wh, short), short, o("j2-ffmpeg-marked"), t),
          o("j2-ffmpeg-marked"), video_check(clip, o("j2-ffmpeg-marked")))
    j.add("ffmpeg-plain", "ffmpeg plain (no filters)", ffmpeg_plain(clip, o("j2-ffmpeg-plain"), t),
          o("j2-ffmpeg-plain"), video_check(clip, o("j2-ffmpeg-plain")))
    j.ratio("videowm-marked", "ffmpeg-plain", "videowm marked / ffmpeg plain", 1.02)
    j.ratio("videowm-marked", "ffmpeg-marked", "videowm marked / ffmpeg drawtext+overlay", 1.00)
    j.ratio("ffmpeg-marked", "ffmpeg-plain", "ffmpeg drawtext+overlay / ffmpeg plain (what ffmpeg's mark costs)")
    j.ratio("videowm-marked", "ffmpeg-marked", "peak RSS videowm / ffmpeg drawtext+overlay", 1.00, kind="rss")
    return j
