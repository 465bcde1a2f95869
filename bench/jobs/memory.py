"""Job 6: peak memory against video length, videowm and ffmpeg drawing the same marks."""
import os

from harness.checks import video_check
from harness.commands import ffmpeg_marked, videowm_transcode
from harness.marks import logo_pixels
from harness.runner import Job

NUMBERS = (6,)
HELP = "  6  peak memory against video length (videowm and ffmpeg, marked)"


def plan(ctx):
    if not ctx.wants(6):
        return []
    seconds, t = ctx.args.seconds, ctx.threads
    h = 720
    lengths = [seconds, seconds * 3]
    j = Job("6-memory", 6, f"Peak memory against video length, e-mail + logo, {h}p30", 1)
    for s in lengths:
        clip = ctx.inputs.clip(h, s)
        o6 = lambda name: os.path.join(ctx.out, f"j6-{name}-{s:g}s.mp4")
        j.add(f"videowm-{s:g}s", f"videowm, {s:g} s", videowm_transcode(ctx.binary, clip, o6("videowm"), ctx.cfg["marked"], t),
              o6("videowm"), video_check(clip, o6("videowm")))
        j.add(f"ffmpeg-{s:g}s", f"ffmpeg drawtext + overlay, {s:g} s",
              ffmpeg_marked(clip, ctx.logo, logo_pixels(*ctx.logo_wh, h), h, o6("ffmpeg"), t), o6("ffmpeg"), video_check(clip, o6("ffmpeg")))
    a, b = f"videowm-{lengths[1]:g}s", f"videowm-{lengths[0]:g}s"
    j.ratio(a, b, f"peak RSS videowm {lengths[1]:g} s / {lengths[0]:g} s (flat: ≤ 1.05)", 1.05, kind="rss")
    j.ratio(f"ffmpeg-{lengths[1]:g}s", f"ffmpeg-{lengths[0]:g}s", f"peak RSS ffmpeg {lengths[1]:g} s / {lengths[0]:g} s", kind="rss")
    j.ratio(a, f"ffmpeg-{lengths[1]:g}s", f"peak RSS videowm / ffmpeg at {lengths[1]:g} s", 1.00, kind="rss")
    return [j]
