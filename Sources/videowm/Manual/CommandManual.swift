import VideoWM

/// What a man page has beyond a command's help page: the one-line summary of its NAME section,
/// examples, and the pages it refers to. Every command has an entry (CommandLineTests checks
/// it, and that every example parses); the options, synopsis and description come from the
/// command's declaration, as on its help page.
struct CommandManual {
    /// The NAME line's summary, lower case, no full stop: "mark still images".
    let summary: String
    /// What each example does, and its command line (continued with " \" and a newline).
    let examples: [(what: String, command: String)]
    /// Commands worth reading beside this one.
    let related: [String]
    /// The guide in docs/guide that walks through this command's job.
    let guide: String

    static func of(_ name: String) -> CommandManual? { byCommand[name] }

    private static let byCommand: [String: CommandManual] = [
        "transcode": CommandManual(
            summary: "mark every frame of a video and re-encode it, to a file or an HLS presentation",
            examples: [
                ("A student's copy of the sample lecture: the e-mail sweeps left and right, the logo sits top-right.",
                 "videowm transcode samples/lecture.mp4 out/lecture-ada.mp4 -c samples/lecture.json \\\n    --var email=ada@example.com"),
                ("An operator's copy with a logo and a text plate, HEVC at CRF 26.",
                 "videowm transcode samples/lecture.mp4 out/branded.mp4 -c samples/transcode.json --codec hevc --crf 26"),
                ("For an HLS packager: a keyframe every 2 s, capped CRF (2 Mbit/s peak over a 4-Mbit buffer), High@4.1.",
                 "videowm transcode samples/lecture.mp4 out/packaged.mp4 -c samples/transcode.json \\\n    --gop 2s --maxrate 2M --bufsize 4M --profile high --level 4.1"),
                ("A smaller copy, the marks laid out on the smaller picture.",
                 "videowm transcode samples/lecture.mp4 out/lecture-240p.mp4 -c samples/lecture.json \\\n    --var email=ada@example.com --height 240"),
                ("An HLS ladder of two renditions; then segment 1 of a single-rendition presentation, made alone.",
                 "videowm transcode samples/lecture.mp4 out/ada.m3u8 -c samples/lecture.json \\\n    --var email=ada@example.com --ladder 360,240\nvideowm transcode samples/lecture.mp4 out/seg1.m4s -c samples/lecture.json \\\n    --var email=ada@example.com --segment 2 --only-segment 1 -v"),
            ],
            related: ["batch", "thumbnail", "preview", "probe"], guide: "docs/guide/marking-a-lecture.md"),
        "stamp": CommandManual(
            summary: "mark still images (PNG, JPEG, WebP, TIFF, HEIC) with the marks a video gets",
            examples: [
                ("Stamp a photo.", "videowm stamp samples/photo.jpg -o out/photo-stamped.jpg -c samples/transcode.json"),
                ("A folder of photos, each under its own name.", "videowm stamp photos/*.jpg -d stamped/ -c samples/transcode.json"),
                ("A 320-pixel thumbnail of an iPhone photo, keeping the photographer's credit, with the platform's copyright.",
                 "videowm stamp IMG_0001.HEIC -o thumb.jpg -c samples/transcode.json --max-size 320 \\\n    --keep-metadata safe --set-metadata \"copyright=© Example U\""),
            ],
            related: ["thumbnail", "preview", "transcode"], guide: "docs/guide/stills-and-thumbnails.md"),
        "thumbnail": CommandManual(
            summary: "write the frame of a video shown at a time, marked as transcode marks it",
            examples: [
                ("The poster frame of a student's copy, marked like the video at 2.5 s.",
                 "videowm thumbnail samples/lecture.mp4 out/poster.jpg --at 2.5 -c samples/thumbnail.json \\\n    --var email=ada@example.com"),
            ],
            related: ["stamp", "preview", "transcode"], guide: "docs/guide/stills-and-thumbnails.md"),
        "batch": CommandManual(
            summary: "make one marked copy of a video for every row of a CSV file",
            examples: [
                ("One copy per student, each with that student's e-mail.",
                 "videowm batch samples/lecture.mp4 -c samples/random.json --vars samples/students.csv \\\n    --output 'out/{id}.mp4'"),
                ("Per-student HLS playlists sharing every unmarked segment, a report line per row.",
                 "videowm batch samples/lecture.mp4 -c samples/lecture.json --vars samples/students.csv \\\n    --output 'out/{id}.m3u8' --segment 2 --report out/report.jsonl"),
                ("The second of four shards, on one of four machines sharing the output folder.",
                 "videowm batch samples/lecture.mp4 -c samples/random.json --vars samples/students.csv \\\n    --output 'out/{id}.mp4' --shard 1/4"),
            ],
            related: ["transcode", "trace", "keygen"], guide: "docs/guide/batch-for-a-class.md"),
        "preview": CommandManual(
            summary: "write a contact sheet of marked frames, to check a config before a long job",
            examples: [
                ("Twelve marked frames of the lecture on one sheet.",
                 "videowm preview samples/lecture.mp4 -c samples/lecture.json --var email=ada@example.com \\\n    -o out/sheet.png"),
            ],
            related: ["thumbnail", "transcode"], guide: "docs/guide/stills-and-thumbnails.md"),
        "trace": CommandManual(
            summary: "name the students whose copies a leaked video was made from",
            examples: [
                ("Trace a leak against the class list and the key the copies were made with.",
                 "videowm trace leak.mp4 --original samples/lecture.mp4 -c samples/random.json \\\n    --vars samples/students.csv --key-file platform.key"),
                ("The same, as one JSON object for a program.",
                 "videowm trace leak.mp4 --original samples/lecture.mp4 -c samples/random.json \\\n    --vars samples/students.csv --key-file platform.key --json"),
            ],
            related: ["batch", "keygen"], guide: "docs/guide/tracing-a-leak.md"),
        "probe": CommandManual(
            summary: "describe a media file or an HLS presentation as videowm sees it",
            examples: [
                ("Streams, sizes and duration of the sample lecture.", "videowm probe samples/lecture.mp4"),
                ("The same for a program; then an HLS presentation's variants and duration.",
                 "videowm probe samples/lecture.mp4 --json\nvideowm probe out/ada.m3u8"),
            ],
            related: ["transcode"], guide: "docs/guide/hls-ladders-and-captions.md"),
        "serve": CommandManual(
            summary: "serve every student their own marked HLS over HTTP, rendering marked segments on request",
            examples: [
                ("Serve the sample library on this machine, with a fresh token key.",
                 "head -c 32 /dev/urandom > token.key && chmod 600 token.key\nvideowm serve samples/library --token-key-file token.key --listen 127.0.0.1:8080"),
                ("In production: every interface, a large cache, four render workers.",
                 "videowm serve /srv/lectures --token-key-file /etc/videowm/token.key --listen 0.0.0.0:8080 \\\n    --cache /var/cache/videowm --cache-size 200G --workers 4 --queue 64"),
            ],
            related: ["batch", "keygen"], guide: "docs/guide/serving-students.md"),
        "keygen": CommandManual(
            summary: "write a new platform key, from which each student's mark path is derived",
            examples: [
                ("A key for the platform, then a batch that uses it.",
                 "videowm keygen platform.key\nvideowm batch samples/lecture.mp4 -c samples/random.json --vars samples/students.csv \\\n    --output 'out/{id}.mp4' --key-file platform.key"),
            ],
            related: ["batch", "trace", "serve"], guide: "docs/guide/tracing-a-leak.md"),
    ]
}

