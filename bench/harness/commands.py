"""The commands the jobs time: videowm's and the ffmpeg commands several jobs compare it with."""
from .marks import CRF, EMAIL, INSET, LOGO_OPACITY, MJPEG_QSCALE, PRESET, drawtext_filter


def threads_in(threads):
    return ["-threads", str(threads)] if threads is not None else []


def threads_out(threads):
    return ["-threads", str(threads)] if threads is not None else []


def videowm_transcode(binary, inp, out, config, threads, email=EMAIL, render="full"):
    # --render full unless a job measures smart rendering: the other jobs compare full re-encodes
    # (auto would copy the never-shown layer's video outright).
    cmd = [binary, "transcode", inp, out, "-c", config, "--var", f"email={email}",
           "--crf", CRF, "--preset", PRESET, "--render", render, "--progress", "none", "-y"]
    return cmd + (["--threads", str(threads)] if threads is not None else [])


def ffmpeg_plain(inp, out, threads):
    return (["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y"] + threads_in(threads)
            + ["-i", inp, "-c:v", "libx264", "-preset", PRESET, "-crf", CRF, "-c:a", "copy"]
            + threads_out(threads) + ["-movflags", "+faststart", out])


def ffmpeg_marked(inp, logo, logo_wh, short_side, out, threads):
    """ffmpeg drawing the moving e-mail (drawtext) and the corner logo (overlay), as jobs 2 and 6 compare."""
    inset = round(INSET * short_side, 2)
    graph = (f"[0:v]{drawtext_filter(short_side, EMAIL)}[t];"
             f"[1:v]scale={logo_wh[0]}:{logo_wh[1]},format=rgba,colorchannelmixer=aa={LOGO_OPACITY}[l];"
             f"[t][l]overlay=x=W-w-{inset}:y={inset}[v]")
    return (["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y"] + threads_in(threads)
            + ["-i", inp, "-i", logo, "-filter_complex", graph, "-map", "[v]", "-map", "0:a",
               "-c:v", "libx264", "-preset", PRESET, "-crf", CRF, "-c:a", "copy"]
            + threads_out(threads) + ["-movflags", "+faststart", out])


def ffmpeg_tiled(inp, tile_png, out, threads):
    return (["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y"] + threads_in(threads)
            + ["-i", inp, "-i", tile_png, "-filter_complex", "[0:v][1:v]overlay=0:0[v]", "-map", "[v]", "-map", "0:a",
               "-c:v", "libx264", "-preset", PRESET, "-crf", CRF, "-c:a", "copy"]
            + threads_out(threads) + ["-movflags", "+faststart", out])


def ffmpeg_still(photo, logo, logo_wh, out, short_side=3000):
    inset = round(INSET * short_side)
    graph = (f"[0:v]{drawtext_filter(short_side, EMAIL, still=True)}[t];"
             f"[1:v]scale={logo_wh[0]}:{logo_wh[1]},format=rgba,colorchannelmixer=aa={LOGO_OPACITY}[l];"
             f"[t][l]overlay=x=W-w-{inset}:y={inset}")
    return ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y", "-i", photo, "-i", logo,
            "-filter_complex", graph, "-frames:v", "1", "-q:v", str(MJPEG_QSCALE), "-update", "1", out]
