"""The report: the machine, the method, each job's table of variants and ratios against its
targets, and the summary, written as Markdown from the saved results (bench/results.md by default)."""
import datetime
import os
import platform
import re
import shutil
import statistics

from .marks import CRF, PRESET
from .shell import first_line, sh


def machine_info(binary, built):
    def meminfo():
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
        return "?"
    cpu = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    osname = "?"
    if os.path.exists("/etc/os-release"):
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                osname = line.split("=", 1)[1].strip().strip('"')
    x264 = sh(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n", "libx264-*"]).strip().replace("\n", ", ") \
        if shutil.which("dpkg-query") else "?"
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": cpu, "cores": os.cpu_count(), "memory": meminfo(), "kernel": platform.release(), "os": osname,
        "ffmpeg": first_line(["ffmpeg", "-version"]), "x264": x264,
        "imagemagick": first_line(["/usr/bin/convert", "-version"]),
        "swift": first_line(["swift", "--version"]),
        "videowm": first_line([binary, "--version"]) if binary else "?", "built": built,
        "python": platform.python_version(),
    }


def median(values):
    return statistics.median(values) if values else float("nan")


def fmt_s(x):
    return f"{x:.2f}" if x >= 1 else f"{x:.3f}"


def variant_stats(v):
    walls = [r["wall"] for r in v["runs"]]
    cpus = [r["cpu"] for r in v["runs"]]
    rss = [r["rss_kb"] for r in v["runs"]]
    med = median(walls)
    spread = (max(walls) - min(walls)) / med if len(walls) > 1 and med > 0 else 0.0
    rss_med = median(rss) / 1024 if rss else float("nan")
    rss_spread = (max(rss) - min(rss)) / 1024 / rss_med if len(rss) > 1 and rss_med > 0 else 0.0
    return {"wall": med, "cpu": median(cpus), "rss_mb": rss_med, "rss_spread": rss_spread,
            "best_wall": min(walls) if walls else float("nan"), "best_cpu": min(cpus) if cpus else float("nan"),
            "spread": spread, "walls": walls, "load": median([r["load"] for r in v["runs"]]),
            "faults": median([r.get("minor_faults", 0) for r in v["runs"]])}


def evaluate(job):
    stats = {v["key"]: variant_stats(v) for v in job["variants"]}
    rows = []
    for r in job["ratios"]:
        if r["num"] not in stats or r["den"] not in stats:
            continue
        a, b = stats[r["num"]], stats[r["den"]]
        best = None
        if r["kind"] == "rss":
            value, cpu = a["rss_mb"] / b["rss_mb"], None
            noise = max(a["rss_spread"], b["rss_spread"], 0.005)
        elif r["kind"] == "cpu":
            # CPU seconds (user + system of the command and its children): the figure a target names.
            value, cpu = a["cpu"] / b["cpu"], a["cpu"] / b["cpu"]
            best = (a["best_wall"] / b["best_wall"], a["best_cpu"] / b["best_cpu"])
            noise = max(a["spread"], b["spread"]) / 2
            r = {**r, "wall": a["wall"] / b["wall"]}
        else:
            value, cpu = a["wall"] / b["wall"], a["cpu"] / b["cpu"]
            best = (a["best_wall"] / b["best_wall"], a["best_cpu"] / b["best_cpu"])
            noise = max(a["spread"], b["spread"]) / 2
        verdict = ""
        if r["target"] is not None:
            verdict = "pass" if value <= r["target"] else "**FAIL**"
            if abs(value - r["target"]) < noise:
                verdict += f" (within ±{noise * 100:.1f}% noise)"
        copied = [v for v in job["variants"] if v["key"] in (r["num"], r["den"]) and "stream-copied" in (v.get("check") or "")]
        if copied and r["target"] is not None:
            verdict = "not comparable (video stream-copied, no re-encode)"
        rows.append({**r, "value": value, "cpu": cpu, "verdict": verdict, "best": best if r["kind"] != "rss" else None})
    # Figures that are not a ratio of two variants (serve's jobs): a value, its target and which way it must lie.
    for f in job.get("figures", []):
        met = f["value"] <= f["target"] if f["at_most"] else f["value"] >= f["target"]
        rows.append({"what": f["what"], "value": f["value"], "cpu": None, "best": None, "target": f["target"],
                     "at_most": f["at_most"], "kind": "figure", "verdict": "pass" if met else "**FAIL**"})
    return stats, rows


