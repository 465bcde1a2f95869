"""Job 15: variant marks (issue 29).

15  a 10-minute lecture for 300 students, HLS and MP4 outputs, with and without a variant layer
    (a faint tiled course name in q = 8 variants changing every 2 s, docs/design/variant-marks.md): the
    CPU each student costs (their e-mail's segments) must stay within 10 % of the same batch
    without the variant layer; the variants cost once per lecture, stated against one full
    render; storage may grow by at most q × one copy for the whole batch.

Per-row CPU is measured as a difference, so the lecture's own cost (indexing, the q variant
renders) cancels: (CPU of the batch of N rows − CPU of the same batch of 1 row) / (N − 1). The
lecture's cost is then the 1-row batch's CPU less one row's. Each batch runs once (the 300-row
ones take most of the job's time); the variant and plain batches of one size run back to back.

Python 3 standard library only. Returns bench/run's result structure (variants with runs, notes)
plus `figures` (values with a target and a direction) and a `table`.
"""
import json
import os
import shutil
import subprocess

from harness.marks import CRF, LOGO_LAYER, PRESET, TEXT_LAYER
from harness.shell import log

NUMBERS = (15,)
HELP = ("  15 variant marks (issue 29): a 10-min lecture for 300 rows, HLS and MP4, with and without a variant layer:\n"
        "     per-row CPU, the lecture's once-only cost against one full render, storage (about an hour on 2 cores;\n"
        "     not in the default list: `bench/run --jobs 15`; --variant-count, --variant-seconds, --variant-height,\n"
        "     --variant-outputs and --variant-rows change its lecture, e.g. issue 45's q = 4, 150 s, 480p, 40 rows, HLS)")

Q, PERIOD = 8, 2          # variants and seconds per period (docs/design/variant-marks.md §4: the recommended q = 8, 2-s periods)
HEIGHT = 240              # the default picture height (--variant-height)
# The e-mail and logo 6 s of every 30 s, as jobs 8 and 9 (20 % of each copy a student's own).
TIMING = {"start": 10, "interval": 6000, "skip": 24000}
def variant_layer(q):
    return {"text": "CS 101 · Week 3", "size": 0.04, "opacity": 0.12, "tile": {"angle": -30},
            "outline": {"width": 0.002, "color": "#000000"},
            "variants": {"count": q, "seconds": PERIOD, "lecture": "bench-cs101-week3"}}


def tree_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(base, f)) for base, _, files in os.walk(path) for f in files)


