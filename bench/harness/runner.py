"""Timing: each command under GNU time (wall, CPU, peak RSS), a job's variants run in rotation."""
import datetime
import os
import shlex
import subprocess
import time

from .shell import display, loadavg, log, remove


class Runner:
    def __init__(self, args):
        self.args = args
        self.logs = os.path.join(args.work, "logs")
        os.makedirs(self.logs, exist_ok=True)

    def run(self, cmd, name, before=None):
        """Runs cmd under GNU time; returns wall (s), user+sys CPU (s), peak RSS (kB), load average."""
        if before:
            before()
        timing = os.path.join(self.logs, name + ".time")
        logfile = os.path.join(self.logs, name + ".log")
        load = loadavg()
        with open(logfile, "w") as out:
            out.write("$ " + shlex.join(cmd) + "\n")
            out.flush()
            start = time.perf_counter()
            prefix = ["nice", "-n", str(self.args.nice)] if self.args.nice else []
            rc = subprocess.run(prefix + ["/usr/bin/time", "-f", "%e %U %S %M %R", "-o", timing] + cmd,
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
            wall = time.perf_counter() - start
        if rc != 0:
            tail = open(logfile, errors="replace").read()[-2000:]
            raise SystemExit(f"bench: {name} failed with exit {rc}; log {logfile}:\n{tail}")
        fields = open(timing).read().split()[-5:]
        return {"wall": wall, "cpu": float(fields[1]) + float(fields[2]), "rss_kb": int(fields[3]),
                "minor_faults": int(fields[4]), "load": load}


class Job:
    """Variants of one comparison, run in rotation (ABC, BCA, CAB, ...) so drift hits each alike."""

    def __init__(self, key, number, title, reps):
        self.key, self.number, self.title, self.reps = key, number, title, reps
        self.variants = []  # dicts: key, label, cmd, out, check, before
        self.ratios = []    # dicts: num, den, target, what, kind ("wall", "cpu" or "rss")
        self.notes = []
        self.afterwards = []  # callables run once after the reps, each returning a note (or None)

    def add(self, key, label, cmd, out=None, check=None, before=None, display_cmd=None):
        self.variants.append({"key": key, "label": label, "cmd": cmd, "out": out, "check": check,
                              "before": before, "display": display_cmd or cmd})

    def ratio(self, num, den, what, target=None, kind="wall"):
        self.ratios.append({"num": num, "den": den, "what": what, "target": target, "kind": kind})

    def execute(self, runner, work):
        runs = {v["key"]: [] for v in self.variants}
        checks = {}
        started = datetime.datetime.now().isoformat(timespec="seconds")
        n = len(self.variants)
        for rep in range(self.reps):
            order = [self.variants[(i + rep) % n] for i in range(n)]
            for v in order:
                if v["out"]:
                    remove(v["out"])
                m = runner.run(v["cmd"], f"{self.key}-{v['key']}-rep{rep + 1}", before=v["before"])
                runs[v["key"]].append(m)
                log(f"  [{self.key}] rep {rep + 1}/{self.reps} {v['key']:<22} {m['wall']:7.2f} s wall "
                    f"{m['cpu']:7.2f} s cpu {m['rss_kb'] / 1024:7.1f} MB  (load {m['load']:.1f})")
                if rep == 0 and v["check"]:
                    checks[v["key"]] = v["check"]()
        for afterwards in self.afterwards:
            extra = afterwards()
            if extra:
                self.notes.append(extra)
        return {
            "number": self.number, "title": self.title, "started": started, "reps": self.reps,
            "variants": [{"key": v["key"], "label": v["label"], "command": display(v["display"], work),
                          "runs": runs[v["key"]], "check": checks.get(v["key"])} for v in self.variants],
            "ratios": self.ratios, "notes": self.notes,
        }
