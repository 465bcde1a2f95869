"""Job 1: a plain transcode, videowm (no marks) against ffmpeg -c:v libx264."""
import os

from harness.checks import video_check
from harness.commands import ffmpeg_plain, videowm_transcode
from harness.memory_map import note, peak_rss
from harness.runner import Job

NUMBERS = (1,)
HELP = "  1  plain transcode: videowm (no marks) vs ffmpeg -c:v libx264"


def plan_height(ctx, h):
    seconds, t = ctx.args.seconds, ctx.threads
    clip = ctx.inputs.clip(h, seconds)
    o = lambda name: os.path.join(ctx.out, f"{name}-{h}p.mp4")
    j = Job(f"1-{h}p", 1, f"Plain transcode, {h}p30, {seconds:g} s", ctx.args.reps)
    j.add("ffmpeg-plain", "ffmpeg -c:v libx264 (no filters)", ffmpeg_plain(clip, o("j1-ffmpeg-plain"), t),
          o("j1-ffmpeg-plain"), video_check(clip, o("j1-ffmpeg-plain")))
    j.add("videowm-empty", "videowm, config with no layers", videowm_transcode(ctx.binary, clip, o("j1-videowm-empty"), ctx.cfg["empty"], t),
          o("j1-videowm-empty"), video_check(clip, o("j1-videowm-empty")))
    j.add("videowm-plain", "videowm, one layer never shown (re-encode, nothing drawn)",
          videowm_transcode(ctx.binary, clip, o("j1-videowm-plain"), ctx.cfg["invisible"], t),
          o("j1-videowm-plain"), video_check(clip, o("j1-videowm-plain")))
    j.ratio("videowm-plain", "ffmpeg-plain", "videowm re-encode, no marks / ffmpeg plain", 1.00)
    j.ratio("videowm-empty", "ffmpeg-plain", "videowm empty config / ffmpeg plain", 1.00)
    j.ratio("videowm-plain", "ffmpeg-plain", "peak RSS videowm / ffmpeg", 1.00, kind="rss")
    # Where a difference in peak RSS lies: in the work's buffers, or in the code each program maps.
    commands = {v["key"]: v["cmd"] for v in j.variants}
    j.afterwards.append(lambda: note(peak_rss(commands["videowm-plain"]), peak_rss(commands["ffmpeg-plain"])))
    return j
