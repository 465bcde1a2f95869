"""Job 7: a timecode burned in, videowm's {timecode} against the same layer with a fixed text and
against ffmpeg drawtext's timecode."""
import os

from harness.checks import video_check
from harness.commands import threads_in, threads_out, videowm_transcode
from harness.marks import CRF, DEJAVU_CAP_HEIGHT_PER_EM, FONT, INSET, PRESET, TIMECODE_LAYER
from harness.runner import Job

NUMBERS = (7,)
HELP = ("  7  timecode burn-in: videowm {timecode} (text changing every frame) vs the same layer with fixed text,\n"
        "     and vs ffmpeg drawtext's timecode")
METHOD = ("- The timecode burn-in (job 7): videowm draws `{timecode}` bottom-right on a plate (`box`), white at 0.9, the "
          "text changing every frame (only the changed digits are redrawn, or their rectangle copied back from an earlier "
          "frame that showed the same digits there); the static variant is the same layer with the "
          "fixed text `00:00:00:00`, so their ratio is what per-frame text costs (issue 15's target: within 2%); ffmpeg's "
          "is drawtext's `timecode` at `rate=30` with a box, at the same em size and inset.")


def ffmpeg_timecode(inp, short_side, out, threads):
    em = round(TIMECODE_LAYER["size"] * short_side / DEJAVU_CAP_HEIGHT_PER_EM, 1)
    inset, pad = round(INSET * short_side, 2), round(0.01 * short_side)
    text = (f"drawtext=fontfile={FONT}:timecode='00\\:00\\:00\\:00':rate=30:fontsize={em}:fontcolor=white@0.9"
            f":box=1:boxcolor=black@0.5:boxborderw={pad}:x='w-tw-{inset}':y='h-th-{inset}'")
    return (["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y"] + threads_in(threads)
            + ["-i", inp, "-vf", text, "-c:v", "libx264", "-preset", PRESET, "-crf", CRF, "-c:a", "copy"]
            + threads_out(threads) + ["-movflags", "+faststart", out])


def plan_height(ctx, h):
    seconds, t, binary, cfg = ctx.args.seconds, ctx.threads, ctx.binary, ctx.cfg
    clip = ctx.inputs.clip(h, seconds)
    o = lambda name: os.path.join(ctx.out, f"{name}-{h}p.mp4")
    j = Job(f"7-{h}p", 7, f"Timecode burn-in (text changing every frame), {h}p30, {seconds:g} s", ctx.args.reps)
    j.add("videowm-timecode", "videowm {timecode}", videowm_transcode(binary, clip, o("j7-videowm-timecode"), cfg["timecode"], t),
          o("j7-videowm-timecode"), video_check(clip, o("j7-videowm-timecode")))
    j.add("videowm-static", "videowm, the same layer with a fixed text", videowm_transcode(binary, clip, o("j7-videowm-static"), cfg["timecode-static"], t),
          o("j7-videowm-static"), video_check(clip, o("j7-videowm-static")))
    j.add("ffmpeg-timecode", "ffmpeg drawtext timecode", ffmpeg_timecode(clip, h, o("j7-ffmpeg-timecode"), t),
          o("j7-ffmpeg-timecode"), video_check(clip, o("j7-ffmpeg-timecode")))
    j.ratio("videowm-timecode", "videowm-static", "videowm timecode / videowm static text", 1.02)
    j.ratio("videowm-timecode", "ffmpeg-timecode", "videowm timecode / ffmpeg drawtext timecode", 1.00)
    return j
