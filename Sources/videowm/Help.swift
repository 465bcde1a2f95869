/// The text of `videowm help` and `videowm COMMAND --help`.
enum Help {
    static let commandNames = ["transcode", "stamp", "thumbnail", "preview", "batch", "probe"]

    static let overview = """
    videowm — burn visible watermarks (text and logos, still or moving) into video and stills

    Usage:
      videowm transcode INPUT OUTPUT -c CONFIG [--var KEY=VALUE]... [encode options] [-y]
      videowm stamp INPUT... (-o OUTPUT | -d DIR) -c CONFIG [--at SECONDS] [--var KEY=VALUE]... [-y]
      videowm thumbnail VIDEO OUTPUT --at SECONDS -c CONFIG [--var KEY=VALUE]... [-y]
      videowm batch INPUT -c CONFIG --vars FILE.csv --output TEMPLATE [-j N] [--shard I/N] [--force] [--report FILE] [encode options]
      videowm preview INPUT -c CONFIG -o SHEET.png [--frames N] [--var KEY=VALUE]... [-y]
      videowm probe INPUT [--json]
      videowm help [COMMAND] | videowm COMMAND --help | videowm --version

    Config: a JSON file with a "watermarks" array; every length is a fraction of the
    frame's short side, so one config looks the same on every frame size.
    Run 'videowm help config' for the fields.

    Exit codes: 0 ok · 64 usage or config error · 65 input unreadable or corrupt ·
    66 input missing · 71 out of memory or other resources · 73 output cannot be created ·
    74 write error · 130 interrupted.

    """

    static func text(for topic: String) -> String? {
        switch topic {
        case "transcode": return transcode
        case "stamp": return stamp
        case "thumbnail": return thumbnail
        case "probe": return probe
        case "preview": return preview
        case "batch": return batch
        case "config": return config
        default: return nil
        }
    }

    static let transcode = """
    videowm transcode INPUT OUTPUT -c CONFIG [--var KEY=VALUE]... [options] [-y]

    Decodes every frame of INPUT, marks it at its presentation time and re-encodes it;
    audio, subtitle and data streams are copied (audio the container cannot hold is
    re-encoded; text subtitles become mov_text or WebVTT). The container follows OUTPUT's
    extension (.mp4 .mov .mkv .webm …); MP4/MOV get their index at the front.
    Every frame keeps its presentation time; if the picture changes size mid-stream,
    later sizes are scaled to fit the first between black bars (with a notice).
    OUTPUT appears only when complete; an existing OUTPUT is kept unless -y.

    Options:
      -c, --config FILE     watermark config (JSON)
      --var KEY=VALUE       value for a {KEY} placeholder (repeatable; kept verbatim)
      --codec NAME          h264 (default), hevc, vp9 (default for .webm), av1
      --crf N               constant quality (lower is better; default per codec)
      --preset NAME         encoder preset (x264/x265: ultrafast…veryslow)
      --bitrate RATE        target bit rate instead of --crf, e.g. 2500k or 3M
      --threads N           codec threads (0: automatic, the default)
      --audio MODE          copy (default; audio the container cannot hold is re-encoded
                            to AAC, or Opus for .webm), aac, opus, or none
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
    time; a failed file is reported and the others carry on (the exit code is that
    of the first failure). The ICC colour profile is kept in PNG and JPEG outputs;
    EXIF is not copied (its orientation is applied, and its embedded preview would be
    an unmarked copy).

    Options:
      -o, --output FILE     the output (one input)
      -d, --dir DIR         output folder (any number of inputs)
      --at SECONDS          time at which animations are evaluated (default 0)
      --quality Q           JPEG/WebP quality 1…100 on libjpeg's scale (default 90)
      -c, --config FILE, --var KEY=VALUE, -y, -q, -v   as for transcode

    """

