"""Jobs 12, 13 and 14: benchmarks of `videowm serve` (issue 26).

12  an uncached marked 720p segment: request to last byte, against ffmpeg decoding and encoding
    that segment's frames alone with the same x264 settings (read back from the segment's own
    x264 SEI), and against the segment's duration;
13  cached files (shared and a student's own) to 16 concurrent keep-alive clients (16 curl
    processes), against nginx sending the same files from the same folder;
14  a load run: students start staggered and play at real time (each fetches the next segment
    when its buffer falls below two segments); the most concurrent students per core with no
    stall, then twice that load: 503s or stalls allowed, no other error, no crash, memory bounded.

Python 3 standard library only (tokens are signed with hmac here, as the README shows a platform
doing). Each job returns bench/run's result structure (variants with runs, ratios, notes) plus
`figures` (values with a target and a direction) for what is not a ratio.
"""
import base64
import hashlib
import hmac
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import threading
import time
import urllib.parse

# The mark 6 s of every 30 s, on one 6-s segment of five (harness.marks.SERVE_TIMING).
from harness.marks import CRF, PRESET, SERVE_TIMING as LOAD_TIMING, STARTUP_TIMING
from harness.shell import log

NUMBERS = (12, 13, 14, 16)
HELP = ("  12 serve: an uncached marked 720p segment, request to last byte, vs ffmpeg encoding its frames alone (bench/jobs/serve.py)\n"
        "  13 serve: cached files to 16 concurrent clients vs nginx sending the same files\n"
        "  14 serve: staggered real-time players, the most students per core without a stall, then twice that load\n"
        "  16 serve start-up (issue 40): 16 students 0.5 s apart against an empty cache, a 720/360 ladder, every first\n"
        "     segment a student's own: master playlist request to first media segment, median and p95\n"
        "     (--baseline-binary adds the same run with another build, e.g. main's, to the table)")

