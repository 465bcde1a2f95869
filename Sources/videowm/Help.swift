/// The text of `videowm help` and `videowm COMMAND --help`.
enum Help {
    static let commandNames = ["transcode", "stamp", "thumbnail", "probe"]

    static let overview = """
    videowm — burn visible watermarks (text and logos, still or moving) into video and stills

    Usage:
      videowm transcode INPUT OUTPUT -c CONFIG [--var KEY=VALUE]... [encode options] [-y]
      videowm stamp INPUT... (-o OUTPUT | -d DIR) -c CONFIG [--at SECONDS] [--var KEY=VALUE]... [-y]
      videowm thumbnail VIDEO OUTPUT --at SECONDS -c CONFIG [--var KEY=VALUE]... [-y]
      videowm probe INPUT [--json]
      videowm help [COMMAND] | videowm COMMAND --help | videowm --version

    Not yet available: batch, preview (see the README's roadmap).

    Config: a JSON file with a "watermarks" array; every length is a fraction of the
    frame's short side, so one config looks the same on every frame size.
    Run 'videowm help config' for the fields.

    Exit codes: 0 ok · 64 usage or config error · 65 input unreadable or corrupt ·
    66 input missing · 73 output cannot be created · 74 write error · 130 interrupted.

    """

    static func text(for topic: String) -> String? {
        switch topic {
        case "transcode": return transcode
        case "stamp": return stamp
        case "thumbnail": return thumbnail
        case "probe": return probe
        case "config": return config
        default: return nil
        }
    }

    static let transcode = """
    videowm transcode INPUT OUTPUT -c CONFIG [--var KEY=VALUE]... [options] [-y]

    Decodes every frame of INPUT, marks it at its presentation time and re-encodes it;
    audio, subtitle and data streams are copied. The container follows OUTPUT's
    extension (.mp4 .mov .mkv .webm …); MP4/MOV get their index at the front.
    OUTPUT appears only when complete; an existing OUTPUT is kept unless -y.

    Options:
      -c, --config FILE     watermark config (JSON)
      --var KEY=VALUE       value for a {KEY} placeholder (repeatable; kept verbatim)
      --codec NAME          h264 (default), hevc, vp9 (default for .webm), av1
      --crf N               constant quality (lower is better; default per codec)
      --preset NAME         encoder preset (x264/x265: ultrafast…veryslow)
      --bitrate RATE        target bit rate instead of --crf, e.g. 2500k or 3M
      --threads N           codec threads (0: automatic, the default)
      --errors MODE         damaged input packets: warn (conceal, count, report; default)
                            or fail (stop at the first: exit 65, no output)
      --progress MODE       auto (bar on a terminal), bar, json (one object a line), none
      -y, --overwrite       replace an existing OUTPUT
      -q, --quiet           no warnings
      -v, --verbose         more detail, including FFmpeg's own warnings

    """

    static let stamp = """
    videowm stamp INPUT... (-o OUTPUT | -d DIR) -c CONFIG [--at SECONDS] [options] [-y]

    Marks still images (PNG, JPEG, WebP) with the same compositor as video; the format
    follows the output's extension. EXIF orientation is applied, so the mark lands where
    a person sees it and the output displays upright. Animations are evaluated at --at
    (default 0). With -d, each input is written to DIR under its own name, one at a
    time; a failed file is reported and the others carry on.

    Options:
      -o, --output FILE     the output (one input)
      -d, --dir DIR         output folder (any number of inputs)
      --at SECONDS          time at which animations are evaluated (default 0)
      --quality Q           JPEG/WebP quality 1…100 (default 90)
      -c, --config FILE, --var KEY=VALUE, -y, -q, -v   as for transcode

    """

    static let thumbnail = """
    videowm thumbnail VIDEO OUTPUT --at SECONDS -c CONFIG [--var KEY=VALUE]... [-y]

    Writes the frame of VIDEO shown at SECONDS (upright), marked exactly as
    'videowm transcode' marks that frame, as a PNG, JPEG or WebP still.

    """

    static let probe = """
    videowm probe INPUT [--json]

    Prints what videowm sees in a file: container, duration, and for each stream its
    codec, size, pixel format, frame rate, display rotation, sample rate and language.

    """

    static let config = """
    Config fields (one object per layer in "watermarks"; layers draw in order):
      text        text; {name} placeholders from --var; {{ and }} are literal braces
      image       logo path (relative to the config) or http(s) URL; PNG/JPEG/WebP
      size        text: cap height; image: longer side (fraction of the short side)
                  default 0.04 (text), 0.16 (image)
      font        family name (fontconfig) or font file; default DejaVu Sans
      color       #RGB, #RRGGBB, #AARRGGBB or an ARGB integer; default #FFFFFFFF
      opacity     0…1; default 0.3 (text), 1.0 (image)
      x, y        0…100 percent inside the inset; default 0,0 (text), 92,88 (image)
      anchor      top-left top top-right left center right bottom-left bottom bottom-right
      inset       safe margin, fraction of the short side; default 0.03
      maxWidth    text wider than this fraction of the frame width shrinks; default 0.9
      outline     {"width": f, "color": c}
      shadow      {"x": f, "y": f, "blur": f, "color": c}
      box         {"color": c, "padding": f, "radius": f}
      tile        {"angle": degrees, "spacing": f}: repeat over the whole frame
      animation   {"type": "pingPong"|"random", "duration": ms, "seed": s, "ease": ms}
      start, end  seconds of presentation time the layer shows
      interval, skip   ms shown, then ms hidden, repeating
      fade        ms of fade in and out at every appearance
      unless      {"plan": ["premium"]}: leave the layer out for these variable values
    TPStreams player configs (textSize, imageUrl, width, height in points) are accepted.

    """
}
