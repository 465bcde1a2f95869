import Animation
import Foundation
import Overlay

/// What a finished transcode reports.
public struct TranscodeSummary: Sendable {
    /// Video frames written.
    public var videoFrames: Int
    /// Streams left out of the output, one phrase each.
    public var droppedStreams: [String]
    /// Damaged packets or frames the decoder concealed (only with `DamagePolicy.warn`).
    public var damagedPackets: Int
    /// How the video was rendered, and for smart rendering the share re-encoded.
    public var render: RenderOutcome
    /// For one segment made alone (`--only-segment`): what it took.
    public var segment: SegmentReport?
    /// A smart render's quality-matched spans: the CRF each took and, where the input's quality was
    /// out of reach, why the search stopped (`-v` prints them).
    public var spans: [SpanQualityReport] = []
}

/// What making one segment alone took: the work `-v` reports and tests count.
public struct SegmentReport: Sendable, Equatable {
    /// The segment's index, 0 for the first.
    public var index: Int
    /// How many segments the presentation has.
    public var of: Int
    /// No mark of the row shows on it: the input's packets, read and not decoded.
    public var isShared: Bool
    /// Pictures decoded to make it.
    public var decodedPictures: Int
    /// Pictures encoded into it.
    public var encodedPictures: Int

    /// "segment 3 of 10: copied (shared), 0 pictures decoded" / "…: re-encoded, 180 pictures decoded, 180 encoded".
    public var summary: String {
        "segment \(index) of \(of): " + (isShared ? "copied (shared), \(decodedPictures) pictures decoded"
            : "re-encoded, \(decodedPictures) pictures decoded, \(encodedPictures) encoded")
    }
}

/// Progress of a running job: presentation time reached, the total (when known), frames.
public typealias ProgressHandler = (_ doneSeconds: Double, _ totalSeconds: Double?, _ frames: Int) -> Void

/// `videowm transcode`: every video frame decoded, marked at its presentation time and
/// re-encoded — or, with smart rendering, only the GOPs in which a mark is visible — and
/// every other stream the output container accepts copied untouched.
///
/// The stages follow FFmpeg's `doc/examples/transcode.c`: demux and decode (`VideoSource`),
/// mark (`FrameMarker` with a `Compositor`), encode and mux (`MarkedOutput`), with
/// timestamps rescaled at every time-base boundary and flushing as its own step.
public struct Transcoder {
    /// The input video (a path, or an http(s) URL).
    public var input: String
    /// The output: a file, a playlist (`.m3u8`), or one file of a presentation (`onlyPart`).
    public var output: String
    /// The marks, bound to one student's values.
    public var compositor: Compositor
    /// How the video is encoded.
    public var settings: EncodeSettings
    /// How an `.m3u8` output is segmented.
    public var hls = HLSSettings()
    /// `--ladder`/`--subtitles`: an `.m3u8` output becomes a multivariant playlist of renditions.
    public var ladder: LadderOptions?
    /// Write only this file of the presentation `output` would be (`--only-segment`), to `output`.
    public var onlyPart: PresentationPart?
    /// Replace an existing output (`-y`).
    public var overwrite: Bool
    /// What a damaged input packet does: conceal and count, or stop.
    public var damagePolicy: DamagePolicy
    /// How much is encoded again: every frame, only the marked GOPs, or what is worthwhile.
    public var render: RenderMode
    /// Hears warnings and notices.
    public var warn: WarningHandler
    /// Hears the progress: seconds done, in all, and frames written; called often.
    public var progress: ProgressHandler?
    /// Hears how the video is rendered once the output has its first frame (again if a splice fails
    /// and `auto` falls back to a full render): a job that fails before that says only its error.
    public var onRender: ((RenderOutcome) -> Void)?