SEGMENT = 6              # seconds (batch's default --segment)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Served:
    """A `videowm serve` process on a library of one lecture ("lecture"), on a free port."""

    def __init__(self, binary, work, clip, config, preset, crf, workers, queue=32, cache_size="20G", extra=(), lecture=None):
        self.work = work
        self.library = os.path.join(work, "library")
        folder = os.path.join(self.library, "lecture")
        os.makedirs(folder, exist_ok=True)
        video = os.path.join(folder, "lecture.mp4")
        if not os.path.exists(video):
            os.symlink(os.path.abspath(clip), video)
        with open(os.path.join(folder, "lecture.json"), "w") as f:
            # `lecture`: more keys, or None to leave one out (a ladder takes no crf: its rates are the ladder's).
            fields = dict({"video": "lecture.mp4", "config": os.path.abspath(config), "segment": SEGMENT, "preset": preset, "crf": int(crf)},
                          **(lecture or {}))
            json.dump({k: v for k, v in fields.items() if v is not None}, f)
        self.key_file = os.path.join(work, "token.key")
        if not os.path.exists(self.key_file):
            with open(self.key_file, "wb") as f:
                f.write(os.urandom(32))
        os.chmod(self.key_file, 0o600)
        self.key = open(self.key_file, "rb").read()
        self.cache = os.path.join(work, "cache")
        self.log_path = os.path.join(work, f"serve-{int(time.time() * 1000)}.log")
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [binary, "serve", self.library, "--token-key-file", self.key_file, "--listen", "127.0.0.1:0", "--cache", self.cache,
             "--cache-size", cache_size, "--workers", str(workers), "--queue", str(queue)] + list(extra),
            stdout=subprocess.DEVNULL, stderr=self.log_file)
        deadline = time.time() + 30
        self.port = None
        while time.time() < deadline and self.process.poll() is None:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", open(self.log_path).read())
            if m:
                self.port = int(m.group(1))
                break
            time.sleep(0.02)
        if not self.port:
            raise SystemExit(f"bench: videowm serve did not start:\n{open(self.log_path).read()[-2000:]}")

    def token(self, email):
        header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        claims = b64(json.dumps({"lecture": "lecture", "vars": {"email": email}, "exp": int(time.time()) + 86400}).encode())
        signature = b64(hmac.new(self.key, f"{header}.{claims}".encode(), hashlib.sha256).digest())
        return f"{header}.{claims}.{signature}"

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def metrics(self):
        c = self.connection()
        c.request("GET", "/metrics")
        text = c.getresponse().read().decode()
        c.close()
        values = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def wait_idle(self, seconds=120):
        deadline = time.time() + seconds
        while time.time() < deadline:
            m = self.metrics()
            if m.get("videowm_render_workers_busy", 0) == 0 and m.get("videowm_render_queue_depth", 0) == 0:
                return
            time.sleep(0.05)

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_kb(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()
        return self.process.returncode


def get(connection, path):
    """One GET on a kept-alive connection: (status, body, seconds from request to last byte, headers)."""
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    return response.status, body, time.perf_counter() - started, dict(response.getheaders())


def playlist_uris(text):
    """(init URI, [(segment URI, duration)]) of a media playlist."""
    init, segments, duration = None, [], None
    for line in text.splitlines():
        m = re.match(r'#EXT-X-MAP:URI="([^"]+)"', line)
        if m:
            init = m.group(1)
        elif line.startswith("#EXTINF:"):
            duration = float(line[8:].split(",")[0])
        elif line and not line.startswith("#"):
            segments.append((line, duration))
    return init, segments


def x264_settings(segment_bytes):
    """The x264 options the segment's SEI records ("options: cabac=1 ref=3 ...") as a dict."""
    m = re.search(rb"options: ([ -~]+)", segment_bytes)
    return dict(item.split("=", 1) for item in m.group(1).decode().split() if "=" in item) if m else {}


def ffmpeg_same_segment(clip, start, duration, preset, crf, options, out):
    """ffmpeg decoding the segment's GOPs and encoding its frames alone with the segment's own x264 settings."""
    params = ["stitchable=1"] + [f"{k}={options[k]}" for k in ("keyint", "bframes") if k in options]
    if "keyint_min" in options:
        params.append(f"min-keyint={options['keyint_min']}")
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", f"{start:.6f}", "-i", clip, "-t", f"{duration:.6f}",
           "-map", "0:v:0", "-an", "-c:v", "libx264", "-preset", preset, "-crf", str(crf), "-forced-idr", "1",
           "-x264-params", ":".join(params), "-f", "mp4", out]
    return cmd