    static let thumbnail = """
    videowm thumbnail VIDEO OUTPUT --at SECONDS -c CONFIG [--var KEY=VALUE]... [options] [-y]

    Writes the frame of VIDEO shown at SECONDS (counted from the first frame), upright,
    marked exactly as 'videowm transcode' marks that frame, as a PNG, JPEG or WebP still.
    Seeks to the keyframe before SECONDS, so the end of a long video is as quick as the start.

    Options:
      --at SECONDS          the time (required)
      --quality Q           JPEG/WebP quality 1…100 on libjpeg's scale (default 90)
      -c, --config FILE, --var KEY=VALUE, -y, -q, -v   as for transcode

    """

    static let preview = """
    videowm preview INPUT -c CONFIG -o SHEET.png [--frames N] [--var KEY=VALUE]... [-y]

    Writes a contact sheet: N frames spread evenly from the first to the last, each marked
    exactly as 'videowm transcode' marks it and labelled with its time, in a grid, so
    you see the whole animation path before a long job. Tiles are at most 480 pixels on
    their longer side.

    Options:
      -o, --output FILE     the sheet (.png; .jpg and .webp also work)
      --frames N            how many frames, 1…100 (default 12)
      -c, --config FILE, --var KEY=VALUE, -y, -q, -v   as for transcode

    """

    static let batch = """
    videowm batch INPUT -c CONFIG --vars FILE.csv --output TEMPLATE [-j N] [--shard I/N]
                  [--force] [--report FILE] [encode options]

    One output per CSV row: the header names the variables (email,name,id,plan), each
    row fills the config's {name} placeholders and the output TEMPLATE, e.g.
    --output 'out/{id}.mp4'. Values are made safe for file names (no '/', '..', control
    characters, leading '.' or '-') and every output stays inside TEMPLATE's folder, which
    must exist (folders below it that placeholders name are created). Every row is checked
    before anything is encoded. Rows whose output exists are skipped, so a re-run after an
    interrupt does only the rest. Rows share one decode of INPUT, N outputs at a time.
    A row whose layers "unless" all leaves out gets a copy of the video, not re-encoded.

    Options:
      -c, --config FILE     watermark config (JSON)
      --vars FILE.csv       the rows (RFC 4180 CSV, UTF-8, header first)
      -o, --output TEMPLATE output path with {column} placeholders
      -j, --jobs N          outputs encoded at once from one decode (default 4)
      --shard I/N           take the rows whose index (0 for the first) is ≡ I mod N;
                            default: from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, or
                            JOB_COMPLETION_INDEX (Kubernetes) with the count from
                            --shard-count N or VIDEOWM_SHARD_COUNT; else every row
      --force, -y           redo rows whose output exists (replacing it)
      --report FILE         append one JSON line per row: {"row", "output", "status"
                            (done, skipped, failed), "seconds", "error"}
      --var KEY=VALUE       a value shared by every row (not a CSV column)
      --codec, --crf, --preset, --bitrate, --audio, --threads, --errors   as for transcode
      --progress MODE       auto (bar on a terminal), bar, json (row/progress/done
                            objects, one a line, on stdout), none
      -q, --quiet           no warnings     -v, --verbose   more detail

    Exit: 0 when every row is done or skipped; otherwise the highest exit code among the
    failed rows (e.g. 73 output cannot be created, 74 write error); the other rows are
    still done. 64 (before anything is encoded) when a row or the template is wrong,
    66 when INPUT is missing, 130 when interrupted.

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
      tile        {"angle": degrees, "spacing": f}: repeat over the whole frame with
                  this gap between marks (fraction of the short side), as given; a
                  warning gives the size of any clean square wider than 0.1; default
                  spacing 0.12
      animation   {"type": "pingPong"|"random", "duration": ms, "seed": s, "ease": ms}
      start, end  seconds of presentation time the layer shows
      interval, skip   ms shown, then ms hidden, repeating
      fade        ms of fade in and out at every appearance
      unless      {"plan": ["premium"]}: leave the layer out for these variable values
    TPStreams player configs (textSize, imageUrl, width, height in points) are accepted.

    """
}
