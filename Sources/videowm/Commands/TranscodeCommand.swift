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

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .parsed("--only-segment", placeholder: "K|init",
                    help: "write only segment K (0 is the first) or the initialization segment (init) of the HLS presentation these options make, to OUTPUT; byte for byte that presentation's file",
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
        usage: "videowm transcode INPUT OUTPUT -c CONFIG [--var KEY=VALUE]... [--render MODE] [encode options] [size options] [--set-metadata KEY=VALUE]... [--only-segment K|init] [-y]",
        discussion: """
        Decodes every frame of INPUT, marks it at its presentation time and re-encodes it;
        audio, subtitle and data streams are copied (audio the container cannot hold is
        re-encoded; text subtitles become mov_text or WebVTT). The container follows OUTPUT's
        extension (.mp4 .mov .mkv .webm …); MP4/MOV get their index at the front.
        OUTPUT.m3u8 writes an HLS presentation instead: fMP4 segments with the audio muxed
        in, beside the playlist (named OUTPUT-HASH.m4s by their content), the playlist written
        last. With --render auto or smart an H.264 input is cut at its own IDRs near every
        --segment seconds and only the segments where a mark shows are re-encoded; with
        --render full every frame is, on keyframes forced every --segment seconds. .mpd is refused.
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

        One segment alone: --only-segment K writes to OUTPUT what file K of the playlist
        that `transcode INPUT X.m3u8` with the same marks, --segment, --render and encode
        options would list (0 is the first; init, the initialization segment), byte for
        byte; it seeks to the segment and decodes only its GOPs when a mark shows in it, and
        only reads a segment it copies. A batch row's segment: the row's --var values, with
        --render smart where the batch shares segments (H.264 input) and full where it
        cannot. -v says what it took ("segment 3 of 10: copied (shared), 0 pictures decoded").

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
        another of their marks shows), every frame rendered, the pictures of their batch row
        (an .m3u8's files are that row's). It needs the key
        (--key-file); --ladder, --subtitles and --render smart are refused with it.
        """)

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        try size.validate(command: Self.name)
        (encode.settings.scale, encode.settings.upscale) = (size.request, size.upscale)
        try metadata.validate(for: .video, command: Self.name)
        encode.settings.tags = metadata.tags
        let target = try OutputTarget(path: output, part: onlyPart)
        try encode.validate(command: Self.name, output: target)
        try hls.validate(command: Self.name, output: target)
        if onlyPart != nil && hls.ladderOptions != nil {
            throw UsageError("--only-segment makes one file of a single-rendition presentation; a ladder's segments are made alone through the library (LadderRow.render)", command: Self.name)
        }
    }

    func run(console: Console) throws {
        outputOptions.configure(console)
        let config = try marks.config(console: console, command: Self.name)
        let compositor = try Compositor.forJob(config: config, variables: marks.variables, warn: console.warningHandler)
        let display = TranscodeProgressDisplay(mode: outputOptions.progress, console: console, label: input)
        var transcoder = Transcoder(input: input, output: output, compositor: compositor, settings: encode.settings,
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
        transcoder.onlyPart = onlyPart
        try drawVariants(of: config, into: &transcoder, console: console)
        let summary = try transcoder.run()
        display.finish(damaged: summary.damagedPackets)
        if let line = summary.render.summary, onlyPart == nil { console.info("\(output): \(line)") }
        if console.verbosity == .verbose {
            if let segment = summary.segment { console.info("\(output): \(segment.summary)") }
            for span in summary.spans { console.info("\(output): \(span.summary)") }
            console.info("\(output): \(summary.videoFrames) video frames written")
        }
    }

    /// With a variant layer, the copy is one student's (docs/design/variant-marks.md §6): the layer draws
    /// their codeword's variant period by period (`VariantCopy`), every frame rendered (the layer
    /// shows in all of them) and encoded as a variant lecture is (no B-frames); an `.m3u8` is cut
    /// a segment per period, so its files are the ones `batch` lists for the same row (its shared
    /// ones without their padding). The code needs the key (64 without it).
    private func drawVariants(of config: WatermarkConfig, into transcoder: inout Transcoder, console: Console) throws {
        guard let layer = config.variantLayer else { return }
        if hls.ladderOptions != nil {
            throw UsageError("--ladder and --subtitles with a variant layer (\(config.file): \(layer.path).variants) are written by 'batch' (a one-row --vars CSV makes one student's ladder), not by transcode", command: Self.name)
        }
        if encode.render == .smart {
            throw UsageError("--render smart copies the input's packets, but a variant layer is drawn on every frame; leave --render out", command: Self.name)
        }
        var hls = self.hls
        try hls.adoptVariantPeriod(of: config, command: Self.name)
        // Indexing the input says nothing: the transcode that follows says it once.
        guard let schedule = try VariantCopy.schedule(config: config, input: input, variables: marks.variables, compositor: transcoder.compositor) else { return }
        transcoder.compositor.variantSchedule = schedule
        transcoder.hls = hls.settings
        transcoder.settings = transcoder.settings.forVariantLecture
        transcoder.render = .full
    }

    private static func presentationPart(_ text: String, option: String, command: String) throws -> PresentationPart {
        if text == "init" { return .initialization }
        return .segment(try Parse.integer(text, option: option, command: command, range: 0...1_000_000))
    }
}
