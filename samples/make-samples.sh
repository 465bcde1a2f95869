#!/usr/bin/env bash
# Regenerates the media in samples/ with the ffmpeg command-line tool (and python3's
# standard library for the logo). Re-running produces the same bytes with the same
# ffmpeg/x264/zlib versions: bit-exact flags, no metadata, no wall-clock inputs.
#
#   samples/lecture.mp4  6 s, 640x360, 30 fps H.264 + 48 kHz stereo AAC, fast start
#   samples/logo.png     256x256 RGBA logo with a transparent background
#   samples/photo.jpg    1280x960 JPEG still
#
# Needs what scripts/setup installs (ffmpeg, fonts-dejavu-core, python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
bold=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
for tool in ffmpeg python3; do
    command -v "$tool" >/dev/null || { echo "make-samples: $tool not found; run scripts/setup" >&2; exit 1; }
done
for file in "$font" "$bold"; do
    [[ -f "$file" ]] || { echo "make-samples: $file not found; run scripts/setup" >&2; exit 1; }
done

ff=(ffmpeg -hide_banner -loglevel error -nostdin -y)
exact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 -map_chapters -1)

# --- lecture.mp4 -----------------------------------------------------------------------
# A slide: light background, dark title bar with a title, a few "bullet" bars, and a
# small test-pattern "demo" inset that drifts right, plus a slide number counting seconds.
# Sound: two soft sine tones (A3 + E4) in stereo, like a hum under a voice.
slide="\
drawbox=x=0:y=0:w=iw:h=56:color=0x1F3A5F:t=fill,\
drawtext=fontfile=${bold}:text='Lecture 3 — Signals and Systems':fontsize=26:fontcolor=white:x=24:y=16,\
drawbox=x=40:y=96:w=12:h=12:color=0x1F3A5F:t=fill,drawbox=x=64:y=98:w=260:h=8:color=0x8090A0:t=fill,\
drawbox=x=40:y=136:w=12:h=12:color=0x1F3A5F:t=fill,drawbox=x=64:y=138:w=220:h=8:color=0x8090A0:t=fill,\
drawbox=x=40:y=176:w=12:h=12:color=0x1F3A5F:t=fill,drawbox=x=64:y=178:w=280:h=8:color=0x8090A0:t=fill,\
drawbox=x=40:y=216:w=12:h=12:color=0x1F3A5F:t=fill,drawbox=x=64:y=218:w=180:h=8:color=0x8090A0:t=fill,\
drawbox=x=0:y=ih-28:w=iw:h=28:color=0xD8DEE6:t=fill,\
drawtext=fontfile=${font}:text='Example University':fontsize=14:fontcolor=0x1F3A5F:x=24:y=h-21,\
drawtext=fontfile=${font}:text='%{eif\:1+floor(t)\:d} / 6':fontsize=14:fontcolor=0x1F3A5F:x=w-tw-24:y=h-21"
"${ff[@]}" \
    -f lavfi -i "color=c=0xF4F1EA:s=640x360:r=30:d=6" \
    -f lavfi -i "testsrc2=s=192x108:r=30:d=6" \
    -f lavfi -i "sine=frequency=220:sample_rate=48000:duration=6" \
    -f lavfi -i "sine=frequency=330:sample_rate=48000:duration=6" \
    -filter_complex "\
[0:v]${slide}[bg];\
[1:v]drawbox=x=0:y=0:w=iw:h=ih:color=0x1F3A5F:t=3[demo];\
[bg][demo]overlay=x='330+15*t':y=120:shortest=1,format=yuv420p[v];\
[2:a][3:a]amix=inputs=2:normalize=0,volume=0.2,pan=stereo|c0=c0|c1=c0[a]" \
    -map "[v]" -map "[a]" \
    -c:v libx264 -preset medium -crf 30 -pix_fmt yuv420p -profile:v high -g 60 -frames:v 180 \
    -c:a aac -b:a 64k -ar 48000 -ac 2 -t 6 \
    "${exact[@]}" -movflags +faststart \
    "$here/lecture.mp4"

# --- logo.png --------------------------------------------------------------------------
# Blue rounded square with a white "V" mark, inside a translucent ring; edges anti-aliased
# from signed distances, so the alpha channel has 0, 255 and everything between.
python3 - "$here/logo.png" <<'PY'
import math, struct, sys, zlib

N = 256
C = N / 2

def clamp(v):
    return 0.0 if v < 0 else 1.0 if v > 1 else v

def rounded_square(x, y, half, r):
    qx, qy = abs(x) - half + r, abs(y) - half + r
    return math.hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - r

def segment(x, y, ax, ay, bx, by):
    px, py, dx, dy = x - ax, y - ay, bx - ax, by - ay
    h = max(0.0, min(1.0, (px * dx + py * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - dx * h, py - dy * h)

def over(dst, src):
    # Non-premultiplied "source over" of (r, g, b, a) colours in 0...1.
    sa, da = src[3], dst[3]
    a = sa + da * (1 - sa)
    if a == 0:
        return (0.0, 0.0, 0.0, 0.0)
    return tuple((src[i] * sa + dst[i] * da * (1 - sa)) / a for i in range(3)) + (a,)

ring = (0.96, 0.65, 0.14)   # amber
plate = (0.12, 0.39, 0.84)  # blue
mark = (1.0, 1.0, 1.0)

rows = bytearray()
for j in range(N):
    rows.append(0)  # filter type: none
    for i in range(N):
        x, y = i + 0.5 - C, j + 0.5 - C
        pixel = (0.0, 0.0, 0.0, 0.0)
        d_ring = abs(math.hypot(x, y) - 117) - 7
        pixel = over(pixel, ring + (0.45 * clamp(0.5 - d_ring),))
        d_plate = rounded_square(x, y, 86, 30)
        pixel = over(pixel, plate + (clamp(0.5 - d_plate),))
        d_mark = min(segment(x, y, -42, -40, 0, 44), segment(x, y, 42, -40, 0, 44)) - 13
        pixel = over(pixel, mark + (clamp(0.5 - d_mark),))
        rows += bytes(round(255 * v) for v in pixel)

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

png = (b"\x89PNG\r\n\x1a\n"
       + chunk(b"IHDR", struct.pack(">IIBBBBB", N, N, 8, 6, 0, 0, 0))  # 8-bit RGBA
       + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
       + chunk(b"IEND", b""))
with open(sys.argv[1], "wb") as f:
    f.write(png)
PY

# --- photo.jpg -------------------------------------------------------------------------
"${ff[@]}" -f lavfi -i "testsrc2=s=1280x960:r=1" -frames:v 1 \
    -vf "format=yuvj420p" -c:v mjpeg -q:v 5 "${exact[@]}" -f image2 -update 1 \
    "$here/photo.jpg"

for file in lecture.mp4 logo.png photo.jpg; do
    printf 'make-samples: %-12s %7d bytes\n' "$file" "$(stat -c %s "$here/$file")"
done
