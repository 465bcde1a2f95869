"""The profile (`--jobs profile`): callgrind's instruction counts (deterministic, so the noisy shared
machine does not blur them) and perf's sampled CPU time of videowm's hot path beside ffmpeg's, and
the report section that shows them."""
import os
import re
import shutil
import subprocess
import time

from harness.commands import ffmpeg_marked, ffmpeg_plain, ffmpeg_still, ffmpeg_tiled, videowm_transcode
from harness.marks import EMAIL, JPEG_QUALITY, logo_pixels
from harness.shell import display, log
from jobs.tiled import tile_png

NUMBERS = ("profile",)
HELP = "  profile  callgrind (instruction counts, noise-free) and perf (sampled time) of videowm's hot path"


def parse_callgrind(path):
    """Self cost (Ir) per object and per function, and the total, from a callgrind output file."""
    names = {"ob": {}, "fn": {}}
    by_object, by_function = {}, {}
    total = 0
    ob = fn = None
    after_calls = False
    npos = 1
    name_re = re.compile(r"^\((\d+)\)(?: (.*))?$")

    def resolve(kind, value):
        m = name_re.match(value)
        if not m:
            return value
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
            return m.group(2)
        return names[kind].get(m.group(1), value)

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                if after_calls:
                    after_calls = False
                    continue
                parts = line.split()
                cost = int(parts[npos]) if len(parts) > npos else 0
                by_object[ob] = by_object.get(ob, 0) + cost
                key = (ob, fn)
                by_function[key] = by_function.get(key, 0) + cost
                total += cost
            elif line.startswith("ob="):
                ob = resolve("ob", line[3:])
            elif line.startswith("fn="):
                fn = resolve("fn", line[3:])
            elif line.startswith("cob="):
                resolve("ob", line[4:])
            elif line.startswith("cfn="):
                resolve("fn", line[4:])
            elif line.startswith("calls="):
                after_calls = True
            elif line.startswith("positions:"):
                npos = len(line.split()[1:])
    return total, by_object, by_function


def demangle_text(text):
    swift = shutil.which("swift")
    if not swift:
        return text
    try:
        return subprocess.run([swift, "demangle", "--simplified"], input=text, stdout=subprocess.PIPE, text=True,
                              timeout=300).stdout or text
    except (OSError, subprocess.SubprocessError):
        return text


def demangle(lines):
    swift = shutil.which("swift-demangle") or shutil.which("swift")
    if not swift:
        return lines
    cmd = [swift, "--simplified"] if swift.endswith("swift-demangle") else [swift, "demangle", "--simplified"]
    try:
        out = subprocess.run(cmd, input="\n".join(lines), stdout=subprocess.PIPE, text=True, timeout=120).stdout
        result = out.splitlines()
        return result if len(result) == len(lines) else lines
    except (OSError, subprocess.SubprocessError):
        return lines


# Pipeline stages, found by (demangled) function name in callgrind's inclusive costs.
STAGES = [
    ("whole job (Transcoder.run / StillStamper.stamp / ffmpeg main)", ["Transcoder.run()", "StillStamper.stamp(", ":main "]),
    ("demux (av_read_frame)", ["av_read_frame "]),
    ("decode (avcodec_send_packet + receive_frame)", ["avcodec_send_packet "]),
    ("encode (x264_encoder_encode)", ["x264_encoder_encode "]),
    ("encode still (avcodec_send_frame)", ["StillImageWriter.encode("]),
    ("mux (av_interleaved_write_frame)", ["av_interleaved_write_frame "]),
    ("mark a frame (FrameMarker.mark)", ["FrameMarker.mark("]),
    ("  copy to a writable frame (av_frame_make_writable)", ["av_frame_make_writable "]),
    ("  composite (Compositor.composite)", ["Compositor.composite"]),
    ("    blend in YUV (PlanarYUVCanvas.blend)", ["PlanarYUVCanvas.blend("]),
    ("    blend in RGBA (RGBACanvas.blend)", ["RGBACanvas.blend("]),
    ("prepare marks once (Compositor.prepare)", ["Compositor.prepare(", "Compositor.preparedLayers("]),
    ("  text rasterised (FontLibrary.render)", ["FontLibrary.render("]),
    ("  marks converted to YUV (PlanarMark.init)", ["PlanarMark.init("]),
    ("read still (StillImageReader.read)", ["StillImageReader.read("]),
    ("pixel format conversion (sws_scale)", ["sws_scale "]),
    ("EXIF orientation (oriented)", ["oriented(exif:"]),
    ("write still (StillImageWriter.write)", ["StillImageWriter.write("]),
]