def job_latency(args, binary, clip, config, preset, crf, runner_log):
    """Job 12: an uncached marked segment, request to last byte, against ffmpeg encoding its frames alone."""
    work = os.path.join(args.work, "serve-latency")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # One worker: the request's render has the machine to itself (a render ahead queues behind it).
    served = Served(binary, work, clip, config, preset, crf, workers=1)
    runs = {"serve": [], "ffmpeg": []}
    options_seen = None
    try:
        for rep in range(args.reps):
            email = f"latency{rep}@example.com"
            c = served.connection()
            status, body, _, _ = get(c, f"/v1/lecture/master.m3u8?token={served.token(email)}")
            assert status == 200, status
            _, segments = playlist_uris(body.decode())
            own = [(k, uri, d) for k, (uri, d) in enumerate(segments) if "/own/" in uri]
            # The first own segment is rendered ahead at the playlist; the second is asked for cold.
            served.wait_idle()
            k, uri, duration = own[1]
            start_cpu, load = served.cpu_seconds(), loadavg()
            status, segment, seconds, _ = get(c, uri)
            assert status == 200, status
            cpu = served.cpu_seconds() - start_cpu
            c.close()
            options_seen = x264_settings(segment)
            runs["serve"].append({"wall": seconds, "cpu": cpu, "rss_kb": served.peak_rss_kb(), "minor_faults": 0, "load": load})
            start = sum(d for _, d in segments[:k])  # the plan's cut, from the playlist's durations
            out = os.path.join(work, "ffmpeg-segment.mp4")
            m = runner_log(ffmpeg_same_segment(clip, start, duration, preset, crf, options_seen, out), f"12-ffmpeg-rep{rep + 1}")
            runs["ffmpeg"].append(m)
            print(f"  [12-serve] rep {rep + 1}/{args.reps} segment {k} ({duration:.2f} s): serve {seconds:.3f} s, "
                  f"ffmpeg {m['wall']:.3f} s  (load {load:.1f})", flush=True)
        served.wait_idle()
    finally:
        served.stop()
    seg_duration = duration
    return {
        "number": 12, "title": f"serve: an uncached marked 720p segment ({SEGMENT} s), request to last byte",
        "reps": args.reps,
        "variants": [
            {"key": "serve", "label": "videowm serve, a student's marked segment, first request (1 worker)",
             "command": "GET /v1/lecture/REV/own/STUDENT/source/K.m4s", "runs": runs["serve"], "check": None},
            {"key": "ffmpeg", "label": "ffmpeg -ss START -t DUR: that segment's frames decoded and encoded alone, same x264 settings",
             "command": " ".join(ffmpeg_same_segment("clip.mp4", 0, seg_duration, preset, crf, options_seen or {}, "out.mp4")),
             "runs": runs["ffmpeg"], "check": None},
        ],
        "ratios": [{"num": "serve", "den": "ffmpeg", "what": "serve latency / ffmpeg encoding the segment alone", "target": 1.15, "kind": "wall"}],
        "figures": [{"what": "serve latency / segment duration", "value": statistics.median(r["wall"] for r in runs["serve"]) / seg_duration,
                     "target": 0.5, "at_most": True}],
        "notes": [f"x264 settings read from the served segment's SEI: {' '.join(f'{k}={v}' for k, v in sorted((options_seen or {}).items()) if k in ('bitrate', 'crf', 'keyint', 'keyint_min', 'bframes', 'threads', 'subme', 'ref', 'me'))}.",
                  "The student's playlist is fetched first (their row bound, the lecture indexed) and the render ahead of their first "
                  "own segment is let finish; the second own segment is then asked for, uncached: the time is the render "
                  "(seek, decode its GOPs, mark, encode, package, write to the cache) plus sending it."],
    }


