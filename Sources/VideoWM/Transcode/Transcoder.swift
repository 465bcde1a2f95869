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

/// `videowm transcode`: one student's copy of the input (the `--var`s' student), written whole or
/// one file of it.
///
/// - **A media file** (`.mp4`, `.mkv`, …): every video frame decoded, marked at its presentation
///   time and re-encoded — or, with smart rendering, only the GOPs in which a mark is visible — and
///   every other stream the output container accepts copied untouched. The stages follow FFmpeg's
///   `doc/examples/transcode.c`: demux and decode (`VideoSource`), mark (`FrameMarker` with a
///   `Compositor`), encode and mux (`MarkedOutput`), with timestamps rescaled at every time-base
///   boundary and flushing as its own step.
/// - **An HLS presentation** (`.m3u8`, with or without a ladder and captions), or one file of it
///   (`--only-segment`): the copy of a `Lecture` prepared for one student, written by the lecture
///   as a batch or a server makes it (`Lecture.write`, `StudentCopy.render`).
public struct Transcoder {
    /// The input video (a path, or an http(s) URL).
    public var input: String
    /// The output, parsed once by the caller (its kind and container).
    public var output: OutputTarget
    public var config: WatermarkConfig
    /// The student's variables (`--var`).
    public var variables: [String: String]
    public var settings: EncodeSettings
    /// How an `.m3u8` output is segmented.
    public var hls = HLSSettings()
    /// `--ladder`/`--subtitles`: an `.m3u8` output becomes a multivariant playlist of renditions.
    public var ladder: LadderOptions?
    /// `--encrypt cenc|cbcs`: the presentation's segments encrypted as they are published, or nil.
    public var protection: SegmentProtection?
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

    public init(input: String, output: OutputTarget, config: WatermarkConfig, variables: [String: String], settings: EncodeSettings,
                overwrite: Bool, damagePolicy: DamagePolicy = .warn, render: RenderMode = .full, warn: @escaping WarningHandler,
                progress: ProgressHandler? = nil, onRender: ((RenderOutcome) -> Void)? = nil) {
        self.input = input
        self.output = output
        self.config = config
        self.variables = variables
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
        // Settings the encoder or the container would refuse are refused before the input is read.
        try settings.validate(for: output)
        switch output.kind {
        case .hlsPresentation: return try writePresentation()
        case .hlsPart(let part): return try writePart(part)
        case .file: return try writeFile()
        }
    }

    /// The lecture this transcode makes one student's copy of: prepared for them alone (a whole
    /// copy), or (one file, `--only-segment`) for a class, so the file is the one `batch` writes
    /// and `serve` serves for the same variables — what a file made on demand is for.
    public func lectureDefinition(audience: LectureDefinition.Audience = .oneStudent) -> LectureDefinition {
        LectureDefinition(name: (input as NSString).lastPathComponent, video: input, marks: .loaded(config), ladder: ladder?.request,
                          captions: ladder?.subtitles ?? [], segment: hls.segment, settings: settings, render: render,
                          damagePolicy: damagePolicy, audience: audience)
    }

    /// A media file: the student's marks drawn (a variant layer's variants by their codeword, in one
    /// full render), smart-rendered where `render` allows it, with `auto` falling back to a full
    /// render when a splice fails midway.
    private func writeFile() throws -> TranscodeSummary {
        let compositor = try Compositor.forJob(config: config, variables: variables, warn: warn)
        var settings = self.settings, render = self.render
        // Indexing the input for a variant copy's periods says nothing: the transcode that follows says it once.
        if let schedule = try VariantCopy.schedule(config: config, input: input, variables: variables, compositor: compositor, render: render) {
            compositor.variantSchedule = schedule
            settings = settings.forVariantLecture
            render = .full
        }
        var copy = self
        copy.settings = settings
        copy.render = render
        return try copy.transcode(compositor: compositor)
    }