/// The pages that are no one command's: videowm(1), the overview, and videowm-config(5).
enum ToolManual {
    static let summary = "burn visible watermarks into video and still images"

    static let description = """
        videowm burns visible watermarks (a student's e-mail that moves so it cannot be cropped
        out, a logo, a line of text, a tiled "CONFIDENTIAL") into videos and still images, and
        traces a leaked copy back to the students it was made for. Every frame is decoded with
        FFmpeg's libraries, marked at its presentation time and re-encoded (or, where marks show
        only at times, only the GOPs they touch); audio, subtitles and other streams are copied.
        Stills go through the same compositor, so a thumbnail's mark is the video's.

        What is marked, where and when is said by a JSON config file (videowm-config(5)); values
        for its {name} placeholders come from --var or, for a batch, from the rows of a CSV file.
        """

    /// The options `videowm` itself takes, before or instead of a command.
    static let globalOptions: [(label: String, help: String)] = [
        ("-h, --help", "print the overview; after a command, that command's page (as 'videowm help COMMAND')"),
        ("-V, --version", "print the version"),
    ]

    static let environment: [(name: String, meaning: String)] = [
        (MarkOptions.keyFileVariable, "the platform's key file, when --key-file is not given (transcode, stamp, thumbnail, preview, batch, trace, serve)"),
        ("VIDEOWM_FETCH_TIMEOUT", "seconds an http(s) logo may take to arrive, in all (1…3600, default 60)"),
        ("SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP",
         "batch without --shard: the shard of a Slurm job array"),
        ("JOB_COMPLETION_INDEX, VIDEOWM_SHARD_COUNT",
         "batch without --shard: the shard of a Kubernetes Indexed Job (the count from --shard-count or VIDEOWM_SHARD_COUNT)"),
    ]

    static let examples: [(what: String, command: String)] = [
        ("Mark the sample lecture for one student.",
         "videowm transcode samples/lecture.mp4 out/lecture-ada.mp4 -c samples/lecture.json \\\n    --var email=ada@example.com"),
        ("Every command's page, and the config's fields.", "videowm help batch\nvideowm help config"),
    ]

    static let configSynopsis = """
        { "watermarks": [ LAYER, … ] }
        """

    static let configDescription = """
        A videowm config is a JSON file (UTF-8, at most \(ConfigLimits.maximumBytes / (1 << 20)) MB, a regular file or a pipe)
        whose "watermarks" array holds up to \(ConfigLimits.maximumLayers) layers, drawn in order. A layer is a text
        layer ("text") or an image layer ("image"); the fields below say what it shows, where,
        how large and when. Unknown fields, a key given twice and malformed JSON are errors
        naming the file and the JSON path (watermarks[1].opacity), found before any work.

        Lengths are fractions of the frame's short side in display orientation, so one config
        looks the same on 360p, 4K, portrait and panorama frames. A text's {name} placeholders
        take --var values or a CSV row's columns; {timecode}, {pts}, {date} and {time} are
        filled in by videowm; {{ and }} are literal braces. A layer's text, placeholders filled
        in, is at most \(ConfigLimits.maximumTextCharacters) characters.
        """

    static let configExample = """
        {
          "watermarks": [
            { "text": "{email}", "size": 0.04, "color": "#FFFFFF", "opacity": 0.5,
              "y": 50, "animation": { "type": "pingPong", "duration": 10000 } },
            { "image": "logo.png", "size": 0.16, "anchor": "top-right", "opacity": 0.8 },
            { "text": "CONFIDENTIAL", "tile": { "angle": -30, "spacing": 0.12 }, "opacity": 0.15 }
          ]
        }
        """

    static let configExitStatus = """
        A command given a config it cannot use exits 64 (usage or config error) with one line
        naming the file and the field's JSON path; a logo or font file that is missing exits 66,
        one that cannot be read 65.
        """
}