def tree_cpu_seconds(pid):
    """User + system seconds of a process and its children (nginx's master and workers)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in os.listdir(f"/proc/{p}/task"):
                todo += [int(c) for c in open(f"/proc/{p}/task/{task}/children").read().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def curl_parallel(urls, clients, out_dir):
    """Fetches every URL with `clients` concurrent clients: as many curl processes, each on one
    keep-alive connection through its share of the list (one curl --parallel process would be
    the bottleneck, the same for both servers). Returns the wall seconds."""
    lists = []
    for n in range(clients):
        path = os.path.join(out_dir, f"urls-{n}.curl")
        with open(path, "w") as f:
            for url in urls[n::clients]:
                f.write(f'url = "{url}"\noutput = "/dev/null"\n')
        lists.append(path)
    started = time.perf_counter()
    processes = [subprocess.Popen(["curl", "-s", "--fail", "-K", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for path in lists]
    failed = [p.stderr.read().decode()[-300:] for p in processes if p.wait() != 0]
    wall = time.perf_counter() - started
    if failed:
        raise SystemExit(f"bench: {len(failed)} curl clients failed: {failed[0]}")
    return wall


class StaticNginx:
    """nginx serving a folder under /v1/ (the cache's files by the same paths), sendfile on, keep-alive."""

    def __init__(self, work, folder):
        self.prefix = os.path.join(work, "nginx")
        os.makedirs(os.path.join(self.prefix, "logs"), exist_ok=True)
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        temp = "".join(f"    {k}_temp_path {self.prefix}/{k}-temp;\n" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        conf = (("user root;\n" if os.geteuid() == 0 else "") +
                f"worker_processes 1;\npid {self.prefix}/nginx.pid;\nerror_log {self.prefix}/logs/error.log warn;\n"
                "events { worker_connections 1024; }\n"
                f"http {{\n{temp}    access_log off;\n    sendfile on;\n    tcp_nopush on;\n    keepalive_requests 100000;\n"
                f"    server {{\n        listen 127.0.0.1:{self.port};\n        location /v1/ {{ alias {folder}/; }}\n    }}\n}}\n")
        with open(os.path.join(self.prefix, "nginx.conf"), "w") as f:
            f.write(conf)
        self.process = subprocess.Popen(["/usr/sbin/nginx", "-p", self.prefix, "-c", os.path.join(self.prefix, "nginx.conf"),
                                         "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


def job_throughput(args, binary, clip, config, preset, crf, runner_log):
    """Job 13: cached files to 16 concurrent clients, serve against nginx sending the same files."""
    work = os.path.join(args.work, "serve-throughput")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    served = Served(binary, work, clip, config, preset, crf, workers=os.cpu_count() or 1)
    clients, rounds = 16, (8 if args.quick else 48)
    try:
        # One student's whole presentation made and cached (shared and own files), then fetched by 16 clients.
        token = served.token("throughput@example.com")
        c = served.connection()
        status, body, _, _ = get(c, f"/v1/lecture/master.m3u8?token={token}")
        init, segments = playlist_uris(body.decode())
        paths = [init] + [uri for uri, _ in segments]
        total = 0
        for path in paths:
            status, data, _, _ = get(c, path)
            assert status == 200, (path, status)
            total += len(data)
        c.close()
        served.wait_idle()
        nginx = StaticNginx(work, served.cache)
        base_serve = f"http://127.0.0.1:{served.port}"
        base_nginx = f"http://127.0.0.1:{nginx.port}"
        serve_urls = [base_serve + p for p in paths] * rounds
        nginx_urls = [base_nginx + urllib.parse.urlsplit(p).path for p in paths] * rounds
        bytes_moved = total * rounds
        runs = {"serve": [], "nginx": []}
        try:
            for rep in range(args.reps):
                for key, urls in ([("serve", serve_urls), ("nginx", nginx_urls)] if rep % 2 == 0 else [("nginx", nginx_urls), ("serve", serve_urls)]):
                    load = loadavg()
                    pid = served.process.pid if key == "serve" else nginx.process.pid
                    cpu0 = tree_cpu_seconds(pid)
                    wall = curl_parallel(urls, clients, work)
                    runs[key].append({"wall": wall, "cpu": tree_cpu_seconds(pid) - cpu0,
                                      "rss_kb": served.peak_rss_kb() if key == "serve" else 0, "minor_faults": 0, "load": load})
                    print(f"  [13-throughput] rep {rep + 1}/{args.reps} {key:<6} {wall:.3f} s for {bytes_moved / 1e6:.0f} MB "
                          f"({bytes_moved / wall / 1e9 * 8:.2f} Gb/s)  (load {load:.1f})", flush=True)
        finally:
            nginx.stop()
    finally:
        served.stop()
    serve_wall = statistics.median(r["wall"] for r in runs["serve"])
    nginx_wall = statistics.median(r["wall"] for r in runs["nginx"])
    return {
        "number": 13, "title": f"serve: cached files to {clients} concurrent clients, against nginx",
        "reps": args.reps,
        "variants": [
            {"key": "serve", "label": f"videowm serve: {len(paths)} files (init, shared, own) × {rounds}, every request authorised",
             "command": f"{clients} curl processes at once, each on one keep-alive connection, {len(serve_urls)} URLs in all", "runs": runs["serve"], "check": None},
            {"key": "nginx", "label": "nginx (sendfile, keep-alive) serving the same cached files from the same folder",
             "command": f"the same {clients} curl clients over the same paths", "runs": runs["nginx"], "check": None},
        ],
        # Throughput ≥ 0.8 × nginx's is time ≤ 1.25 × nginx's for the same bytes.
        "ratios": [{"num": "serve", "den": "nginx", "what": "serve time / nginx time for the same files (≤ 1.25: throughput ≥ 0.8 × nginx's)",
                    "target": 1.25, "kind": "wall"}],
        "figures": [{"what": "serve throughput / nginx throughput", "value": nginx_wall / serve_wall, "target": 0.8, "at_most": False}],
        "notes": [f"{bytes_moved / 1e6:.0f} MB per rep: serve {bytes_moved / serve_wall / 1e9 * 8:.2f} Gb/s, "
                  f"nginx {bytes_moved / nginx_wall / 1e9 * 8:.2f} Gb/s (medians)."],
    }


class Player:
    """A student playing at real time: the playlist, the init, then segments in order; the next one
    fetched whenever less than two segments are buffered ahead of the playhead. A stall is the
    playhead reaching the end of what is buffered before the end of the video."""

    def __init__(self, served, email, prepare_lead=None):
        self.served, self.email = served, email
        self.stalls, self.stalled_seconds, self.refusals, self.errors = 0, 0.0, 0, []
        self.latencies = []
        self.finished = False
        # Seconds from asking for the playback URL to the first media segment received (issue 40).
        self.startup = None
        # When set, the platform sends `prepare` this many seconds before the player asks for the playlist.
        self.prepare_lead = prepare_lead

    def run(self):
        try:
            self._play()
        except Exception as e:  # a connection reset, a timeout: an error of the server
            self.errors.append(f"{type(e).__name__}: {e}")

    def _fetch(self, connection, path):
        while True:
            status, body, seconds, headers = get(connection, path)
            if status == 503:
                self.refusals += 1
                time.sleep(float(headers.get("Retry-After", "1")))
                continue
            if status != 200:
                raise RuntimeError(f"{path.split('?')[0]}: HTTP {status}")
            self.latencies.append(seconds)
            return body

    def _play(self):
        c = self.served.connection()
        token = self.served.token(self.email)
        if self.prepare_lead is not None:
            status, _, _, _ = get(c, f"/v1/lecture/prepare?token={token}")
            if status != 204:
                raise RuntimeError(f"prepare: HTTP {status}")
            time.sleep(self.prepare_lead)
        asked = time.perf_counter()
        text = self._fetch(c, f"/v1/lecture/master.m3u8?token={token}").decode()
        if "#EXT-X-STREAM-INF:" in text:  # a multivariant playlist: play the first variant listed, as players start
            variant = next(line for line in text.splitlines() if line and not line.startswith("#"))
            text = self._fetch(c, variant).decode()
        init, segments = playlist_uris(text)
        self._fetch(c, init)
        target = 2 * max(d for _, d in segments)
        buffered, k = 0.0, 0
        started = None  # wall time at which the playhead was at 0, shifted by every stall
        total = sum(d for _, d in segments)
        while k < len(segments):
            if started is not None:
                playhead = time.perf_counter() - started
                if playhead >= buffered:  # ran dry while fetching: a stall; playback resumes from here
                    self.stalls += 1
                    self.stalled_seconds += playhead - buffered
                    started += playhead - buffered
                    playhead = buffered
                if buffered - playhead >= target:
                    time.sleep(min(buffered - playhead - target + 0.01, 1.0))
                    continue
            uri, duration = segments[k]
            self._fetch(c, uri)
            if self.startup is None:
                self.startup = time.perf_counter() - asked
            buffered += duration
            k += 1
            if started is None and buffered >= target:
                started = time.perf_counter()  # playback starts with two segments buffered
        if started is not None:
            remaining = total - (time.perf_counter() - started)
            if remaining > 0:
                time.sleep(remaining)
        self.finished = True
        c.close()


def load_run(binary, work, clip, config, preset, crf, students, stagger, workers, label):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    served = Served(binary, work, clip, config, preset, crf, workers=workers)
    # The lecture indexed and the shared files made by a first viewer, as on a server in service.
    warm = Player(served, "warm@example.com")
    c = served.connection()
    text = warm._fetch(c, f"/v1/lecture/master.m3u8?token={served.token('warm@example.com')}").decode()
    init, segments = playlist_uris(text)
    for uri in [init] + [u for u, _ in segments if "/shared/" in u]:
        warm._fetch(c, uri)
    c.close()
    served.wait_idle()
    players = [Player(served, f"{label}-{n}@example.com") for n in range(students)]
    threads = []
    cpu0, started = served.cpu_seconds(), time.perf_counter()
    rss_samples = []
    for p in players:
        t = threading.Thread(target=p.run)
        t.start()
        threads.append(t)
        time.sleep(stagger)
    while any(t.is_alive() for t in threads):
        if served.alive():
            rss_samples.append(served.peak_rss_kb())
        time.sleep(0.5)
    wall = time.perf_counter() - started
    alive = served.alive()
    peak = served.peak_rss_kb() if alive else (max(rss_samples) if rss_samples else 0)
    cpu = served.cpu_seconds() - cpu0 if alive else float("nan")
    metrics = served.metrics() if alive else {}
    status = served.stop()
    latencies = sorted(x for p in players for x in p.latencies)
    return {
        "students": students, "wall": wall, "cpu": cpu, "rss_kb": peak, "alive": alive, "exit": status,
        "stalls": sum(p.stalls for p in players), "stalled_players": sum(1 for p in players if p.stalls),
        "stalled_seconds": sum(p.stalled_seconds for p in players), "refusals": sum(p.refusals for p in players),
        "errors": [e for p in players for e in p.errors], "finished": sum(1 for p in players if p.finished),
        "p50": latencies[len(latencies) // 2] if latencies else float("nan"),
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan"),
        "renders": metrics.get('videowm_renders_total{kind="student"}', 0),
    }


def job_load(args, binary, clip, config, preset, crf, runner_log):
    """Job 14: staggered real-time players; the most concurrent students per core with no stall, then twice that."""
    cores = os.cpu_count() or 1
    work = os.path.join(args.work, "serve-load")
    duration = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", clip],
                                    capture_output=True, text=True).stdout.strip())
    levels = [1, 2] if args.quick else [8, 12, 16, 24]
    results, sustained = [], None
    for per_core in levels:
        students = per_core * cores
        # Everyone is playing at once for most of the run: the last starts a third of the way in.
        stagger = duration / 3 / students
        r = load_run(binary, work, clip, config, preset, crf, students, stagger, cores, f"p{per_core}")
        r["per_core"] = per_core
        results.append(r)
        print(f"  [14-load] {students} students ({per_core}/core): {r['stalls']} stalls ({r['stalled_players']} players, "
              f"{r['stalled_seconds']:.1f} s), {r['refusals']} 503s, {len(r['errors'])} errors, peak RSS {r['rss_kb'] / 1024:.0f} MB, "
              f"p50 {r['p50']:.3f} s p99 {r['p99']:.3f} s", flush=True)
        if r["stalls"] or r["errors"] or not r["alive"]:
            break
        sustained = per_core
    double = 2 * (sustained or levels[0])
    over = load_run(binary, work, clip, config, preset, crf, double * cores, duration / 3 / (double * cores), cores, f"x2-{double}")
    over["per_core"] = double
    print(f"  [14-load] twice: {over['students']} students: {over['stalls']} stalls, {over['refusals']} 503s, "
          f"{len(over['errors'])} errors, alive {over['alive']}, peak RSS {over['rss_kb'] / 1024:.0f} MB", flush=True)
    rows = [f"| {r['students']} ({r['per_core']}/core) | {r['finished']}/{r['students']} | {r['stalls']} ({r['stalled_seconds']:.1f} s) | "
            f"{r['refusals']} | {len(r['errors'])} | {r['p50']:.3f} / {r['p99']:.3f} | {r['cpu']:.0f} | {r['rss_kb'] / 1024:.0f} | "
            f"{'yes' if r['alive'] else '**no**'} |" for r in results + [over]]
    table = ["| students | played to the end | stalls (time) | 503s | other errors | latency p50 / p99 (s) | server CPU (s) | peak RSS (MB) | alive |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"] + rows
    return {
        "number": 14, "title": f"serve: staggered real-time players, 720p, the mark 6 s of every 30 s, {cores} cores",
        "reps": 1, "variants": [], "ratios": [],
        "figures": [
            {"what": "concurrent students per core without a stall", "value": float(sustained or 0), "target": 8, "at_most": False},
            {"what": f"twice that load ({over['students']} students): errors other than 503", "value": float(len(over["errors"]) + (0 if over["alive"] else 1)),
             "target": 0, "at_most": True},
        ],
        "table": table,
        "notes": [f"Lecture: the {duration:.0f}-s clip, {SEGMENT}-s segments, the mark at {LOAD_TIMING['start']} s for 6 s of every 30 s "
                  "(one segment in five a student's own: 20 % re-encoded per student), x264 "
                  f"`{preset}` CRF {crf}; `--workers {cores}`. Each student's player starts when the previous one has played "
                  "a third of the video divided by the number of students, fetches on one keep-alive connection, starts playing "
                  "with two segments buffered and fetches the next whenever less than two are ahead; a 503 waits its Retry-After.",
                  f"Memory: peak RSS of the server at twice the load {over['rss_kb'] / 1024:.0f} MB "
                  f"(at {results[-1]['students']} students: {results[-1]['rss_kb'] / 1024:.0f} MB)."]
                 + ([f"Errors at twice the load: {sorted(set(over['errors']))[:5]}"] if over["errors"] else []),
    }


STARTUP_LADDER = "720,360"


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))] if ordered else float("nan")