    private func transcode(compositor: Compositor) throws -> TranscodeSummary {
        let source = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
        let (job, outcome) = try RenderPlanner(mode: render, source: source, settings: settings).decide(target: output, compositor: compositor)
        guard let job else { return try transcode(source, compositor: compositor, splice: nil, outcome: outcome) }
        do {
            return try transcode(source, compositor: compositor, splice: job, outcome: outcome)
        } catch let failure as SpliceSink.Failure {
            // Found while encoding (a span the encoder could not fit); nothing was written.
            let fallback = try failure.fallback(under: render, input: input)
            let fresh = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
            return try transcode(fresh, compositor: compositor, splice: nil, outcome: fallback)
        }
    }

    /// An `.m3u8` output: the student's copy of the lecture written whole, every file beside the
    /// playlist, the playlist last (docs/design/hls.md §13, §15).
    private func writePresentation() throws -> TranscodeSummary {
        let lecture = try Lecture.prepare(lectureDefinition(), warn: warn)
        var failure: Error?
        var outcome: RenderOutcome?
        var announced = false
        let total = lecture.duration.seconds
        var writing = CopyWriting(overwrite: overwrite, sharedFolder: nil, onFailed: { _, error in failure = error }, progress: { reached, frames in
            if !announced {
                announced = true
                onRender?(outcome ?? .full)
            }
            progress?(reached.seconds, total, frames)
        })
        writing.onStarted = { _, decided in outcome = decided }
        writing.protection = protection
        let summary = try lecture.write([CopyRequest(variables: variables, target: output)], writing)
        if let failure { throw failure }
        if summary.damagedPackets > 0 {
            warn("\(input): \(summary.damagedPackets) damaged packet(s) or frame(s) concealed; \(output.path) is complete but may show glitches there")
        }
        return TranscodeSummary(videoFrames: summary.videoFrames, droppedStreams: lecture.droppedStreams, damagedPackets: summary.damagedPackets,
                                render: outcome ?? .full)
    }

    /// One file of the student's copy made alone (`--only-segment`), byte for byte the file a
    /// batch row and a server have for the same variables: a media segment's GOPs decoded only
    /// when it is re-encoded, a copied one only read. A playlist names every file by its `RENDITION/FILE` name (media playlists
    /// `RENDITION.m3u8`): the layout files written this way one by one make together.
    private func writePart(_ part: PresentationPart) throws -> TranscodeSummary {
        let lecture = try Lecture.prepare(lectureDefinition(audience: .classOfStudents), warn: warn)
        let copy = try lecture.student(variables: variables)
        let file = try AtomicOutput(target: output.path, overwrite: overwrite, inputs: [input] + (ladder?.subtitles.map(\.file) ?? []))
        var summary = TranscodeSummary(videoFrames: 0, droppedStreams: lecture.droppedStreams, damagedPackets: 0, render: .full)
        switch try lecture.part(named: part.name, of: copy) {
        case .playlist(let text):
            try file.write(Array(text.utf8))
        case .resource(let resource, let place):
            let made = try copy.render(resource)
            try file.write(made.bytes)
            summary.videoFrames = made.videoSamples ?? 0
            if let place, let decoded = made.decodedPictures {
                summary.segment = SegmentReport(index: place.index, of: place.of, isShared: copy.ownership(of: resource) == .shared,
                                                decodedPictures: decoded, encodedPictures: made.encodedPictures ?? 0)
            }
        }
        try file.commit()
        return summary
    }

    private func transcode(_ source: VideoSource, compositor: Compositor, splice: SpliceJob?, outcome: RenderOutcome) throws -> TranscodeSummary {
        let target = output
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
            warn("\(input): \(source.damagedPackets) damaged packet(s) or frame(s) concealed; \(output.path) is complete but may show glitches there")
        }
        return TranscodeSummary(videoFrames: sink.framesWritten, droppedStreams: sink.droppedStreams, damagedPackets: source.damagedPackets,
                                render: outcome, spans: sink.spanQualities)
    }
}
