"""Jobs 8 and 9 (issue 13): smart rendering of marks shown 6 s of every 30 s, one render against
ffmpeg's plain transcode, and a batch of 4 students against 4 of them."""
import os
import shlex
import subprocess

from harness.checks import dir_check, video_check
from harness.commands import ffmpeg_plain, videowm_transcode
from harness.marks import CRF, PRESET
from harness.runner import Job
from harness.shell import display

NUMBERS = (8, 9)
HELP = ("  8  smart rendering (issue 13): marks shown 6 s of every 30 s on a 60 s clip, videowm --render smart vs ffmpeg plain\n"
        "  9  a batch of 4 such students smart-rendered (one run, -j 4) vs 4 ffmpeg plain transcodes")
METHOD = ("- Jobs 8 and 9 (smart rendering, issue 13) use a 60-s clip and the e-mail + logo config with "
          "`\"start\": 10, \"interval\": 6000, \"skip\": 24000` (shown 10-16 s and 40-46 s): videowm re-encodes those GOPs "
          "at the same `-crf`/`-preset` and copies the rest; ffmpeg's side is the plain transcode of the whole clip "
          "(job 9: four of them, one after another, against one `videowm batch -j 4 --render smart`).")


def plan(ctx):
    if not (ctx.wants(8) or ctx.wants(9)):
        return []
    binary, cfg, t, out = ctx.binary, ctx.cfg, ctx.threads, ctx.out
    # Issue 13's setting: 720p30 with 2-s GOPs (the clips' GOP 60), marks visible 6 s of every 30 s.
    h = 720
    s = 12 if ctx.args.quick else 60
    clip = ctx.inputs.clip(h, s)
    o = lambda name: os.path.join(out, f"{name}-{h}p-{s:g}s.mp4")
    jobs = []
    if ctx.wants(8):
        j = Job("8-smart", 8, f"Smart rendering: e-mail + logo shown 6 s of every 30 s, {h}p30, {s:g} s", ctx.args.reps)
        j.add("videowm-smart", "videowm --render smart",
              videowm_transcode(binary, clip, o("j8-videowm-smart"), cfg["timed"], t, render="smart"),
              o("j8-videowm-smart"), video_check(clip, o("j8-videowm-smart")))
        j.add("videowm-full", "videowm --render full (every frame re-encoded)",
              videowm_transcode(binary, clip, o("j8-videowm-full"), cfg["timed"], t),
              o("j8-videowm-full"), video_check(clip, o("j8-videowm-full")))
        j.add("ffmpeg-plain", "ffmpeg -c:v libx264 (no filters)", ffmpeg_plain(clip, o("j8-ffmpeg-plain"), t),
              o("j8-ffmpeg-plain"), video_check(clip, o("j8-ffmpeg-plain")))
        j.ratio("videowm-smart", "ffmpeg-plain", "videowm smart / ffmpeg plain", 0.40)
        j.ratio("videowm-smart", "videowm-full", "videowm smart / videowm full")
        j.notes.append("Re-encoded: the GOPs 10-16 s and 40-46 s (12 s of 60 s, 20%); the rest is the input's packets.")
        jobs.append(j)
    if ctx.wants(9):
        csv4, four = ctx.inputs.students_four()
        j = Job("9-smart-batch", 9, f"Smart-rendered batch of 4 students, timed e-mail + logo, {h}p30, {s:g} s", ctx.args.batch_reps)
        batch_dir, sep_dir = os.path.join(out, "j9-batch"), os.path.join(out, "j9-ffmpeg")
        cmd = [binary, "batch", clip, "-c", cfg["timed"], "--vars", csv4, "--output", os.path.join(batch_dir, "{id}.mp4"),
               "-j", "4", "--render", "smart", "--crf", CRF, "--preset", PRESET, "--progress", "none", "--force"]
        cmd += ["--threads", str(t)] if t is not None else []
        batch_help = subprocess.run([binary, "help", "batch"], capture_output=True, text=True).stdout
        if "--render" in batch_help:
            j.add("videowm-smart-batch", "videowm batch -j 4 --render smart", cmd, batch_dir, dir_check(batch_dir, 4),
                  before=lambda d=batch_dir: os.makedirs(d, exist_ok=True))
        else:
            j.notes.append("`videowm batch` has no `--render` in this build: only the 4 ffmpeg transcodes were timed.")
        loop = "set -e\n" + "\n".join(shlex.join(ffmpeg_plain(clip, os.path.join(sep_dir, f"{r[2]}.mp4"), t)) for r in four)
        j.add("ffmpeg-4-plain", "4 ffmpeg plain transcodes, one after another", ["bash", "-c", loop], sep_dir,
              dir_check(sep_dir, 4), before=lambda d=sep_dir: os.makedirs(d, exist_ok=True),
              display_cmd=f"for each of the 4 rows: ffmpeg -i {display(clip, ctx.work)} -c:v libx264 -preset {PRESET} -crf {CRF} -c:a copy j9-ffmpeg/ID.mp4")
        if "--render" in batch_help:
            j.ratio("videowm-smart-batch", "ffmpeg-4-plain", "videowm smart batch of 4 / 4 ffmpeg plain", 0.35)
        jobs.append(j)
    return jobs