    /// A transcode of `input` into `output`; see the properties for each parameter.
    public init(input: String, output: String, compositor: Compositor, settings: EncodeSettings, overwrite: Bool,
                damagePolicy: DamagePolicy = .warn, render: RenderMode = .full, warn: @escaping WarningHandler,
                progress: ProgressHandler? = nil, onRender: ((RenderOutcome) -> Void)? = nil) {
        self.input = input
        self.output = output
        self.compositor = compositor
        self.settings = settings
        self.overwrite = overwrite
        self.damagePolicy = damagePolicy
        self.render = render
        self.warn = warn
        self.progress = progress
        self.onRender = onRender
    }

    /// Makes the output. Settings the encoder or the container cannot honour are refused before the input is opened; the output appears only when complete.
    public func run() throws -> TranscodeSummary {
        // An output kind that is refused (DASH), and settings the encoder or the container would
        // refuse, are refused before the input is read.
        let target = try OutputTarget(path: output, part: onlyPart)
        try settings.validate(for: target)
        switch target.kind {
        case .hlsPresentation:
            if let ladder { return try writeLadder(ladder, to: target) }
            return try writePresentation(target)
        case .hlsPart(let part): return try writePart(part, to: target)
        case .file: break
        }
        let source = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
        let (job, outcome) = try RenderPlanner(mode: render, source: source, settings: settings).decide(target: target, compositor: compositor)
        guard let job else { return try transcode(source, to: target, splice: nil, outcome: outcome) }
        do {
            return try transcode(source, to: target, splice: job, outcome: outcome)
        } catch let failure as SpliceSink.Failure {
            // Found while encoding (a span the encoder could not fit); nothing was written.
            if render == .smart { throw failure.smartRenderError(input: input) }
            let fallback = RenderOutcome(isSmart: false, notice: "render: full (the splice failed: \(failure.reason))")
            let fresh = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
            return try transcode(fresh, to: target, splice: nil, outcome: fallback)
        }
    }

    /// An `.m3u8` output: the input indexed (`PresentationSource`), the row's rendering chosen by
    /// `--render` (segments in which no mark shows copied, or every segment encoded), and every
    /// segment made and published in order, the playlist last.
    private func writePresentation(_ target: OutputTarget) throws -> TranscodeSummary {
        let source = try PresentationSource(input: input, settings: settings, segment: hls.segmentDuration, damagePolicy: damagePolicy, warn: warn)
        let row = try PresentationRow(source: source, compositor: compositor, mode: render, forBatch: false, warn: warn)
        let folder = try PresentationFolder(playlist: target.path, overwrite: overwrite, inputs: [input], sharedFolder: nil, warn: warn)
        var announced = false
        let total = source.duration.seconds
        let summary = try PresentationWriter.write(row, to: folder) { reached, frames in
            if !announced {
                announced = true
                onRender?(row.outcome)
            }
            progress?(reached.seconds, total, frames)
        }
        if summary.damagedPackets > 0 {
            warn("\(input): \(summary.damagedPackets) damaged packet(s) or frame(s) concealed; \(output) is complete but may show glitches there")
        }
        return TranscodeSummary(videoFrames: summary.videoFrames, droppedStreams: source.droppedStreams, damagedPackets: summary.damagedPackets,
                                render: row.outcome)
    }

    /// An `.m3u8` output with renditions (docs/design/hls.md §15): the lecture prepared (`LectureLadder`),
    /// the one student's ladder written in one pass, every file beside the multivariant playlist.
    private func writeLadder(_ options: LadderOptions, to target: OutputTarget) throws -> TranscodeSummary {
        let folder = try LadderFolder(multivariant: target.path, overwrite: overwrite, inputs: [input] + options.subtitles.map(\.file),
                                      sharedFolder: nil, warn: warn)
        let lecture = try LectureLadder(input: input, ladder: options.request, subtitles: options.subtitles, settings: settings,
                                        segment: hls.segmentDuration, damagePolicy: damagePolicy, render: render, warn: warn)
        let row = try lecture.student(compositor: compositor, warn: warn)
        var failure: Error?
        var announced = false
        let total = lecture.source.duration.seconds
        let summary = try LadderWriter.write([LadderWriter.Student(row: row, folder: folder)], lecture: lecture, shared: LadderWriter.SharedFiles(),
                                             onFailed: { _, error in failure = error }, progress: { reached, frames in
            if !announced {
                announced = true
                onRender?(row.outcome)
            }
            progress?(reached.seconds, total, frames)
        })
        if let failure { throw failure }
        if summary.damagedPackets > 0 {
            warn("\(input): \(summary.damagedPackets) damaged packet(s) or frame(s) concealed; \(output) is complete but may show glitches there")
        }
        return TranscodeSummary(videoFrames: summary.videoFrames, droppedStreams: lecture.source.droppedStreams, damagedPackets: summary.damagedPackets,
                                render: row.outcome)
    }

