"""The marks both sides draw: videowm's configs, and the sizes ffmpeg and ImageMagick need to draw the same."""
import os
import shutil

from .shell import write_json

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
# DejaVu Sans: OS/2 sCapHeight 1493 / unitsPerEm 2048. videowm's text `size` is the cap height;
# drawtext's fontsize and ImageMagick's pointsize (at 72 dpi) are the em size.
DEJAVU_CAP_HEIGHT_PER_EM = 1493 / 2048
EMAIL = "ada.lovelace@example.com"
CRF, PRESET = "23", "veryfast"
# videowm writes JPEGs with libjpeg-turbo, so --quality 90 is libjpeg's quality 90, as ImageMagick's -quality 90
# is (the same quantisation tables, Huffman tables optimised in both). ffmpeg's mjpeg gets -q:v 3, the qscale whose
# tables come closest (its matrix differs in shape). The output sizes in the report show how the three compare.
JPEG_QUALITY, MJPEG_QSCALE = 90, 3

TEXT_LAYER = {"text": "{email}", "size": 0.04, "color": "#FFFFFF", "opacity": 0.5, "y": 50,
              "animation": {"type": "pingPong", "duration": 10000}}
LOGO_SIZE, LOGO_OPACITY, INSET = 0.16, 0.8, 0.03
LOGO_LAYER = {"image": "logo.png", "size": LOGO_SIZE, "anchor": "top-right", "opacity": LOGO_OPACITY}
# Job 7: a review-copy timecode in the bottom-right corner on a plate; the static variant draws the same
# layer with a fixed text of the same length, so the ratio is what re-rendering per frame costs.
TIMECODE_LAYER = {"text": "{timecode}", "size": 0.04, "color": "#FFFFFF", "opacity": 0.9, "anchor": "bottom-right",
                  "box": {"color": "#80000000", "padding": 0.01}}
SMART_TIMING = {"start": 10, "interval": 6000, "skip": 24000}
TILE_LAYER = {"text": "CONFIDENTIAL", "size": 0.04, "opacity": 0.15, "tile": {"angle": -30, "spacing": 0.12}}
# Jobs 12-14 (serve): the mark 6 s of every 30 s, on one 6-s segment of five (12-18 s, 42-48 s ...): 20 % of
# the video is re-encoded for each student. A mark straddling a cut would make two segments a student's own.
SERVE_TIMING = {"start": 12, "interval": 6000, "skip": 24000}
# Job 16 (serve start-up, issue 40): from 0 s for 4 s of every 24 s, so every student's first segment is their own.
STARTUP_TIMING = {"start": 0, "interval": 4000, "skip": 20000}


def configs(work, logo):
    """Writes every job's config into WORK/configs (with the logo beside them); returns their paths by name."""
    d = os.path.join(work, "configs")
    os.makedirs(d, exist_ok=True)
    shutil.copy(logo, os.path.join(d, "logo.png"))
    return {
        "empty": write_json(os.path.join(d, "empty.json"), {"watermarks": []}),
        # One layer that never shows: forces the decode-mark-encode path with nothing drawn.
        "invisible": write_json(os.path.join(d, "invisible.json"),
                                {"watermarks": [{"text": "never shown", "start": 1000000}]}),
        "marked": write_json(os.path.join(d, "email-logo.json"), {"watermarks": [TEXT_LAYER, LOGO_LAYER]}),
        "tiled": write_json(os.path.join(d, "tiled.json"), {"watermarks": [TILE_LAYER]}),
        "timecode": write_json(os.path.join(d, "timecode.json"), {"watermarks": [TIMECODE_LAYER]}),
        "timecode-static": write_json(os.path.join(d, "timecode-static.json"),
                                      {"watermarks": [dict(TIMECODE_LAYER, text="00:00:00:00")]}),
        # Job 10: a faint e-mail in the top-left corner, 2 s of every 6 s from 1 s.
        "quality": write_json(os.path.join(d, "quality.json"), {"watermarks": [
            {"text": EMAIL, "size": 0.05, "color": "#FFFFFF", "opacity": 0.4, "anchor": "top-left",
             "start": 1, "interval": 2000, "skip": 4000}]}),
        # Jobs 8 and 9: the e-mail and logo shown 6 s of every 30 s (10-16 s, 40-46 s of a 60-s clip).
        "timed": write_json(os.path.join(d, "email-logo-timed.json"), {"watermarks": [
            dict(TEXT_LAYER, **SMART_TIMING), dict(LOGO_LAYER, **SMART_TIMING)]}),
        # Job 16 (serve start-up): the same marks from 0 s for 4 s of every 24 s: every student's first segment is their own.
        "startup": write_json(os.path.join(d, "email-logo-startup.json"), {"watermarks": [
            dict(TEXT_LAYER, **STARTUP_TIMING), dict(LOGO_LAYER, **STARTUP_TIMING)]}),
        # Jobs 12-14 (serve): the same marks 6 s of every 30 s, on one 6-s segment of five.
        "served": write_json(os.path.join(d, "email-logo-served.json"), {"watermarks": [
            dict(TEXT_LAYER, **SERVE_TIMING), dict(LOGO_LAYER, **SERVE_TIMING)]}),
    }


def logo_pixels(logo_w, logo_h, short_side):
    """The logo's size in pixels as videowm scales it: its longer side LOGO_SIZE of the short side."""
    longer = max(1.0, LOGO_SIZE * short_side)
    scale = longer / max(logo_w, logo_h)
    return max(1, round(logo_w * scale)), max(1, round(logo_h * scale))


def drawtext_filter(short_side, text, still=False):
    """ffmpeg's drawtext drawing TEXT_LAYER: the em size of videowm's cap height, pingPong over 10 s."""
    em = round(TEXT_LAYER["size"] * short_side / DEJAVU_CAP_HEIGHT_PER_EM, 1)
    inset = round(INSET * short_side, 2)
    # pingPong over 10 s: x goes 0 -> 100 % -> 0 of (W - w - 2 inset); y 50 %.
    x = f"{inset}+(w-tw-2*{inset})*(1-abs(mod(t/10\\,2)-1))" if not still else f"{inset}"
    return (f"drawtext=fontfile={FONT}:expansion=none:text='{text}':fontsize={em}:fontcolor=white@0.5"
            f":x='{x}':y='(h-th)/2'")