def render(results, path, method_notes=(), render_profile=None):
    """Writes the report of `results` to `path`. `method_notes` are the jobs' own lines for the Method
    section (in job order); `render_profile(profile, w)` writes the profile's section."""
    m = results["machine"]
    lines = []
    w = lines.append
    w("# Benchmarks")
    w("")
    runs = results.get("runs") or [{"command": results["command"], "date": m["date"]}]
    if len(runs) == 1:
        w(f"Generated by `{runs[0]['command']}` on {runs[0]['date']} — regenerate with `bench/run` "
          "(see the README's Benchmark section). Do not edit by hand.")
    else:
        w("Generated by `bench/run` from these runs, each adding or replacing the jobs it ran (see each job's date and "
          "build) — regenerate with `bench/run` (see the README's Benchmark section). Do not edit by hand.")
        w("")
        for r in runs:
            w(f"- `{r['command']}` on {r['date']}")
    w("")
    w("## Machine")
    w("")
    w("| | |")
    w("|---|---|")
    builds = sorted({j.get("built") for j in results["jobs"].values() if j.get("built")}
                    | ({results["profile"]["built"]} if results.get("profile") and results["profile"].get("built") else set()))
    for key, label in [("cpu", "CPU"), ("cores", "cores"), ("memory", "memory"), ("os", "system"), ("kernel", "kernel"),
                       ("ffmpeg", "FFmpeg"), ("x264", "x264"), ("imagemagick", "ImageMagick"), ("swift", "Swift"),
                       ("videowm", "videowm")]:
        w(f"| {label} | {m.get(key, '?')} |")
    w(f"| sources built | {'; '.join(builds) if builds else m.get('built', '?')} (release build, see each job) |")
    w(f"| load average | {results.get('load_before', '?')} at the start, {results.get('load_after', '?')} at the end "
      "(a shared machine: other work ran alongside) |")
    w("")
    w("## Method")
    w("")
    w(f"- Inputs are generated by the bench: H.264 (x264 medium, CRF 20, GOP 60) + AAC 128k clips of "
      f"{results['seconds']:g} s from lavfi `testsrc2` + `sine`, a 600×300 RGBA logo PNG (ImageMagick), "
      "4000×3000 JPEGs (`testsrc2`, one with noise for a photo-like size), a CSV of 8 students.")
    w(f"- Every video job uses the same encoder settings on both sides: libx264 `-preset {PRESET} -crf {CRF}`, audio "
      "copied, MP4 with fast start (`-movflags +faststart` for ffmpeg, as videowm always writes it), threads "
      + ("left at each tool's automatic default (both: FFmpeg's auto for decoder and encoder)." if results["threads"] is None
         else f"fixed at {results['threads']} for decoder and encoder on both sides."))
    w(f"- The variants of a job run in rotation — A B C, then B C A, then C A B … — {results['reps']} reps per video "
      f"variant, {results['still_reps']} per still variant, so slow phases of the shared machine hit every side alike. "
      "Each figure is the **median**; `spread` is (max − min) / median of the reps. Other work on a shared machine "
      "only ever slows a run down, so the ratio of the *best* reps is shown too, as the estimate of the unloaded ratio."
      + (f" Timed commands ran at niceness {results.get('nice')}." if results.get("nice") else ""))
    w("- Wall time is measured around the process; CPU is user + system time, peak RSS the maximum resident set and "
      "minor faults the pages the process touched fresh (allocation churn), all from GNU `time` (`/usr/bin/time`). Ratios are of medians; the CPU ratio is less sensitive to other load on "
      "the machine, the wall ratio is what the issue's targets are about.")
    w("- Each output's first rep is checked with ffprobe (codec, size, frame count against the input, audio kept), "
      "shown in the `output` column.")
    w("- The ffmpeg equivalents: drawtext with DejaVu Sans at the em size whose cap height equals videowm's `size`, "
      "`x='inset+(w-tw-2*inset)*(1-abs(mod(t/10,2)-1))'` (pingPong, 10 s), `y=(h-th)/2`, white at 0.5; the logo "
      "scaled to videowm's size (longer side 0.16 × short side), alpha × 0.8 (`colorchannelmixer`), overlaid top-right "
      "at the inset. The tiled job's PNG is rendered once by `videowm stamp` on a transparent frame, outside the timing.")
    for note in method_notes:
        w(note)
    w("")

    summary = []
    job_sections = []
    def order(k):
        m = re.search(r"(\d+)p$", k)
        return (results["jobs"][k]["number"], int(m.group(1)) if m else 0, k)
    for key in sorted(results["jobs"], key=order):
        job = results["jobs"][key]
        stats, rows = evaluate(job)
        s = []
        s.append(f"### {job['number']}. {job['title']}")
        s.append("")
        loads = [st['load'] for st in stats.values()]
        s.append(f"Run {job['started']}, {job['reps']} rep(s) per variant"
                 + (f", median load average {median(loads):.1f}" if loads else "") + f"; videowm built from {job.get('built', '?')}.")
        s.append("")
        if job["variants"]:
            s.append("| variant | wall median (s) | reps (s) | spread | CPU median (s) | CPU reps (s) | peak RSS median (MB) | minor faults | output |")
            s.append("|---|---:|---|---:|---:|---|---:|---:|---|")
        for v in job["variants"]:
            st = stats[v["key"]]
            reps = " ".join(fmt_s(x) for x in st["walls"])
            cpureps = " ".join(fmt_s(r["cpu"]) for r in v["runs"])
            s.append(f"| {v['label']} | {fmt_s(st['wall'])} | {reps} | {st['spread'] * 100:.0f}% | {fmt_s(st['cpu'])} | {cpureps} | "
                     f"{st['rss_mb']:.0f} | {st['faults']:,.0f} | {v.get('check') or ''} |")
        s.append("")
        if job.get("table"):
            s.extend(job["table"])
            s.append("")
        if rows:
            s.append("| ratio | wall (medians) | CPU (medians) | wall (best reps) | CPU (best reps) | target | result |")
            s.append("|---|---:|---:|---:|---:|---:|---|")
            for r in rows:
                cpu = f"{r['cpu']:.3f}" if r["cpu"] is not None else "—"
                target = f"{'≤' if r.get('at_most', True) else '≥'} {r['target']:.2f}" if r["target"] is not None else "—"
                value = f"{r.get('wall', r['value']):.3f}"  # a "cpu" ratio is judged on its CPU column
                bw, bc = (f"{r['best'][0]:.3f}", f"{r['best'][1]:.3f}") if r.get("best") else ("—", "—")
                s.append(f"| {r['what']} | {value} | {cpu} | {bw} | {bc} | {target} | {r['verdict']} |")
                if r["target"] is not None:
                    summary.append((f"{job['number']}", job["title"], r["what"], value, cpu, target, r["verdict"]))
            s.append("")
        for note in job.get("notes", []):
            s.append(f"- {note}")
        for v in job["variants"]:
            if v.get("check") and "stream-copied" in v["check"]:
                s.append(f"- **{v['label']}**: the video was stream-copied, not re-encoded: with no layers videowm "
                         "copies the video packets even when encode options (`--crf`, `--preset`) are given. Its "
                         "time is not a transcode's; the target is judged on the re-encode with a never-shown layer.")
        s.append("")
        s.append("<details><summary>commands</summary>")
        s.append("")
        for v in job["variants"]:
            s.append(f"- {v['label']}: `{v['command']}`")
        s.append("")
        s.append("</details>")
        s.append("")
        job_sections.append("\n".join(s))

    w("## Summary against the targets of issue 8 (job 7: issue 15; jobs 8, 9: issue 13; job 11: issue 25; jobs 12-14: issue 26; job 15: issue 29)")
    w("")
    w("| job | ratio | wall | CPU | target | result (wall) |")
    w("|---|---|---:|---:|---:|---|")
    for number, title, what, value, cpu, target, verdict in summary:
        w(f"| {number}. {title} | {what} | {value} | {cpu} | {target} | {verdict} |")
    w("")
    w("Ratios of medians from one run. The verdict is on wall time, as the targets are; on a machine shared with "
      "other work the CPU-time ratio (user + system of the whole process) is the steadier of the two — read both, "
      "and each job's spread, before trusting a verdict near its target. Memory rows compare median peak RSS.")
    w("")
    w("## Results")
    w("")
    lines.extend(job_sections)

    prof = results.get("profile")
    w("## Profile")
    w("")
    if not prof:
        w("Not run (`bench/run --jobs profile`).")
    elif render_profile:
        render_profile(prof, w)
    if results.get("findings"):
        w("## What the profile and the numbers say")
        w("")
        w(results["findings"])
        w("")
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