def frame_count(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                          "stream=nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True).stdout.strip()
    counts = [int(line) for line in out.split() if line.isdigit()]  # a playlist lists its program's stream too
    return counts[0] if counts else -1


def job_variants(args, binary, inputs, logo, text_layer, logo_layer, preset, crf, runner_log):
    """Job 15: per-row CPU and storage of a batch with and without a variant layer."""
    seconds, rows = (60, 12) if args.quick else (600, 300)
    rows = args.variant_rows or rows
    seconds = args.variant_seconds or seconds
    q = args.variant_count or Q
    extensions = [e for e in ("m3u8", "mp4") if e in args.variant_outputs.split(",")]
    # 426×240 by default: what a row costs against what the variant layer adds to it does not depend
    # on the picture's size, and 300 rows of a 10-min lecture at 720p would take hours on 2 cores.
    height = args.variant_height or HEIGHT
    clip = inputs.clip(height, seconds)
    work = os.path.join(args.work, "variants")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    key = os.path.join(work, "marks.key")
    subprocess.run([binary, "keygen", key, "-q"], check=True)
    configs = {}
    folder = os.path.join(work, "config")
    os.makedirs(folder)
    shutil.copy(logo, os.path.join(folder, os.path.basename(logo_layer["image"])))
    for name, layers in [("plain", [dict(text_layer, **TIMING), dict(logo_layer, **TIMING)]),
                         ("variants", [variant_layer(q), dict(text_layer, **TIMING), dict(logo_layer, **TIMING)])]:
        path = os.path.join(folder, f"{name}.json")
        with open(path, "w") as f:
            json.dump({"watermarks": layers}, f)
        configs[name] = path
    csvs = {}
    for n in (1, rows):
        path = os.path.join(work, f"students-{n}.csv")
        with open(path, "w") as f:
            f.write("email,id\n" + "".join(f"student{i:03d}@example.edu,{i:03d}\n" for i in range(1, n + 1)))
        csvs[n] = path

    def batch(config, n, extension):
        folder = os.path.join(work, f"out-{config}-{extension}-{n}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        cmd = [binary, "batch", clip, "-c", configs[config], "--vars", csvs[n], "--output", os.path.join(folder, "{id}." + extension),
               "--key-file", key, "--segment", str(PERIOD), "-j", "4", "--preset", preset, "--crf", str(crf),
               "--progress", "none", "--force"]
        if args.threads is not None:
            cmd += ["--threads", str(args.threads)]
        return folder, cmd

    runs, storage, checks, commands = {}, {}, {}, {}
    for extension in extensions:
        for n in (1, rows):
            for config in ("plain", "variants"):
                name = f"{extension}-{config}-{n}"
                folder, cmd = batch(config, n, extension)
                commands[name] = " ".join(os.path.basename(c) if os.path.isabs(c) else c for c in cmd)
                m = runner_log(cmd, f"15-{name}")
                runs[name] = m
                storage[name] = tree_bytes(folder)
                first = os.path.join(folder, "001." + extension)
                checks[name] = f"{frame_count(first)} frames in row 001 (input {frame_count(clip)})"
                print(f"  [15-variants] {name:<22} {m['wall']:8.1f} s wall {m['cpu']:8.1f} s cpu "
                      f"{storage[name] / 1e6:9.1f} MB  ({checks[name]}, load {m['load']:.1f})", flush=True)
                if n == rows:
                    shutil.rmtree(folder)  # 300 MP4 copies are gigabytes: measured, then gone
    full_out = os.path.join(work, "full-render.mp4")
    # One full render of the lecture with every layer, the variant layer among them (issue 45's unit).
    full_cmd = ([binary, "transcode", clip, full_out, "-c", configs["variants"], "--var", "email=student001@example.edu",
                 "--key-file", key, "--render", "full", "--preset", preset, "--crf", str(crf), "--progress", "none", "-y"]
                + (["--threads", str(args.threads)] if args.threads is not None else []))
    full = runner_log(full_cmd, "15-full-render")
    commands["full-render"] = " ".join(os.path.basename(c) if os.path.isabs(c) else c for c in full_cmd)

    def per_row(extension, config):
        return (runs[f"{extension}-{config}-{rows}"]["cpu"] - runs[f"{extension}-{config}-1"]["cpu"]) / (rows - 1)

    figures, table, notes = [], [], []
    table += ["| output | per-row CPU, plain (s) | per-row CPU, variant layer (s) | ratio | lecture's CPU with variants (s) | "
              f"{rows} rows' CPU with variants − without (s) | storage of {rows} rows, plain (MB) | with variants (MB) | growth / ({q} × one copy) |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for extension, label in (("m3u8", "HLS"), ("mp4", "MP4")):
        if extension not in extensions:
            continue
        plain, variant = per_row(extension, "plain"), per_row(extension, "variants")
        lecture = runs[f"{extension}-variants-1"]["cpu"] - variant
        one_copy = storage[f"{extension}-plain-1"]
        growth = storage[f"{extension}-variants-{rows}"] - storage[f"{extension}-plain-{rows}"]
        added = runs[f"{extension}-variants-{rows}"]["cpu"] - runs[f"{extension}-plain-{rows}"]["cpu"]
        table.append(f"| {label} | {plain:.2f} | {variant:.2f} | {variant / plain:.3f} | {lecture:.1f} "
                     f"({lecture / full['cpu']:.2f} × one full render) | {added:.1f} ({added / full['cpu']:.2f} × one full render) | {storage[f'{extension}-plain-{rows}'] / 1e6:.1f} | "
                     f"{storage[f'{extension}-variants-{rows}'] / 1e6:.1f} | {growth / (q * one_copy):.3f} |")
        figures.append({"what": f"{label}: per-row CPU with the variant layer / without", "value": variant / plain,
                        "target": 1.10, "at_most": True})
        figures.append({"what": f"{label}: storage growth of {rows} rows / ({q} × one copy)", "value": growth / (q * one_copy),
                        "target": 1.0, "at_most": True})
        # Issue 45: the q variants of each period are q encodes sharing one decode, so a variant
        # layer may add at most q + 0.5 full renders, whether counted on one row or on the whole batch.
        figures.append({"what": f"{label}: the lecture's CPU with variants (1-row batch less one row) / one full render",
                        "value": lecture / full["cpu"], "target": q + 0.5, "at_most": True})
        figures.append({"what": f"{label}: CPU the variant layer adds to {rows} rows / one full render", "value": added / full["cpu"],
                        "target": q + 0.5, "at_most": True})
    notes.append(f"Lecture: {seconds:g} s of {height * 16 // 9}×{height} 30-fps testsrc2 with 2-s GOPs and AAC; {rows} rows; the e-mail and logo "
                 "shown 6 s of every 30 s (10-16 s, 40-46 s, …); `--segment 2 -j 4 --key-file`, x264 "
                 f"`{preset}` CRF {crf}. The variant layer: a tiled course name at opacity 0.12, q = {q}, {PERIOD}-s periods.")
    notes.append("Per-row CPU = (CPU of the batch of all rows − CPU of the same batch of 1 row) / (rows − 1), so what a "
                 "lecture costs once cancels; the lecture's CPU with variants = the 1-row batch less one row: indexing and "
                 f"rendering the {q} variants of every segment (one decode, {q} encodes). One full render: `videowm transcode "
                 f"--render full` of the lecture with every layer (the variant layer too), {full['cpu']:.1f} s CPU.")
    notes.append("Storage: every file of the batch (rows, shared folder) after it ends; one copy = the 1-row plain batch's "
                 "files. An MP4 row is a whole copy either way; with variants the shared renders live in a scratch folder "
                 "removed when the batch ends.")
    variants = [{"key": name, "label": f"videowm batch {name.replace('-', ' ')}", "command": commands[name], "runs": [m], "check": checks[name]}
                for name, m in runs.items()]
    variants.append({"key": "full-render", "label": "one full render (transcode --render full)", "command": commands["full-render"],
                     "runs": [full], "check": None})
    return {
        "number": 15, "title": f"Variant marks: a {seconds:g}-s {height}p lecture for {rows} rows, q = {q}, "
                 f"{' and '.join(('HLS' if e == 'm3u8' else 'MP4') for e in extensions)}, with and without a variant layer",
        "reps": 1, "variants": variants, "ratios": [], "figures": figures, "table": table, "notes": notes,
    }


def run(ctx):
    """Runs job 15 when `--jobs` asks for it; yields its key and result."""
    if not ctx.wants(15):
        return
    log("bench: job 15-variants")
    yield "15-variants", job_variants(ctx.args, ctx.binary, ctx.inputs, ctx.logo, TEXT_LAYER, LOGO_LAYER, PRESET, CRF, ctx.timed)
