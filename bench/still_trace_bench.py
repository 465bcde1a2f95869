#!/usr/bin/env python3
"""Benchmark of `videowm trace` on still pictures (issue 41): speed and false positives.

    bench/still_trace_bench.py --binary .build/release/videowm            # the full run (about an hour on 2 cores)
    bench/still_trace_bench.py --binary .build/release/videowm --quick    # a smoke run (a few minutes)

Three measurements, all with a class of 300 rows and the platform's key:

1. Speed: seconds (wall and CPU) to trace one still against a 150-s 720p lecture: a screenshot of
   the player in a 1920x1080 desktop, a phone photo of the screen and a crop around the mark, each
   made from a row's marked frame at a random instant; the target is 20 s on 2 cores.
2. False positives: stills that must name nobody, at least 200 of them: unmarked frames, frames
   marked with another platform's key (a real student's address at a place this key never puts
   it), and forgeries (a classmate's address typed in the course's style at a random place), each
   posted as a screenshot, a phone photo or a crop. Counted: how many name anybody (at the
   identification threshold, 0.001, and at 1e-6), and the smallest false-match probability any
   row reached. They are traced against a 40-s lecture (what the still shows, not the lecture's
   length, decides whether a row is named; 200 traces of a 150-s lecture would take hours).
3. Detection: stills that must name their row (a random row's marked frame at a random instant
   of the 40-s lecture, posted as a screenshot, a phone photo or a crop, in turn): how many name
   it, how many name nobody, how many name another row (must be none). --named N sets their
   number (default 60; 9 with --quick); --false N the false-positive trials' (210; 12).

Writes bench/work/still-trace/results.json and a Markdown report (--out, default
bench/work/still-trace/report.md). Python 3 standard library, ffmpeg and the built videowm only.
bench/run can call `run(binary, work, quick)` and take the report it returns.
"""
import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
WIDTH, HEIGHT = 1280, 720
CONFIG = {"watermarks": [{"text": "{email}", "size": 0.04, "opacity": 0.55, "color": "#FFFFFF",
                          "shadow": {"x": 0.002, "y": 0.002, "blur": 0.002, "color": "#000000"},
                          "animation": {"type": "random", "duration": 5000}}]}


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)


