"""Paths, logging and the small helpers for running set-up commands (never timed)."""
import json
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")


def log(message):
    print(message, flush=True)


def sh(cmd, **kw):
    """Runs a command that must succeed (set-up work, never timed)."""
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if result.returncode != 0:
        sys.exit(f"bench: command failed ({result.returncode}): {shlex.join(cmd)}\n{result.stderr[-3000:]}")
    return result.stdout


def first_line(cmd):
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        return out.strip().splitlines()[0] if out.strip() else "?"
    except OSError:
        return "not installed"


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def display(cmd, work):
    """A command as the report shows it: paths relative to the work folder and the repository."""
    text = shlex.join(cmd) if isinstance(cmd, list) else cmd
    return text.replace(work + "/", "").replace(ROOT + "/", "")


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
    return path


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
