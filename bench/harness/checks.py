"""Output checks, run on each variant's first rep: the outputs must be the same job done."""
import hashlib
import json
import os

from .shell import sh


def probe_video(path):
    out = sh(["ffprobe", "-v", "error", "-count_packets", "-show_entries",
              "stream=codec_type,codec_name,width,height,nb_read_packets", "-of", "json", path])
    streams = json.loads(out)["streams"]
    video = [s for s in streams if s["codec_type"] == "video"]
    audio = [s for s in streams if s["codec_type"] == "audio"]
    return video[0] if video else None, audio[0] if audio else None


def packet_digest(path):
    sizes = sh(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", path])
    return hashlib.sha1(sizes.encode()).hexdigest()


def video_check(inp, out):
    def check():
        v_in, a_in = probe_video(inp)
        v, a = probe_video(out)
        facts = [f"{v['codec_name']} {v['width']}x{v['height']}, {v['nb_read_packets']} frames",
                 f"audio {a['codec_name']}" if a else "no audio", f"{os.path.getsize(out) / 1e6:.1f} MB"]
        if v["nb_read_packets"] != v_in["nb_read_packets"]:
            facts.append(f"FRAME COUNT DIFFERS from input ({v_in['nb_read_packets']})")
        if packet_digest(out) == packet_digest(inp):
            facts.append("video stream-copied (not re-encoded)")
        return "; ".join(facts)
    return check


def still_check(out):
    def check():
        v, _ = probe_video(out)
        return f"{v['codec_name']} {v['width']}x{v['height']}, {os.path.getsize(out) / 1e6:.2f} MB"
    return check


def dir_check(directory, count):
    def check():
        files = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
        size = sum(os.path.getsize(os.path.join(directory, f)) for f in files)
        ok = "" if len(files) == count else f" — EXPECTED {count}"
        return f"{len(files)} files{ok}, {size / 1e6:.1f} MB"
    return check