def make_lecture(path, seconds):
    """Slides every 6 s, light and dark in turn, full of text; a moving pointer; a speaker inset."""
    slide = "1+floor(t/6)"
    filters = ["drawbox=x=0:y=0:w=iw:h=ih:color=0x1F3A5F:t=fill:enable='lt(mod(t,12),6)'",
               "drawbox=x=0:y=0:w=iw:h=86:color=0x2B4C7E:t=fill",
               f"drawtext=fontfile={BOLD}:text='Lecture 3 — Signals and Systems, slide %{{eif\\:{slide}\\:d}}':fontsize=36:fontcolor=white:x=36:y=24"]
    bullets = [f"Sampling theorem, case %{{eif\\:3*{slide}+1\\:d}}", f"Aliasing and anti-aliasing filters (%{{eif\\:7*{slide}+2\\:d}} Hz)",
               f"Fourier series of a square wave, %{{eif\\:2*{slide}+1\\:d}} terms", "Convolution as a sum of shifted impulses",
               f"Exercise %{{eif\\:{slide}+10\\:d}}, the spectrum of x(n) = 0.5^n u(n)"]
    for index, bullet in enumerate(bullets):
        filters.append(f"drawtext=fontfile={FONT}:text='• {bullet}':fontsize=28:fontcolor=0x8F9BAA:x=56:y={130 + index * 62}")
    filters.append("drawbox=x=820:y=130:w=360:h=260:color=0x8F9BAA:t=3")
    filters += [f"drawbox=x={820 + line * 60}:y=130:w=1:h=260:color=0x8F9BAA:t=fill" for line in range(1, 6)]
    filters += ["drawbox=x=0:y=ih-40:w=iw:h=40:color=0xD8DEE6:t=fill",
                f"drawtext=fontfile={FONT}:text='EE 204 · Signals and Systems · page %{{eif\\:{slide}+40\\:d}}':fontsize=20:fontcolor=0x1F3A5F:x=36:y=h-30"]
    ffmpeg("-f", "lavfi", "-i", f"color=c=0xF4F1EA:s={WIDTH}x{HEIGHT}:r=25:d={seconds}",
           "-f", "lavfi", "-i", f"testsrc2=s=240x180:r=25:d={seconds}", "-f", "lavfi", "-i", f"color=c=red:s=14x14:r=25:d={seconds}",
           "-filter_complex", f"[0:v]{','.join(filters)}[slides];[1:v]drawbox=x=0:y=0:w=iw:h=ih:color=0x222222:t=3[speaker];"
           "[slides][speaker]overlay=x=W-w-24:y=H-h-56[with];[with][2:v]overlay=x='420+330*sin(t*0.9)':y='330+180*cos(t*0.7)',format=yuv420p[v]",
           "-map", "[v]", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", path)


def students(count=300, seed=2024):
    rng = random.Random(seed)
    first = ["ada", "grace", "alan", "zoe", "linus", "barbara", "edsger", "donald", "margaret", "ken", "radia", "frances"]
    last = ["lovelace", "hopper", "turing", "mueller", "torvalds", "liskov", "dijkstra", "knuth", "hamilton", "perlman"]
    return [(f"{rng.choice(first)}.{rng.choice(last)}{n}@example.edu", str(1000 + n)) for n in range(1, count + 1)]


class Pictures:
    """Frames of a lecture as people post them (the e2e tests' constructions, StillPictures.swift)."""

    def __init__(self, binary, work, lecture, config, rng):
        self.binary, self.work, self.lecture, self.config, self.rng = binary, work, lecture, config, rng

    def frame(self, name, at, config, variables, key):
        thumbnail = os.path.join(self.work, f"{name}-thumbnail.png")
        command = [self.binary, "thumbnail", self.lecture, thumbnail, "--at", f"{at:.2f}", "-c", config, "-y", "-q"]
        for key_value in variables:
            command += ["--var", key_value]
        if key:
            command += ["--key-file", key]
        subprocess.run(command, check=True)
        copy = os.path.join(self.work, f"{name}.mp4")
        ffmpeg("-i", thumbnail, "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", copy)
        out = os.path.join(self.work, f"{name}.png")
        ffmpeg("-i", copy, "-frames:v", "1", out)
        return out

    def screenshot(self, frame, out, at):
        pw = 1000 + self.rng.randrange(501) // 2 * 2
        ph = pw * 9 // 16 // 2 * 2
        x, y = 70 + self.rng.randrange(max(1, 1780 - pw)), 200 + self.rng.randrange(max(1, 830 - ph))
        desk = ["drawbox=x=50:y=30:w=1820:h=1020:color=0xFFFFFF:t=fill", "drawbox=x=50:y=30:w=1820:h=44:color=0xDEE1E6:t=fill",
                "drawbox=x=170:y=84:w=1400:h=32:color=0xF1F3F4:t=fill",
                f"drawtext=fontfile={FONT}:text='https\\://learn.example.edu/courses/ee204/lecture-3':fontsize=16:fontcolor=0x202124:x=190:y=92"]
        ffmpeg("-f", "lavfi", "-i", "color=c=0x3A3F47:s=1920x1080", "-i", frame, "-filter_complex",
               f"[0:v]{','.join(desk)}[desk];[1:v]scale={pw}:{ph}[player];[desk][player]overlay=x={x}:y={y}", "-frames:v", "1", out)
        return out

    def photo(self, frame, out):
        left, top = 80 + self.rng.randrange(140), 180 + self.rng.randrange(200)
        jitter = lambda: self.rng.randrange(121) - 60
        corners = [(40 + jitter(), 60 + jitter()), (1560 + jitter(), 40 + jitter()), (60 + jitter(), 1160 + jitter()), (1550 + jitter(), 1170 + jitter())]
        perspective = ":".join(f"x{i}={cx}:y{i}={cy}" for i, (cx, cy) in enumerate(corners))
        ffmpeg("-i", frame, "-vf", f"pad=1340:780:30:30:color=0x111111,pad=1600:1200:{left}:{top}:color=0x6B5B4B,"
               f"perspective={perspective}:sense=destination,gblur=sigma={1.0 + self.rng.randrange(5) / 10},"
               f"noise=alls={8 + self.rng.randrange(6)}:allf=t:all_seed={left * 1000 + top},eq=brightness=0.07:contrast=0.9", "-q:v", str(12 + self.rng.randrange(4)), out)
        return out

    def crop(self, frame, out, around=None):
        """About a third of the frame, at a random place; with `around` (x, y, w, h: the mark), a
        random place that holds the mark whole, as a crop posted to show it is made."""
        w, h = 740, 420
        if around:
            mx, my, mw, mh = around
            def place(start, size, window, limit):
                low, high = max(0, start + size - window), min(start, limit - window)
                return low + self.rng.randrange(high - low + 1) if high >= low else max(0, min(limit - window, start + size // 2 - window // 2))
            x, y = place(mx, mw, w, WIDTH), place(my, mh, h, HEIGHT)
        else:
            x, y = self.rng.randrange(WIDTH - w), self.rng.randrange(HEIGHT - h)
        scale = 1.4 + self.rng.randrange(7) / 10
        ffmpeg("-i", frame, "-vf", f"crop={w}:{h}:{x}:{y},scale={int(w * scale) // 2 * 2}:-2", "-q:v", "4", out)
        return out


def mark_box(marked, clean):
    """Where `marked` differs from `clean` by more than a copy's compression does (x, y, w, h)."""
    done = subprocess.run(["ffmpeg", "-hide_banner", "-i", marked, "-i", clean, "-filter_complex",
                           "[0:v]format=gray[a];[1:v]format=gray[b];[a][b]blend=all_mode=difference,lutyuv=y='if(gt(val,40),255,0)',"
                           "cropdetect=limit=1:round=1:reset=0:skip=0", "-f", "null", "-"], capture_output=True, text=True)
    found = [line.split("crop=")[1].split()[0] for line in done.stderr.splitlines() if "crop=" in line]
    if not found:
        return None
    w, h, x, y = (int(v) for v in found[-1].split(":"))
    return (x, y, w, h) if w > 0 and h > 0 else None


def trace(binary, still, lecture, config, csv, key):
    """One trace: wall and CPU seconds, peak memory, exit status and the JSON report."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run([binary, "trace", still, "--original", lecture, "-c", config, "--vars", csv, "--key-file", key, "--json", "--top", "3"],
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = {"error": done.stderr.strip()}
    return {"wall": wall, "cpu": cpu, "rss_mb": after.ru_maxrss / 1024, "status": done.returncode, "report": report}


def setup(work, binary, seconds, name, seed):
    os.makedirs(work, exist_ok=True)
    lecture = os.path.join(work, f"{name}.mp4")
    if not os.path.exists(lecture):
        make_lecture(lecture, seconds)
    config = os.path.join(work, "course.json")
    with open(config, "w") as f:
        json.dump(CONFIG, f)
    rows = students()
    csv = os.path.join(work, "students.csv")
    with open(csv, "w") as f:
        f.write("email,id\n" + "".join(f"{email},{ident}\n" for email, ident in rows))
    keys = []
    for key_name in ["platform.key", "other.key"]:
        key = os.path.join(work, key_name)
        if not os.path.exists(key):
            # From the seed, so that a seed gives the same stills in every run (a key file is 32 bytes).
            made = random.Random(f"{seed}-{key_name}").randbytes(32)
            with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
                f.write(made)
        keys.append(key)
    return lecture, config, csv, rows, keys


def evidence(report):
    """The still's instants and its strongest rows' two readings, kept for analysis."""
    still = report.get("still") or {}
    return {"earliest": still.get("earliestSeconds"), "latest": still.get("latestSeconds"), "rows": still.get("rows", [])[:3]}


def run(binary, work, quick=False, seed=41, named_trials=None, false_trials=None, skip_speed=False, trace_kinds=None):
    rng = random.Random(seed)
    results = {"speed": [], "false_positives": [], "detection": []}
    # 1. Speed against the 150-s lecture.
    if not skip_speed:
        lecture, config, csv, rows, (key, other) = setup(work, binary, 30 if quick else 150, "lecture-150s", seed)
        pictures = Pictures(binary, work, lecture, config, rng)
    for index in range(0 if skip_speed else 2 if quick else 3):
        number = rng.randrange(len(rows))
        at = rng.uniform(0.5, (30 if quick else 150) - 0.5)
        email, ident = rows[number]
        frame = pictures.frame(f"speed-{index}", at, config, [f"email={email}", f"id={ident}"], key)
        for kind in ["screenshot", "photo", "crop"]:
            still = os.path.join(work, f"speed-{index}-{kind}." + ("png" if kind == "screenshot" else "jpg"))
            getattr(pictures, kind)(frame, still, at) if kind == "screenshot" else getattr(pictures, kind)(frame, still)
            outcome = trace(binary, still, lecture, config, csv, key)
            named = [row["row"] for row in outcome["report"].get("identified", [])]
            results["speed"].append({"kind": kind, "row": number + 1, "at": at, "wall": outcome["wall"], "cpu": outcome["cpu"],
                                     "rss_mb": outcome["rss_mb"], "named": named, "right": named == [number + 1]})
            print(f"speed {kind}: {outcome['wall']:.1f} s wall, {outcome['cpu']:.1f} s CPU, named {named} (row {number + 1})", flush=True)
    # 2. False positives against a 40-s lecture.
    lecture, config, csv, rows, (key, other) = setup(work, binary, 40, "lecture-40s", seed)
    pictures = Pictures(binary, work, lecture, config, rng)
    none = os.path.join(work, "none.json")
    with open(none, "w") as f:
        json.dump({"watermarks": [{"text": "x", "opacity": 0}]}, f)
    trials = false_trials if false_trials is not None else 12 if quick else 210
    for trial in range(trials):
        kind = ["unmarked", "another key", "forgery"][trial % 3]
        at = rng.uniform(0.5, 39.5)
        number = rng.randrange(len(rows))
        email, ident = rows[number]
        if kind == "unmarked":
            frame = pictures.frame("fp", at, none, [], None)
        elif kind == "another key":
            frame = pictures.frame("fp", at, config, [f"email={email}", f"id={ident}"], other)
        else:
            clean = pictures.frame("fp-clean", at, none, [], None)
            forger = os.path.join(work, "forger.json")
            layer = dict(CONFIG["watermarks"][0], x=rng.randrange(101), y=rng.randrange(101))
            layer.pop("animation")
            with open(forger, "w") as f:
                json.dump({"watermarks": [layer]}, f)
            frame = os.path.join(work, "fp-typed.png")
            subprocess.run([binary, "stamp", clean, "-o", frame, "-c", forger, "--var", f"email={email}", "-y", "-q"], check=True)
        posted = ["screenshot", "photo", "crop"][(trial // 3) % 3]
        still = os.path.join(work, "fp-posted." + ("png" if posted == "screenshot" else "jpg"))
        getattr(pictures, posted)(frame, still, at) if posted == "screenshot" else getattr(pictures, posted)(frame, still)
        if trace_kinds and kind not in trace_kinds:
            continue  # made all the same, so the trials after it are the ones a full run makes
        outcome = trace(binary, still, lecture, config, csv, key)
        report = outcome["report"]
        ranking = report.get("ranking", [])
        best = min((row["falseMatchProbability"] for row in ranking), default=1.0)
        named = [row["row"] for row in report.get("identified", [])]
        forged = (report.get("still") or {}).get("forgedRows", [])
        results["false_positives"].append({"kind": kind, "posted": posted, "at": at, "named": named, "best": best, "status": outcome["status"],
                                           "forged": forged, "wall": outcome["wall"], "evidence": evidence(report)})
        print(f"fp {trial + 1}/{trials} {kind} as {posted}: named {named}, best {best:.2g}, forged {forged}", flush=True)
    # 3. Detection against the same 40-s lecture: every posted kind in turn.
    trials = named_trials if named_trials is not None else 9 if quick else 60
    for trial in range(trials):
        at = rng.uniform(0.5, 39.5)
        number = rng.randrange(len(rows))
        email, ident = rows[number]
        frame = pictures.frame("tp", at, config, [f"email={email}", f"id={ident}"], key)
        posted = ["screenshot", "photo", "crop"][trial % 3]
        still = os.path.join(work, "tp-posted." + ("png" if posted == "screenshot" else "jpg"))
        if posted == "crop":
            # A crop made to show the mark holds it whole (the "crop around the mark").
            pictures.crop(frame, still, around=mark_box(frame, pictures.frame("tp-clean", at, none, [], None)))
        else:
            getattr(pictures, posted)(frame, still, at) if posted == "screenshot" else getattr(pictures, posted)(frame, still)
        outcome = trace(binary, still, lecture, config, csv, key)
        report = outcome["report"]
        named = [row["row"] for row in report.get("identified", [])]
        ranking = report.get("ranking", [])
        own = next((row["falseMatchProbability"] for row in ranking if row["row"] == number + 1), 1.0)
        results["detection"].append({"posted": posted, "at": at, "row": number + 1, "named": named, "own": own,
                                     "status": outcome["status"], "wall": outcome["wall"], "evidence": evidence(report)})
        print(f"tp {trial + 1}/{trials} row {number + 1} at {at:.2f} s as {posted}: named {named}, own {own:.2g}", flush=True)
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    return results, report_markdown(results, quick)


def report_markdown(results, quick):
    speed = results["speed"]
    lines = ["# Tracing a still picture: speed and false positives", "",
             f"{'Quick run: a 30-s lecture, 12 trials.' if quick else 'A 150-s 720p lecture, 300 rows, release build.'} "
             "Made by bench/still_trace_bench.py.", "", "## Speed (one still against the lecture, 300 rows)", "",
             "| still | wall s (median) | CPU s (median) | peak MB | named its row |", "|---|---:|---:|---:|---:|"]
    for kind in ["screenshot", "photo", "crop"]:
        runs = [r for r in speed if r["kind"] == kind]
        if runs:
            lines.append(f"| {kind} | {statistics.median(r['wall'] for r in runs):.1f} | {statistics.median(r['cpu'] for r in runs):.1f} | "
                         f"{max(r['rss_mb'] for r in runs):.0f} | {sum(r['right'] for r in runs)} of {len(runs)} |")
    fps = results["false_positives"]
    lines += ["", f"## False positives ({len(fps)} stills that must name nobody)", "",
              "| kind | stills | named anybody (0.001) | named at 1e-6 | smallest false-match probability | said forged |", "|---|---:|---:|---:|---:|---:|"]
    for kind in ["unmarked", "another key", "forgery"]:
        runs = [r for r in fps if r["kind"] == kind]
        if runs:
            lines.append(f"| {kind} | {len(runs)} | {sum(1 for r in runs if r['named'])} | {sum(1 for r in runs if r['best'] <= 1e-6)} | "
                         f"{min(r['best'] for r in runs):.2g} | {sum(1 for r in runs if r['forged'])} |")
    found = results.get("detection", [])
    if found:
        lines += ["", f"## Detection ({len(found)} stills of a row's marked frame, 40-s lecture)", "",
                  "| posted as | stills | named its row | named nobody | named another row | own false-match probability (median) |",
                  "|---|---:|---:|---:|---:|---:|"]
        for posted in ["screenshot", "photo", "crop"]:
            runs = [r for r in found if r["posted"] == posted]
            if runs:
                lines.append(f"| {posted} | {len(runs)} | {sum(1 for r in runs if r['named'] == [r['row']])} | "
                             f"{sum(1 for r in runs if not r['named'])} | {sum(1 for r in runs if r['named'] and r['named'] != [r['row']])} | "
                             f"{statistics.median(r['own'] for r in runs):.2g} |")
        # The lecture's slides are dark for the first 6 s of every 12 (make_lecture), light for the rest.
        for shade, dark in [("dark", True), ("light", False)]:
            runs = [r for r in found if ((r["at"] % 12) < 6) == dark]
            if runs:
                lines.append(f"| any, on {shade} slides | {len(runs)} | {sum(1 for r in runs if r['named'] == [r['row']])} | "
                             f"{sum(1 for r in runs if not r['named'])} | {sum(1 for r in runs if r['named'] and r['named'] != [r['row']])} | "
                             f"{statistics.median(r['own'] for r in runs):.2g} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--work", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "work", "still-trace"))
    parser.add_argument("--out")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--named", type=int, help="detection trials (default 60, 9 with --quick)")
    parser.add_argument("--false", dest="false_trials", type=int, help="false-positive trials (default 210, 12 with --quick)")
    parser.add_argument("--trace-kinds", help="comma-separated false-positive kinds to trace (unmarked, another key, forgery); "
                        "the others are made but not traced, so a seed gives the same stills as a full run")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed part (and its 150-s lecture)")
    args = parser.parse_args()
    _, markdown = run(os.path.abspath(args.binary), args.work, args.quick, args.seed, args.named, args.false_trials, args.no_speed,
                      [kind.strip() for kind in args.trace_kinds.split(",")] if args.trace_kinds else None)
    out = args.out or os.path.join(args.work, "report.md")
    with open(out, "w") as f:
        f.write(markdown)
    print(markdown)


if __name__ == "__main__":
    sys.exit(main())
