import Overlay
import VideoWM

/// `videowm transcode INPUT OUTPUT -c CONFIG [--var K=V]... [encode options] [-y]`
struct TranscodeCommand: ToolCommand {
    static let name = "transcode"
    var input = ""
    var output = ""
    var marks = MarkOptions()
    var encode = EncodeOptions()
    var size = ScaleOptions()
    var metadata = MetadataOptions()
    var hls = HLSOptions()
    var outputOptions = OutputOptions()
    /// `--only-segment`: one file of the presentation, written to OUTPUT.
    var onlyPart: PresentationPart?
    /// OUTPUT, parsed once (`validate`).
    var target: OutputTarget?

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .parsed("--only-segment", placeholder: "K|init|RENDITION/FILE|PLAYLIST",
                    help: "write only one file of the HLS presentation these options make, to OUTPUT, byte for byte that presentation's file: segment K (0 is the first) or init of a single rendition, any file of any rendition as RENDITION/FILE (720p/3.m4s, 720p/init.mp4, subs-en/0.vtt), or a playlist (playlist.m3u8, 720p.m3u8) naming its files RENDITION/FILE",
                    example: "3", parse: presentationPart) { $0.onlyPart = $1 },
         ]),
         MarkOptions.options.lifted(\.marks), EncodeOptions.options.lifted(\.encode), ScaleOptions.options.lifted(\.size), MetadataOptions.videoOptions.lifted(\.metadata),
         HLSOptions.options.lifted(\.hls),
         OutputOptions.options.lifted(\.outputOptions)]
    }

    static var files: FileArguments<Self> {
        .exactly(2, described: "INPUT and OUTPUT") { $0.input = $1[0]; $0.output = $1[1] }
    }

    static let help = CommandHelp(
        usage: "videowm transcode INPUT OUTPUT -c CONFIG [--var KEY=VALUE]... [--render MODE] [encode options] [size options] [--set-metadata KEY=VALUE]... [--only-segment K|init|RENDITION/FILE|PLAYLIST] [-y]",
        discussion: """
        Decodes every frame of INPUT, marks it at its presentation time and re-encodes it;
        audio, subtitle and data streams are copied (audio the container cannot hold is
        re-encoded; text subtitles become mov_text or WebVTT). The container follows OUTPUT's
        extension (.mp4 .mov .mkv .webm …); MP4/MOV get their index at the front.
        OUTPUT.m3u8 writes an HLS presentation instead: fMP4 segments with the audio muxed
        in, beside the playlist (named OUTPUT-HASH.m4s by their content), the playlist written
        last. With --render auto or smart an H.264 input is cut at its own IDRs near every
        --segment seconds and only the segments where a mark shows are re-encoded; with
        --render full every frame is, on keyframes forced every --segment seconds.
        OUTPUT.mpd writes that HLS presentation (its playlist at OUTPUT.m3u8) and a static
        DASH MPD beside it over the same segment files, last; --dash does the same for an
        .m3u8 OUTPUT. The audio is a rendition of its own (DASH gives each media type its
        AdaptationSet); each Representation lists its segments by name with a timeline
        read from them (ISO BMFF main profile). Captions are not in the MPD yet.
        --encrypt cenc|cbcs --content-key-file FILE encrypts every initialization and media
        segment with Common Encryption as it is written (shared ones once, to the same bytes);
        the MPD carries ContentProtection, the HLS playlists EXT-X-KEY; the key is written nowhere.
        --encrypt aes-128 --key-uri URI (HLS only) encrypts each media segment whole instead.
        With --ladder (and/or --subtitles) OUTPUT.m3u8 is a multivariant playlist instead: one
        video rendition per rung, all cut at the same times, each segment starting with a
        keyframe (the input's size: its own packets where no mark shows; smaller rungs encoded
        at their rate, marks laid out on their picture), one audio rendition per audio stream
        (copied, or AAC), each caption as segmented WebVTT; BANDWIDTH and AVERAGE-BANDWIDTH are
        measured from the segments written, CODECS read from them; the multivariant playlist last.
        Every frame keeps its presentation time; if the picture changes size mid-stream,
        later sizes are scaled to fit the first between black bars (with a notice).
        Timestamps that jump in an MPEG-TS input (segments joined with cat, a clock that
        wraps) are shifted to follow on, every stream alike, with one notice.
        A size option scales the picture (swscale's Lanczos filter) before it is marked, so
        marks are laid out and drawn at the output's size; never up unless --upscale.
        The input's container tags are kept; --set-metadata replaces title, comment or copyright.
        OUTPUT appears only when complete; an existing OUTPUT is kept unless -y (which, for
        a playlist, also removes the segments only the replaced presentation listed).

        One file alone: --only-segment NAME writes to OUTPUT the file NAME of the student's
        copy that `batch` (and `serve`) make with the same marks, --var values, --segment,
        --ladder, --subtitles, --render and encode options, byte for byte (and the file
        `transcode INPUT X.m3u8` lists where a transcode shares as a class does: smart
        rendering, no variant layer): K (0 is the first) or
        init for a single rendition, RENDITION/FILE for any file of any rendition (720p/3.m4s,
        720p/init.mp4, audio-en/3.m4s, subs-en/0.vtt), playlist.m3u8 or RENDITION.m3u8 for a
        playlist (its files named RENDITION/FILE, so files written one by one under those
        names play together). It seeks to the segment and decodes only its GOPs when a mark
        shows in it, and only reads a segment it copies. A batch row's segment: the row's
        --var values, with --render smart where the batch shares segments (H.264 input) and
        full where it cannot. -v says what it took ("segment 3 of 10: copied (shared), 0
        pictures decoded").

        Smart rendering (--render): when the marks show only at times (start/end,
        interval/skip), only the GOPs in which a mark is visible are decoded, marked and
        encoded again, in the input's codec, profile, size and pixel format; every other
        video packet is the input's own, copied. auto (the default) does this where it is
        possible and leaves at least a fifth of the video copied, else renders in full,
        with one notice line only where the reason is one you could act on (an input
        codec or picture it cannot splice, less than a fifth left to copy): a mark shown
        in every GOP needs every frame anyway (-v and --progress json say why);
        smart exits 64 naming the reason where it is impossible; full re-encodes every
        frame. The summary says how much was re-encoded ("re-encoded 8.0 s of 20.0 s").

        A variant layer (docs/design/variant-marks.md) makes this the copy of the student the --var
        values name: their variant of the layer drawn period by period (none in a period where
        another of their marks shows), every frame rendered in one render (a batch renders a
        lecture's q variants once for the class), the pictures of their batch row, in any
        output (a file, an .m3u8, a ladder with captions). It needs the key (--key-file);
        --render smart is refused with it.
        """)

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        try size.validate(command: Self.name)
        (encode.settings.scale, encode.settings.upscale) = (size.request, size.upscale)
        try metadata.validate(for: .video, command: Self.name)
        encode.settings.tags = metadata.tags
        let target = try OutputTarget(path: output, part: onlyPart)
        try encode.validate(command: Self.name, output: target)
        self.target = try hls.validate(command: Self.name, output: target)
    }

    func run(console: Console) throws {
        outputOptions.configure(console)
        guard let target else { preconditionFailure("validate() parses OUTPUT before run") }
        let config = try marks.config(console: console, command: Self.name)
        let display = TranscodeProgressDisplay(mode: outputOptions.progress, console: console, label: input)
        var transcoder = Transcoder(input: input, output: target, config: config, variables: marks.variables, settings: encode.settings,
                                    overwrite: outputOptions.overwrite, damagePolicy: encode.damagePolicy, render: encode.render,
                                    warn: console.warningHandler,
                                    progress: { done, total, frames in display.update(done: done, total: total, frames: frames) },
                                    onRender: { outcome in
                                        if let notice = outcome.notice {
                                            console.info(notice)
                                        } else if console.verbosity == .verbose, let decision = outcome.decision {
                                            console.info("render: \(decision)")
                                        }
                                        display.reencodedShare = outcome.isSmart ? outcome.reencodedShare : nil
                                        display.render = outcome
                                    })
        transcoder.hls = hls.settings
        transcoder.ladder = hls.ladderOptions
        transcoder.protection = try hls.protection()
        let summary = try transcoder.run()
        display.finish(damaged: summary.damagedPackets)
        if let line = summary.render.summary, onlyPart == nil { console.info("\(output): \(line)") }
        if console.verbosity == .verbose {
            if let segment = summary.segment { console.info("\(output): \(segment.summary)") }
            for span in summary.spans { console.info("\(output): \(span.summary)") }
            console.info("\(output): \(summary.videoFrames) video frames written")
        }
    }

    /// A file's name in a presentation: `K`, `init`, `RENDITION/FILE` or a playlist's name, each
    /// part letters, digits, '-', '_' and '.' (not first); what it names is the lecture's to say.
    private static func presentationPart(_ text: String, option: String, command: String) throws -> PresentationPart {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let safe = parts.count <= 2 && parts.allSatisfy { part in
            part.first.map { $0 != "." } == true && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }
        guard safe else {
            throw UsageError("\(option) takes a segment number, init, RENDITION/FILE (720p/3.m4s) or a playlist's name (playlist.m3u8, 720p.m3u8); got '\(text)'", command: command)
        }
        return PresentationPart(name: text)
    }
}
