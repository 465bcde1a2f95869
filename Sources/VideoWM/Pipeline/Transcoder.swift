import Animation
import Foundation
import Overlay

/// What a finished transcode reports.
public struct TranscodeSummary: Sendable {
    public var videoFrames: Int
    public var droppedStreams: [String]
    /// Damaged packets or frames the decoder concealed (only with `DamagePolicy.warn`).
    public var damagedPackets: Int
}

/// Progress of a running job: presentation time reached, the total (when known), frames.
public typealias ProgressHandler = (_ doneSeconds: Double, _ totalSeconds: Double?, _ frames: Int) -> Void

/// `videowm transcode`: every video frame decoded, marked at its presentation time and
/// re-encoded; every other stream the output container accepts copied untouched.
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
    public var warn: WarningHandler
    public var progress: ProgressHandler?

    public init(input: String, output: String, compositor: Compositor, settings: EncodeSettings, overwrite: Bool,
                damagePolicy: DamagePolicy = .warn, warn: @escaping WarningHandler, progress: ProgressHandler? = nil) {
        self.input = input
        self.output = output
        self.compositor = compositor
        self.settings = settings
        self.overwrite = overwrite
        self.damagePolicy = damagePolicy
        self.warn = warn
        self.progress = progress
    }

    public func run() throws -> TranscodeSummary {
        // An output kind that is refused (DASH) is refused before the input is opened.
        _ = try OutputKind(path: output)
        // Settings the encoder or the container would refuse are refused before the input is read.
        try settings.validate(forOutput: output)
        let source = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
        let sink = try MarkedOutput(source: source, target: output, compositor: compositor, settings: settings, hls: hls,
                                    overwrite: overwrite, unmarkedVideo: .reencode, warn: warn)
        let total = source.input.durationSeconds
        try source.run(onFrame: { timed in
            try sink.consume(timed, exclusive: true)
            progress?(source.lastTimeSeconds, total, sink.framesWritten)
        }, onPacket: { packet in
            try sink.passThrough(packet)
        })
        try sink.finish()
        if source.damagedPackets > 0 {
            warn("\(input): \(source.damagedPackets) damaged packet(s) or frame(s) concealed; \(output) is complete but may show glitches there")
        }
        return TranscodeSummary(videoFrames: sink.framesWritten, droppedStreams: sink.droppedStreams, damagedPackets: source.damagedPackets)
    }
}
