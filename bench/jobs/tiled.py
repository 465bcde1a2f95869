"""Job 3: a tiled mark over the whole frame, videowm's tile layer against ffmpeg overlaying the same
pattern as a pre-rendered full-frame PNG."""
import os

from harness.checks import video_check
from harness.commands import ffmpeg_tiled, videowm_transcode
from harness.runner import Job
from harness.shell import sh

NUMBERS = (3,)
HELP = "  3  tiled mark over the whole frame: videowm tile vs ffmpeg overlaying a pre-rendered tiled PNG"


def tile_png(ctx, width, height):
    """The tiled pattern as a PNG, made by videowm itself on a transparent frame (outside any timing),
    so both sides overlay the very same pixels."""
    path = os.path.join(ctx.inputs.dir, f"tile-{width}x{height}.png")
    sh([ctx.binary, "stamp", ctx.inputs.clear_frame(width, height), "-o", path, "-c", ctx.cfg["tiled"], "-y", "-q"])
    return path


def plan_height(ctx, h):
    seconds, t = ctx.args.seconds, ctx.threads
    clip = ctx.inputs.clip(h, seconds)
    o = lambda name: os.path.join(ctx.out, f"{name}-{h}p.mp4")
    png = tile_png(ctx, h * 16 // 9, h)
    j = Job(f"3-{h}p", 3, f"Tiled mark over the whole frame, {h}p30, {seconds:g} s", ctx.args.reps)
    j.add("videowm-tiled", "videowm tile layer", videowm_transcode(ctx.binary, clip, o("j3-videowm"), ctx.cfg["tiled"], t),
          o("j3-videowm"), video_check(clip, o("j3-videowm")))
    j.add("ffmpeg-tiled", "ffmpeg overlay of a pre-rendered full-frame tiled PNG",
          ffmpeg_tiled(clip, png, o("j3-ffmpeg"), t), o("j3-ffmpeg"), video_check(clip, o("j3-ffmpeg")))
    j.ratio("videowm-tiled", "ffmpeg-tiled", "videowm tile / ffmpeg tiled-PNG overlay", 1.00)
    j.ratio("videowm-tiled", "ffmpeg-tiled", "peak RSS videowm / ffmpeg", 1.00, kind="rss")
    return j
