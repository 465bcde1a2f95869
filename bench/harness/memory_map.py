"""What a process's peak resident memory is made of: its anonymous memory (pictures, codec
buffers, heap) against the pages of the program's own files (its libraries' code and data).

`peak_rss` samples /proc/PID/smaps while the command runs and keeps its largest sample, so a
difference in peak RSS between two programs doing the same work can be placed: in the work's
buffers, or in the code each program maps. Linux only; Python 3 standard library.
"""
import collections
import os
import re
import subprocess
import time

MAPPING = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")


def sample(pid):
    """Resident kB per mapping name ("[anonymous]", "[heap]", "[stack]", a file's base name), or None once gone."""
    try:
        with open(f"/proc/{pid}/smaps") as f:
            text = f.read()
    except OSError:
        return None
    resident = collections.Counter()
    name = None
    for line in text.splitlines():
        if MAPPING.match(line):
            parts = line.split(None, 5)
            name = os.path.basename(parts[5].strip()) if len(parts) > 5 and parts[5].strip() else "[anonymous]"
        elif line.startswith("Rss:") and name is not None:
            resident[name] += int(line.split()[1])
    return resident


def peak_rss(cmd, interval=0.02):
    """Runs `cmd` (output discarded) and returns its largest sample: total, anonymous and file-backed kB, and the sample."""
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    largest = collections.Counter()
    while process.poll() is None:
        resident = sample(process.pid)
        if resident and sum(resident.values()) > sum(largest.values()):
            largest = resident
        time.sleep(interval)
    anonymous = sum(kb for name, kb in largest.items() if name.startswith("["))
    return {"total": sum(largest.values()), "anonymous": anonymous, "files": sum(largest.values()) - anonymous,
            "by_name": largest, "exit": process.returncode}


def note(ours, theirs, ours_label="videowm", theirs_label="ffmpeg", top=5):
    """One Markdown paragraph comparing two `peak_rss` results by kind."""
    def mb(kb):
        return f"{kb / 1024:.1f}"

    def largest_files(result):
        files = [(name, kb) for name, kb in result["by_name"].items() if not name.startswith("[")]
        files.sort(key=lambda item: -item[1])
        return ", ".join(f"{name} {mb(kb)}" for name, kb in files[:top])

    return (f"Peak RSS by kind (one more run of each, /proc/PID/smaps sampled every 20 ms, its largest sample): "
            f"{ours_label} {mb(ours['total'])} MB = {mb(ours['anonymous'])} MB anonymous (pictures, codec buffers, heap) + "
            f"{mb(ours['files'])} MB of its files' pages ({largest_files(ours)} MB); {theirs_label} {mb(theirs['total'])} MB = "
            f"{mb(theirs['anonymous'])} + {mb(theirs['files'])} MB ({largest_files(theirs)} MB). Difference: anonymous "
            f"{(ours['anonymous'] - theirs['anonymous']) / 1024:+.1f} MB, files {(ours['files'] - theirs['files']) / 1024:+.1f} MB.")