def startup_run(binary, work, clip, config, preset, crf, students, stagger, workers, prepare_lead=None):
    """A class arriving: `students` players start `stagger` s apart against a fresh server and an empty cache."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    served = Served(binary, work, clip, config, preset, crf, workers=workers, lecture={"ladder": STARTUP_LADDER, "crf": None})
    players = [Player(served, f"start-{n}@example.com", prepare_lead) for n in range(students)]
    threads = []
    for p in players:
        t = threading.Thread(target=p.run)
        t.start()
        threads.append(t)
        time.sleep(stagger)
    for t in threads:
        t.join()
    alive = served.alive()
    served.stop()
    startups = [p.startup for p in players if p.startup is not None]
    return {"students": students, "alive": alive, "startups": startups,
            "median": statistics.median(startups) if startups else float("nan"), "p95": percentile(startups, 0.95),
            "max": max(startups) if startups else float("nan"),
            "stalls": sum(p.stalls for p in players), "refusals": sum(p.refusals for p in players),
            "errors": [e for p in players for e in p.errors], "finished": sum(1 for p in players if p.finished)}


def job_startup(args, binary, clip, config, preset, crf, runner_log):
    """Job 16: start-up as a class meets it: 16 students 0.5 s apart, master playlist request to first
    media segment, a fresh server and an empty cache; this build (with and without a platform's
    `prepare`) and, given --baseline-binary, the same run with that build."""
    cores = os.cpu_count() or 1
    students, stagger = (4, 0.5) if args.quick else (16, 0.5)
    runs = []
    candidates = [("this build", binary, None), ("this build, `prepare` 1 s before play", binary, 1.0)]
    if getattr(args, "baseline_binary", None):
        candidates.insert(0, ("baseline (--baseline-binary)", os.path.abspath(args.baseline_binary), None))
    # Rows alternate within each rep, so a shared machine's changing load falls on every row alike.
    reps = 1 if args.quick else 2
    for rep in range(1, reps + 1):
        for label, build, lead in candidates:
            r = startup_run(build, os.path.join(args.work, "serve-startup"), clip, config, preset, crf, students, stagger, cores, lead)
            r["label"], r["rep"] = label, rep
            runs.append(r)
            print(f"  [16-startup] {label}, rep {rep}: median {r['median']:.2f} s, p95 {r['p95']:.2f} s, max {r['max']:.2f} s, "
                  f"{r['stalls']} stalls, {r['refusals']} 503s, {len(r['errors'])} errors {sorted(set(r['errors']))[:3]}", flush=True)
    table = ["| server | rep | start-up median (s) | p95 (s) | max (s) | stalls | 503s | errors | played to the end |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    table += [f"| {r['label']} | {r['rep']} | {r['median']:.2f} | {r['p95']:.2f} | {r['max']:.2f} | {r['stalls']} | {r['refusals']} | "
              f"{len(r['errors'])} | {r['finished']}/{r['students']} |" for r in runs]
    mine_runs = [r for r in runs if r["label"] == "this build"]
    mine = {"median": statistics.median(r["median"] for r in mine_runs), "p95": statistics.median(r["p95"] for r in mine_runs),
            "stalls": sum(r["stalls"] for r in mine_runs)}
    return {
        "number": 16, "title": f"serve: start-up of {students} students arriving {stagger} s apart, 720p lecture, ladder {STARTUP_LADDER}, {cores} cores",
        "reps": reps, "variants": [], "ratios": [],
        "figures": [
            {"what": "start-up median (master playlist request to first media segment), s (median of the reps)", "value": mine["median"], "target": 1.0, "at_most": True},
            {"what": "start-up 95th percentile, s", "value": mine["p95"], "target": 2.5, "at_most": True},
            {"what": "stalls", "value": float(mine["stalls"]), "target": 0, "at_most": True},
        ],
        "table": table,
        "notes": [f"Lecture: the 24-s clip, {SEGMENT}-s segments, ladder {STARTUP_LADDER}, the e-mail and logo from 0 s for 4 s of every 24 s "
                  f"(every student's first segment is their own), x264 `{preset}` at the ladder's rates; `--workers {cores}`; a fresh server and an "
                  "empty cache for each row. Each player plays the first variant the multivariant playlist lists at real time (the next "
                  "segment whenever less than two are buffered); start-up is from asking for the playback URL to the last byte of the "
                  "first media segment. The `prepare` row: the platform sends `prepare` when the lecture page opens, 1 s before the player "
                  "asks (the time in between is not counted)."],
    }


def run(ctx):
    """Runs the serve jobs `--jobs` asks for; yields each one's key and result as it ends."""
    served = [(12, "12-serve-latency", job_latency), (13, "13-serve-throughput", job_throughput),
              (14, "14-serve-load", job_load), (16, "16-serve-startup", job_startup)]
    for number, key, job in served:
        if not ctx.wants(number):
            continue
        # Two marked segments (12-18 s, 42-48 s) even in a quick run; job 16 a 24-s lecture.
        clip = ctx.inputs.clip(720, 24) if number == 16 else ctx.inputs.clip(720, 48 if ctx.args.quick else 60)
        log(f"bench: job {key}")
        config = ctx.cfg["startup"] if number == 16 else ctx.cfg["served"]
        yield key, job(ctx.args, ctx.binary, clip, config, PRESET, CRF, ctx.timed)
