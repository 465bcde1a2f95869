"""Job 11 (issue 25): a ladder batch of 4 students (720/480/360, one audio group, SRT captions, the
marks shown 6 s of every 30 s) against 4 ffmpeg runs encoding the same ladder with the mark."""
import os
import re
import shlex
import subprocess

from harness.commands import threads_in, threads_out
from harness.marks import EMAIL, INSET, LOGO_OPACITY, PRESET, SMART_TIMING, drawtext_filter
from harness.runner import Job
from harness.shell import ROOT, display, remove

NUMBERS = (11,)
HELP = ("  11 a ladder batch (issue 25): 4 students, ladder 720/480/360 + one audio group + SRT captions, the\n"
        "     e-mail and logo shown 6 s of every 30 s, vs 4 ffmpeg runs that encode the same ladder with the\n"
        "     mark (HLS fMP4, var_stream_map); CPU ratio, and storage of the 4 rows against 4 x one row alone")

# Apple's HLS authoring rates for the ladder's encoded rungs (StandardBitRates: 720p 3000k;
# 854x480 interpolated by pixels between 768x432 at 730k and 960x540 at 2000k; 360p 365k), so the
# ffmpeg ladder encodes at the rates videowm's does. videowm's 720p rung is the input's own packets
# where no mark shows, re-encoded at the input's rate where one does; ffmpeg encodes it at 3000k.
LADDER = [(720, 3000), (480, 1262), (360, 365)]
LADDER_SRT = ("1\n00:00:01,000 --> 00:00:04,000\nWelcome to the lecture\n\n"
              "2\n00:00:11,500 --> 00:00:13,250\nA cue across a cut\n\n"
              "3\n00:00:40,000 --> 00:00:44,000\nThe last slide\n")


def ffmpeg_ladder(inp, logo, logo_wh, out_dir, threads, segment):
    """One student's marked ladder with ffmpeg alone: the marks drawn once at 720p, split and scaled,
    each rung encoded at its rate with the same decoder-buffer cap as videowm's (1.5x), keyframes at
    every cut, audio copied into its own group, fMP4 HLS."""
    h = 720
    inset = round(INSET * h, 2)
    n = len(LADDER)
    # Shown when videowm's timed layers are (SMART_TIMING: 6 s of every 30 s from 10 s).
    start, shown, every = SMART_TIMING["start"], SMART_TIMING["interval"] / 1000, (SMART_TIMING["interval"] + SMART_TIMING["skip"]) / 1000
    enable = f"enable='gte(t\\,{start})*lt(mod(t-{start}\\,{every:g})\\,{shown:g})'"
    graph = (f"[0:v]{drawtext_filter(h, EMAIL)}:{enable}[t];"
             f"[1:v]scale={logo_wh[0]}:{logo_wh[1]},format=rgba,colorchannelmixer=aa={LOGO_OPACITY}[l];"
             f"[t][l]overlay=x=W-w-{inset}:y={inset}:{enable},split={n}" + "".join(f"[s{i}]" for i in range(n)) + ";"
             + ";".join(f"[s{i}]scale=-2:{rung}[v{i}]" for i, (rung, _) in enumerate(LADDER)))
    cmd = (["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y"] + threads_in(threads)
           + ["-i", inp, "-i", logo, "-filter_complex", graph])
    for i in range(n):
        cmd += ["-map", f"[v{i}]"]
    cmd += ["-map", "0:a", "-c:v", "libx264", "-preset", PRESET, "-force_key_frames", f"expr:gte(t,n_forced*{segment})"]
    for i, (_, kbits) in enumerate(LADDER):
        cmd += [f"-b:v:{i}", f"{kbits}k", f"-maxrate:v:{i}", f"{kbits * 3 // 2}k", f"-bufsize:v:{i}", f"{kbits * 3 // 2}k"]
    streams = " ".join(f"v:{i},agroup:audio" for i in range(n)) + " a:0,agroup:audio"
    return cmd + ["-c:a", "copy"] + threads_out(threads) + [
        "-f", "hls", "-hls_time", str(segment), "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
        "-var_stream_map", streams, "-master_pl_name", "master.m3u8",
        "-hls_segment_filename", os.path.join(out_dir, "%v-%d.m4s"), "-hls_fmp4_init_filename", "init.mp4",
        os.path.join(out_dir, "%v.m3u8")]


def playlist_files(playlist):
    """Every file a playlist reaches (itself, its media playlists and their files), as real paths."""
    folder = os.path.dirname(playlist)
    found = {os.path.realpath(playlist)}
    for line in open(playlist).read().splitlines():
        uris = re.findall(r'URI="([^"]+)"', line) if line.startswith("#") else ([line.strip()] if line.strip() else [])
        for uri in uris:
            path = os.path.join(folder, uri)
            if path.endswith(".m3u8"):
                found |= playlist_files(path)
            else:
                found.add(os.path.realpath(path))
    return found