OBJECT_GROUPS = [
    ("libx264", "x264 encoder (libx264)"),
    ("libavcodec", "libavcodec (H.264 decoder, codec glue)"),
    ("libavformat", "libavformat (demux, mux)"),
    ("libswscale", "libswscale (pixel format conversion)"),
    ("libavfilter", "libavfilter (drawtext, overlay)"),
    ("libavutil", "libavutil (frames, buffers, copies)"),
    ("libswiftCore", "Swift runtime (libswiftCore)"),
    ("libFoundation", "Foundation"),
    ("libfreetype", "FreeType"),
    ("libfontconfig", "fontconfig"),
    ("libc.so", "libc (memcpy, memset, malloc)"),
    ("ld-linux", "dynamic loader"),
    ("vgpreload", "valgrind preload (malloc wrappers)"),
]


def group_of(obj, binary_names):
    if obj is None:
        return "other"
    base = os.path.basename(obj)
    if base in binary_names:
        return f"{base} itself (pipeline, compositor)" if base == "videowm" else f"{base} itself"
    for needle, label in OBJECT_GROUPS:
        if needle in base:
            return label
    return "other (" + base + ")"


def run(ctx):
    """Callgrind on a short clip (deterministic instruction counts) and perf on the full clip."""
    args, binary, inputs, cfg = ctx.args, ctx.binary, ctx.inputs, ctx.cfg
    pdir = os.path.join(args.work, "profile")
    os.makedirs(pdir, exist_ok=True)
    clip = inputs.clip(720, args.profile_seconds)
    logo, logo_wh = ctx.logo, ctx.logo_wh
    result = {"clip": os.path.basename(clip), "seconds": args.profile_seconds, "callgrind": {}, "perf": {}}
    cases = [
        ("videowm-marked", videowm_transcode(binary, clip, os.path.join(pdir, "vw-marked.mp4"), cfg["marked"], 1)),
        ("ffmpeg-marked", ffmpeg_marked(clip, logo, logo_pixels(*logo_wh, 720), 720, os.path.join(pdir, "ff-marked.mp4"), 1)),
        ("videowm-plain", videowm_transcode(binary, clip, os.path.join(pdir, "vw-plain.mp4"), cfg["invisible"], 1)),
        ("ffmpeg-plain", ffmpeg_plain(clip, os.path.join(pdir, "ff-plain.mp4"), 1)),
    ]
    tiles = tile_png(ctx, 1280, 720)
    # Job 7's pair: what text changing every frame costs over the same layer with a fixed text.
    cases += [
        ("videowm-timecode", videowm_transcode(binary, clip, os.path.join(pdir, "vw-timecode.mp4"), cfg["timecode"], 1)),
        ("videowm-static-text", videowm_transcode(binary, clip, os.path.join(pdir, "vw-static.mp4"), cfg["timecode-static"], 1)),
    ]
    cases += [
        ("videowm-tiled", videowm_transcode(binary, clip, os.path.join(pdir, "vw-tiled.mp4"), cfg["tiled"], 1)),
        ("ffmpeg-tiled", ffmpeg_tiled(clip, tiles, os.path.join(pdir, "ff-tiled.mp4"), 1)),
    ]
    photo = inputs.photo("noisy")
    lw, lh = logo_pixels(*logo_wh, 3000)
    cases += [
        ("videowm-stamp", [binary, "stamp", photo, "-o", os.path.join(pdir, "vw-stamp.jpg"), "-c", cfg["marked"],
                           "--var", f"email={EMAIL}", "--quality", str(JPEG_QUALITY), "-y"]),
        ("ffmpeg-still", ffmpeg_still(photo, logo, (lw, lh), os.path.join(pdir, "ff-still.jpg"))),
    ]
    if shutil.which("valgrind") and shutil.which("callgrind_annotate"):
        for name, cmd in cases:
            out = os.path.join(pdir, f"callgrind.{name}.out")
            log(f"bench: callgrind {name} on {os.path.basename(photo if 'st' in name else clip)} (single-threaded codecs; slow)")
            started = time.time()
            r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                log(f"bench: callgrind {name} failed: {r.stderr[-1500:]}")
                continue
            total, by_object, by_function = parse_callgrind(out)
            groups = {}
            for obj, cost in by_object.items():
                g = group_of(obj, {"videowm", "ffmpeg"})
                groups[g] = groups.get(g, 0) + cost
            top_self = sorted(by_function.items(), key=lambda kv: -kv[1])[:10]
            names = demangle([fn or "?" for (ob, fn), _ in top_self])
            entry = {
                "command": display(cmd, args.work), "seconds": round(time.time() - started),
                "total_ir": total,
                "groups": sorted(groups.items(), key=lambda kv: -kv[1]),
                "top_self": [(names[i], os.path.basename(ob or "?"), cost) for i, ((ob, fn), cost) in enumerate(top_self)],
            }
            ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", out],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
            ann = demangle_text(ann)
            with open(os.path.join(pdir, f"callgrind.{name}.inclusive.txt"), "w") as f:
                f.write(ann)
            inclusive = []
            for line in ann.splitlines():
                m = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$", line)
                if m and "PROGRAM TOTALS" not in line:
                    inclusive.append((m.group(2), int(m.group(1).replace(",", ""))))
            entry["stages"] = {}
            for label, patterns in STAGES:
                costs = [c for fn, c in inclusive if any(p in fn for p in patterns)]
                if costs:
                    entry["stages"][label] = max(costs)
            own = sorted(((fn, cost) for (ob, fn), cost in by_function.items()
                          if ob and os.path.basename(ob) == "videowm"), key=lambda kv: -kv[1])[:10]
            own_names = demangle([fn or "?" for fn, _ in own])
            own = [(own_names[i], cost) for i, (fn, cost) in enumerate(own)]
            entry["top_own"] = own
            result["callgrind"][name] = entry
            log(f"bench: callgrind {name}: {total / 1e9:.2f} G instructions ({entry['seconds']} s)")
    else:
        result["callgrind_missing"] = "valgrind not installed (bench/setup installs it)"

    # perf: sampled CPU time, all threads, at full speed with default threading (the real run).
    perf_ok = shutil.which("perf") and subprocess.run(
        ["perf", "record", "-e", "cpu-clock", "-o", os.path.join(pdir, "perf.probe"), "true"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if perf_ok:
        full = inputs.clip(720, args.seconds)
        for name, cmd in [("videowm-marked", videowm_transcode(binary, full, os.path.join(pdir, "perf-vw.mp4"), cfg["marked"], args.threads)),
                          ("ffmpeg-marked", ffmpeg_marked(full, logo, logo_pixels(*logo_wh, 720), 720, os.path.join(pdir, "perf-ff.mp4"), args.threads))]:
            data = os.path.join(pdir, f"perf.{name}.data")
            log(f"bench: perf record {name} on {os.path.basename(full)}")
            r = subprocess.run(["perf", "record", "-e", "cpu-clock", "-F", "999", "-o", data, "--"] + cmd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                log(f"bench: perf record {name} failed: {r.stderr[-800:]}")
                continue
            entry = {"command": display(cmd, args.work)}
            for sort, limit in (("dso", 12), ("dso,sym", 60)):
                rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", sort,
                                      "--percent-limit", "0.5"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
                rows = []
                for line in rep.splitlines():
                    m = re.match(r"^\s*([\d.]+)%\s+(.*)$", line)
                    if m:
                        rows.append((float(m.group(1)), " ".join(m.group(2).split())))
                rows = rows[:limit]
                texts = demangle([r[1] for r in rows])
                entry[sort] = [(rows[i][0], texts[i]) for i in range(len(rows))]
            result["perf"][name] = entry
    else:
        result["perf_missing"] = "perf record does not work here"
    return result


def render(prof, w):
    """The report's profile section, written line by line with `w`."""
    frames = round(prof.get("seconds", 3) * 30)
    w(f"Two views of the hot path. **Callgrind** counts instructions — deterministic, so the noisy shared machine "
      f"does not blur it — on `{prof['clip']}` ({frames} frames) with `--threads 1` / `-threads 1`, so each codec "
      "runs in the calling thread and the call graph is complete; it under-weights memory-bound work (copies, page "
      "faults). **perf** samples CPU time (`cpu-clock`: this kernel exposes no hardware counters) of the full-length "
      "720p run with default threading. FFmpeg's and x264's libraries are Debian's stripped builds: inside them only "
      "exported functions have names, so the split by library is exact but their internal functions are anonymous.")
    w("")
    w(f"videowm built from {prof.get('built', '?')}.")
    w("")
    cg = prof.get("callgrind", {})
    if cg:
        names = list(cg)
        w("### Callgrind: instructions by library (self cost)")
        w("")
        w("| library | " + " | ".join(names) + " |")
        w("|---|" + "---:|" * len(names))
        groups, rest = [], {n: 0 for n in names}
        for n in names:
            for g, _ in cg[n]["groups"]:
                if g not in groups:
                    groups.append(g)
        for g in groups:
            shares = {n: dict(cg[n]["groups"]).get(g, 0) for n in names}
            if all(shares[n] / cg[n]["total_ir"] < 0.005 for n in names):
                for n in names:
                    rest[n] += shares[n]
                continue
            cells = [f"{shares[n] / 1e9:.3f} G ({shares[n] / cg[n]['total_ir'] * 100:.1f}%)" if shares[n] else "—"
                     for n in names]
            w(f"| {g} | " + " | ".join(cells) + " |")
        w("| everything else (each < 0.5%) | " + " | ".join(
            f"{rest[n] / 1e9:.3f} G ({rest[n] / cg[n]['total_ir'] * 100:.1f}%)" for n in names) + " |")
        w("| **total** | " + " | ".join(f"**{cg[n]['total_ir'] / 1e9:.3f} G**" for n in names) + " |")
        w("")
        pairs = [("videowm-plain", "ffmpeg-plain"), ("videowm-marked", "ffmpeg-marked"), ("videowm-marked", "ffmpeg-plain"),
                 ("videowm-marked", "videowm-plain"), ("ffmpeg-marked", "ffmpeg-plain"), ("videowm-tiled", "ffmpeg-tiled"),
                 ("videowm-tiled", "videowm-plain"), ("ffmpeg-tiled", "ffmpeg-plain"), ("videowm-stamp", "ffmpeg-still")]
        w("| instruction ratio | value | difference |")
        w("|---|---:|---:|")
        for a, b in pairs:
            if a in cg and b in cg:
                diff = cg[a]["total_ir"] - cg[b]["total_ir"]
                w(f"| {a} / {b} | {cg[a]['total_ir'] / cg[b]['total_ir']:.3f} | {diff / 1e6:+,.0f} M |")
        w("")
        w("In short:")
        w("")
        for n in names:
            st, tot = cg[n].get("stages", {}), cg[n]["total_ir"]
            grp = dict(cg[n]["groups"])
            def pct(x):
                return f"{x / tot * 100:.1f}%"
            parts = []
            if "encode (x264_encoder_encode)" in st:
                parts.append(f"x264 encoding {pct(st['encode (x264_encoder_encode)'])}")
            if "decode (avcodec_send_packet + receive_frame)" in st:
                parts.append(f"decoding {pct(st['decode (avcodec_send_packet + receive_frame)'])}")
            if "encode still (avcodec_send_frame)" in st:
                parts.append(f"JPEG encoding incl. conversion {pct(st['encode still (avcodec_send_frame)'])}")
            if "read still (StillImageReader.read)" in st:
                what = "reading the photo, converted to RGBA" if "stamp" in n else "reading the logo image"
                parts.append(f"{what} {pct(st['read still (StillImageReader.read)'])}")
            if "mark a frame (FrameMarker.mark)" in st:
                parts.append(f"marking frames {pct(st['mark a frame (FrameMarker.mark)'])} (writable copy "
                             f"{pct(st.get('  copy to a writable frame (av_frame_make_writable)', 0))}, compositing "
                             f"{pct(st.get('  composite (Compositor.composite)', 0))})")
            elif "  composite (Compositor.composite)" in st:
                parts.append(f"compositing incl. preparing the marks {pct(st['  composite (Compositor.composite)'])}")
            if "prepare marks once (Compositor.prepare)" in st and "stamp" not in n:
                parts.append(f"preparing the marks once {pct(st['prepare marks once (Compositor.prepare)'])}")
            if "pixel format conversion (sws_scale)" in st:
                parts.append(f"swscale conversions {pct(st['pixel format conversion (sws_scale)'])}")
            filt = grp.get("libavfilter (drawtext, overlay)", 0)
            if filt:
                parts.append(f"libavfilter (drawtext, overlay) {pct(filt)} self")
            loader = grp.get("dynamic loader", 0)
            parts.append(f"dynamic loading at start-up {pct(loader)}")
            w(f"- **{n}** ({tot / 1e9:.2f} G instructions): " + ", ".join(parts) + ".")
        w("")
        w("### Callgrind: inclusive cost of the pipeline's stages")
        w("")
        w("Instructions spent in each stage including everything it calls (stages nest; indented rows are part of the "
          f"row above). Video columns cover {frames} frames plus start-up.")
        w("")
        w("| stage | " + " | ".join(names) + " |")
        w("|---|" + "---:|" * len(names))
        for label, _ in STAGES:
            if not any(label in cg[n].get("stages", {}) for n in names):
                continue
            cells = []
            for n in names:
                c = cg[n].get("stages", {}).get(label)
                cells.append(f"{c / 1e6:,.1f} M ({c / cg[n]['total_ir'] * 100:.1f}%)" if c else "—")
            w(f"| {label.replace('  ', '&nbsp;&nbsp;')} | " + " | ".join(cells) + " |")
        w("")
        for n in names:
            if not n.startswith("videowm"):
                continue
            w(f"#### {n}: top functions by self cost")
            w("")
            w("| Ir | % | function | library |")
            w("|---:|---:|---|---|")
            for name, obj, cost in cg[n]["top_self"]:
                w(f"| {cost / 1e6:,.1f} M | {cost / cg[n]['total_ir'] * 100:.1f}% | `{clip_name(name)}` | {obj} |")
            own = cg[n].get("top_own") or []
            if own:
                w("")
                w(f"Inside videowm's own code (self cost):")
                w("")
                w("| Ir | % | function |")
                w("|---:|---:|---|")
                for name, cost in own:
                    w(f"| {cost / 1e6:,.2f} M | {cost / cg[n]['total_ir'] * 100:.2f}% | `{clip_name(name)}` |")
            w("")
        w("<details><summary>callgrind commands</summary>")
        w("")
        for n in names:
            w(f"- {n}: `valgrind --tool=callgrind {cg[n]['command']}`")
        w("")
        w("</details>")
        w("")
    elif prof.get("callgrind_missing"):
        w(prof["callgrind_missing"])
        w("")
    pf = prof.get("perf", {})
    if pf:
        w("### perf: sampled CPU time, full-length 720p clip, default threads")
        w("")
        names = list(pf)
        dsos = []
        for n in names:
            for _, d in pf[n].get("dso", []):
                if d not in dsos:
                    dsos.append(d)
        w("| library | " + " | ".join(names) + " |")
        w("|---|" + "---:|" * len(names))
        for d in dsos:
            cells = []
            for n in names:
                v = dict((dd, pct) for pct, dd in pf[n].get("dso", [])).get(d)
                cells.append(f"{v:.1f}%" if v is not None else "—")
            w(f"| {d} | " + " | ".join(cells) + " |")
        w("")
        w("Functions with real names (videowm, libc, the kernel, the loader; FFmpeg's and x264's stripped internals "
          "would be mislabelled with the nearest exported name, so they are left out):")
        w("")
        stripped = ("libx264", "libavcodec", "libavformat", "libavutil", "libavfilter", "libswscale", "libswresample")
        for n in names:
            rows = [(pct, what) for pct, what in pf[n].get("dso,sym", []) if not any(x in what for x in stripped)]
            w(f"**{n}**: " + ", ".join(f"`{clip_name(what, 90)}` {pct:.1f}%" for pct, what in rows[:10]))
            w("")
        w("<details><summary>perf commands</summary>")
        w("")
        for n in names:
            w(f"- {n}: `perf record -e cpu-clock -F 999 -- {pf[n]['command']}`")
        w("")
        w("</details>")
        w("")
    elif prof.get("perf_missing"):
        w(prof["perf_missing"])
        w("")


def clip_name(name, limit=140):
    name = name.replace("|", "\\|").replace("`", "'")
    return name if len(name) <= limit else name[:limit - 1] + "…"
