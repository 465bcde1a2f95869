"""Job 5: a batch of 8 students, videowm batch against 8 separate transcodes."""
import os
import shlex
import subprocess

from harness.checks import dir_check
from harness.commands import videowm_transcode
from harness.marks import CRF, PRESET
from harness.runner import Job
from harness.shell import display

NUMBERS = (5,)
HELP = "  5  a batch of 8 students: videowm batch (when the command exists) vs 8 separate transcodes"


def plan(ctx):
    if not ctx.wants(5):
        return []
    binary, cfg, t, out, work = ctx.binary, ctx.cfg, ctx.threads, ctx.out, ctx.work
    h, seconds = ctx.args.batch_height, ctx.args.seconds
    clip = ctx.inputs.clip(h, seconds)
    students = ctx.inputs.students()
    has_batch = subprocess.run([binary, "help", "batch"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL).returncode == 0
    j = Job(f"5-batch", 5, f"Batch of 8 students, e-mail + logo, {h}p30, {seconds:g} s", ctx.args.batch_reps)
    sep_dir, batch_dir = os.path.join(out, "j5-separate"), os.path.join(out, "j5-batch")
    rows = [line.split(",") for line in open(students).read().splitlines()[1:]]
    loop = "set -e\n" + "\n".join(
        shlex.join(videowm_transcode(binary, clip, os.path.join(sep_dir, f"{r[2]}.mp4"), cfg["marked"], t, email=r[0]))
        for r in rows)
    j.add("videowm-8-separate", "8 separate videowm transcode runs, one after another", ["bash", "-c", loop],
          sep_dir, dir_check(sep_dir, 8), before=lambda d=sep_dir: os.makedirs(d, exist_ok=True),
          display_cmd=f"for each of the 8 rows: videowm transcode {display(clip, work)} j5-separate/ID.mp4 -c email-logo.json --var email=EMAIL --crf {CRF} --preset {PRESET}")
    if has_batch:
        cmd = [binary, "batch", clip, "-c", cfg["marked"], "--vars", students,
               "--output", os.path.join(batch_dir, "{id}.mp4"), "--crf", CRF, "--preset", PRESET, "--render", "full",
               "--progress", "none"]
        cmd += ["--threads", str(t)] if t is not None else []
        j.add("videowm-batch", "videowm batch, default -j (outputs per decode)", cmd, batch_dir, dir_check(batch_dir, 8),
              before=lambda d=batch_dir: os.makedirs(d, exist_ok=True))
        all_dir = os.path.join(out, "j5-batch-j8")
        cmd8 = [c.replace(batch_dir, all_dir) for c in cmd] + ["-j", "8"]
        j.add("videowm-batch-j8", "videowm batch -j 8 (one decode for all 8)", cmd8, all_dir, dir_check(all_dir, 8),
              before=lambda d=all_dir: os.makedirs(d, exist_ok=True))
        j.ratio("videowm-batch", "videowm-8-separate", "videowm batch (default -j) / 8 separate runs", 0.85)
        j.ratio("videowm-batch-j8", "videowm-8-separate", "videowm batch -j 8 / 8 separate runs", 0.85)
        j.ratio("videowm-batch", "videowm-8-separate", "peak RSS batch (default -j) / largest separate run", kind="rss")
        j.ratio("videowm-batch-j8", "videowm-8-separate", "peak RSS batch -j 8 / largest separate run", kind="rss")
    else:
        j.notes.append("`videowm help batch` failed in this build: the batch command does not exist yet, "
                       "so only the 8 separate runs were timed (the reference a batch must beat by 15%).")
    return [j]
