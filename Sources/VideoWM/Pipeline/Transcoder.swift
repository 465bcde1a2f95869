import Animation
import Foundation
import Overlay

/// What a finished transcode reports.
public struct TranscodeSummary: Sendable {
    public var videoFrames: Int
    public var droppedStreams: [String]
    /// Damaged packets or frames the decoder concealed (only with `DamagePolicy.warn`).
    public var damagedPackets: Int
    /// How the video was rendered, and for smart rendering the share re-encoded.
    public var render: RenderOutcome
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
    public var input: String
    public var output: String
    public var compositor: Compositor
    public var settings: EncodeSettings
    /// How an `.m3u8` output is segmented.
    public var hls = HLSSettings()
    public var overwrite: Bool
    public var damagePolicy: DamagePolicy
    public var render: RenderMode
    public var warn: WarningHandler
    public var progress: ProgressHandler?
    /// Hears how the video is rendered once the output has its first frame (again if a splice fails
    /// and `auto` falls back to a full render): a job that fails before that says only its error.
    public var onRender: ((RenderOutcome) -> Void)?

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

    public func run() throws -> TranscodeSummary {
        // An output kind that is refused (DASH), and settings the encoder or the container would
        // refuse, are refused before the input is read.
        let target = try OutputTarget(path: output)
        try settings.validate(for: target)
        let source = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
        if target.kind == .hlsPresentation {
            let (sharing, outcome) = try presentationRendering(of: source, target: target)
            return try transcode(source, to: target, splice: nil, sharing: sharing, outcome: outcome)
        }
        let (job, outcome) = try RenderPlanner(mode: render, source: source, settings: settings).decide(target: target, compositor: compositor)
        guard let job else { return try transcode(source, to: target, splice: nil, outcome: outcome) }
        do {
            return try transcode(source, to: target, splice: job, outcome: outcome)
        } catch let failure as SpliceSink.Failure {
            // Found while encoding (a span the encoder could not fit); nothing was written.
            if render == .smart { throw RenderError(file: input, reason: failure.reason) }
            let fallback = RenderOutcome(isSmart: false, notice: "render: full (the splice failed: \(failure.reason))")
            let fresh = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
            return try transcode(fresh, to: target, splice: nil, outcome: fallback)
        }
    }

    /// An `.m3u8` output is smart-rendered by whole segments rather than GOP splices: cut at the
    /// input's closed IDRs, a segment in which no mark shows is the input's packets, the others
    /// are re-encoded (`SegmentSharing`, as a batch's rows share their unmarked segments). `auto`'s
    /// notice follows `RenderDecision`'s rule: only for a fallback the user could act on.
    private func presentationRendering(of source: VideoSource, target: OutputTarget) throws -> (SegmentSharing?, RenderOutcome) {
        guard render != .full else { return (nil, .full) }
        func full(_ reason: String, notable: Bool) -> RenderOutcome {
            RenderOutcome(isSmart: false, notice: notable ? "render: full (\(reason))" : nil, reason: reason)
        }
        switch try SegmentSharing.prepare(source: source, settings: settings, target: hls.segmentDuration, output: target) {
        case .failure(let refusal):
            if render == .smart { throw RenderError(file: input, reason: "its HLS segments cannot be copied: \(refusal)") }
            let planner = RenderPlanner(mode: render, source: source, settings: settings)
            return (nil, full(refusal.reason, notable: !refusal.askedByOptions && !planner.marksNeverHide(compositor)))
        case .success(let sharing):
            let outcome = sharing.outcome(markedBy: compositor)
            guard render == .auto && outcome.reencodedShare > RenderDecision.worthwhileShare else { return (sharing, outcome) }
            let covered = Int((outcome.reencodedShare * 100).rounded())
            // Marks in every segment are the usual always-on mark: the full render is simply what it costs.
            if covered == 100 { return (nil, full("a mark is visible in every segment", notable: false)) }
            return (nil, full("marks are visible in segments covering \(covered)% of the video, and copying needs a fifth of it unmarked",
                              notable: true))
        }
    }

    private func transcode(_ source: VideoSource, to target: OutputTarget, splice: SpliceJob?, sharing: SegmentSharing? = nil,
                           outcome: RenderOutcome) throws -> TranscodeSummary {
        let sink = try MarkedOutput(source: source, target: target, compositor: compositor, settings: settings, hls: hls,
                                    sharing: sharing, overwrite: overwrite, unmarkedVideo: .reencode, splice: splice, warn: warn)
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
                                render: outcome)
    }
}