    /// One file of the presentation: the initialization segment, or media segment `k` made
    /// alone (its GOPs decoded only when it is re-encoded), byte for byte as the whole
    /// presentation has it.
    private func writePart(_ part: PresentationPart, to target: OutputTarget) throws -> TranscodeSummary {
        let source = try PresentationSource(input: input, settings: settings, segment: hls.segmentDuration, damagePolicy: damagePolicy, warn: warn)
        let row = try PresentationRow(source: source, compositor: compositor, mode: render, forBatch: false, warn: warn)
        let file = try AtomicOutput(target: target.path, overwrite: overwrite, inputs: [input])
        var summary = TranscodeSummary(videoFrames: 0, droppedStreams: source.droppedStreams, damagedPackets: 0, render: row.outcome)
        switch part {
        case .initialization:
            try file.write(try row.initializationSegment().bytes)
        case .segment(let k):
            let count = row.segments.count
            guard (0..<count).contains(k) else {
                throw RequestError(subject: "--only-segment \(k)", problem: "\(input) makes \(count) segment\(count == 1 ? "" : "s") (0 to \(count - 1)) at --segment \(hls.segmentDuration.secondsText(decimals: 3))")
            }
            let segment = try row.render(segment: k)
            try file.write(segment.bytes)
            summary.videoFrames = segment.videoSamples
            summary.segment = SegmentReport(index: k, of: count, isShared: segment.isShared, decodedPictures: segment.decodedPictures,
                                            encodedPictures: segment.encodedPictures)
        }
        try file.commit()
        onRender?(row.outcome)
        return summary
    }

    private func transcode(_ source: VideoSource, to target: OutputTarget, splice: SpliceJob?, outcome: RenderOutcome) throws -> TranscodeSummary {
        let plan = try OutputPlan.make(source: source, target: target, compositor: compositor, settings: settings, unmarkedVideo: .reencode,
                                       splice: splice)
        let sink = try MarkedOutput(plan: plan, source: source, compositor: compositor, settings: settings, overwrite: overwrite, warn: warn)
        var announced = false
        func announceOnceWritten() {
            guard !announced && sink.framesWritten > 0 else { return }
            announced = true
            onRender?(outcome)
        }
        let total = source.input.durationSeconds
        let selection = splice.flatMap { RenderPlanner.decodeSelection(index: $0.index, for: [$0], anyFullRender: false) }
        try source.run(selection: selection, onFrame: { timed in
            try sink.consume(timed, exclusive: true)
            announceOnceWritten()
            progress?(source.lastTimeSeconds, total, sink.framesWritten)
        }, onPacket: { packet, videoPacket in
            try sink.passThrough(packet, videoPacket: videoPacket)
            announceOnceWritten()
            if splice != nil && videoPacket != nil { progress?(source.positionSeconds, total, sink.framesWritten) }
        }, onDecodeRunEnd: { end in
            try sink.decodeRunEnded(before: end)
        })
        try sink.finish()
        announceOnceWritten()
        if let notice = source.timestampJumpNotice { warn(notice) }
        if source.damagedPackets > 0 {
            warn("\(input): \(source.damagedPackets) damaged packet(s) or frame(s) concealed; \(output) is complete but may show glitches there")
        }
        return TranscodeSummary(videoFrames: sink.framesWritten, droppedStreams: sink.droppedStreams, damagedPackets: source.damagedPackets,
                                render: outcome, spans: sink.spanQualities)
    }
}