def ladder_batch_check(batch_dir, count):
    """hls-check on every row's multivariant playlist; storage of the rows together against `count`
    times the files one row's playlist reaches (what one row's presentation takes alone)."""
    def check():
        rows = sorted(f for f in os.listdir(batch_dir) if f.endswith(".m3u8") and "-" not in f)
        failed = []
        for f in rows:
            r = subprocess.run([os.path.join(ROOT, "scripts", "hls-check"), os.path.join(batch_dir, f), "--root", batch_dir],
                               capture_output=True, text=True)
            if r.returncode != 0:
                failed.append(f"{f}: {(r.stdout + r.stderr).strip()[:200]}")
        total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(batch_dir) for f in fs if not f.endswith(".jsonl"))
        alone = sum(os.path.getsize(p) for p in playlist_files(os.path.join(batch_dir, rows[0]))) if rows else 0
        ratio = total / (count * alone) if alone else float("nan")
        facts = [f"{len(rows)} multivariant playlists" + ("" if len(rows) == count else f" — EXPECTED {count}"),
                 "hls-check passes on all" if not failed else "hls-check FAILS: " + "; ".join(failed),
                 f"{total / 1e6:.2f} MB on disk for {count} rows, {alone / 1e6:.2f} MB for one alone",
                 f"storage {count} rows / {count} x one alone = {ratio:.3f} (target <= 0.50: {'pass' if ratio <= 0.50 else 'FAIL'})"]
        return "; ".join(facts)
    return check


def ffmpeg_ladder_check(sep_dir, count):
    def check():
        masters = [os.path.join(sep_dir, d, "master.m3u8") for d in sorted(os.listdir(sep_dir))]
        present = [m for m in masters if os.path.exists(m)]
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(sep_dir) for f in fs)
        return (f"{len(present)} master playlists" + ("" if len(present) == count else f" — EXPECTED {count}")
                + f", {size / 1e6:.2f} MB for {count} ladders")
    return check


def plan(ctx):
    if not ctx.wants(11):
        return []
    binary, cfg, inputs, out, t = ctx.binary, ctx.cfg, ctx.inputs, ctx.out, ctx.threads
    h, segment = 720, 2
    s = 12 if ctx.args.quick else 60
    clip = inputs.clip(h, s)
    srt = os.path.join(inputs.dir, "lecture.srt")
    with open(srt, "w") as f:
        f.write(LADDER_SRT)
    csv4, four = inputs.students_four()
    ladder = ",".join(str(rung) for rung, _ in LADDER)
    j = Job("11-ladder-batch", 11, f"Ladder batch of 4 students, {ladder} + audio + captions, timed e-mail + logo, {h}p30, {s:g} s",
            ctx.args.batch_reps)
    batch_dir, sep_dir = os.path.join(out, "j11-batch"), os.path.join(out, "j11-ffmpeg")
    cmd = [binary, "batch", clip, "-c", cfg["timed"], "--vars", csv4, "--output", os.path.join(batch_dir, "{id}.m3u8"),
           "--ladder", ladder, "--subtitles", f"{srt}:en:English", "--segment", str(segment), "-j", "4",
           "--preset", PRESET, "--progress", "none", "--force", "--report", os.path.join(batch_dir, "report.jsonl")]
    cmd += ["--threads", str(t)] if t is not None else []

    def fresh(d):
        remove(d)
        os.makedirs(d, exist_ok=True)
    j.add("videowm-ladder-batch", f"videowm batch -j 4 --ladder {ladder} --subtitles (shared unmarked segments)", cmd, batch_dir,
          ladder_batch_check(batch_dir, 4), before=lambda d=batch_dir: fresh(d))
    loop = "set -e\n" + "\n".join(
        f"mkdir -p {shlex.quote(os.path.join(sep_dir, r[2]))}\n"
        + shlex.join(ffmpeg_ladder(clip, ctx.logo, ctx.logo_wh, os.path.join(sep_dir, r[2]), t, segment)) for r in four)
    j.add("ffmpeg-4-ladders", "4 ffmpeg runs, each encoding the marked ladder (HLS, var_stream_map)", ["bash", "-c", loop], sep_dir,
          ffmpeg_ladder_check(sep_dir, 4), before=lambda d=sep_dir: fresh(d),
          display_cmd=f"for each of the 4 rows: ffmpeg -i {display(clip, ctx.work)} -i logo.png -filter_complex "
                      f"'drawtext+overlay,split=3,scale' -c:v libx264 -preset {PRESET} -b:v:N RATE -maxrate/-bufsize 1.5x "
                      f"-force_key_frames every {segment} s -c:a copy -f hls -hls_segment_type fmp4 -var_stream_map … j11-ffmpeg/ID/")
    j.ratio("videowm-ladder-batch", "ffmpeg-4-ladders", "CPU: videowm ladder batch of 4 / 4 ffmpeg ladders", 0.45, kind="cpu")
    j.ratio("videowm-ladder-batch", "ffmpeg-4-ladders", "wall: videowm ladder batch of 4 / 4 ffmpeg ladders")
    j.notes.append(f"The marks show 10-16 s and 40-46 s; with --segment {segment} (the input's GOP) those are 3 of every 15 "
                   "segments, re-encoded per student in each rendition; every other segment of every rendition, the audio and the "
                   "captions are stored once (the check's storage ratio). The 720p rendition is the input's own packets where no mark shows.")
    return [j]
