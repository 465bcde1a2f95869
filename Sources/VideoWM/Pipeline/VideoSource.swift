import Animation
import Foundation
import Overlay

/// What to do with damaged packets in the input (`--errors`).
public enum DamagePolicy: String, Sendable, CaseIterable {
    /// Conceal, count and report them; the output completes.
    case warn
    /// Stop at the first one: exit 65, no output.
    case fail
}

/// The demuxing and video-decoding half of a job: reads the input once and hands each
/// decoded video frame (with its presentation time) and every other packet to a sink.
///
/// A transcode has one sink; a batch group has several, all fed from one decode.
final class VideoSource {
    let input: InputFile
    /// The video stream, and what it holds (size, pixel format, colour, rotation…).
    let stream: InputStream
    let video: VideoStreamDescription
    let decoder: Decoder
    let damagePolicy: DamagePolicy
    private var clock: FrameClock
    private var lastPts: Int64?
    private var lastDuration: Int64 = 0
    /// Damaged packets and frames seen so far (concealed by the decoder).
    private(set) var damagedPackets = 0
    private(set) var lastTimeSeconds = 0.0
    private(set) var framesDecoded = 0

    var path: String { input.path }
    var videoIndex: Int { stream.index }
    var width: Int { video.width }
    var height: Int { video.height }
    var rotation: DisplayRotation { video.rotation }
    /// The stored pixels' shape (the stream's sample aspect ratio); square when unknown.
    var pixelAspect: PixelAspect { video.pixelAspect }

    init(path: String, threads: Int, damagePolicy: DamagePolicy) throws {
        input = try InputFile(path: path)
        let stream = try Self.videoStream(of: input)
        self.stream = stream
        video = stream.video
        decoder = try Decoder(stream: stream, file: path, threads: threads)
        clock = FrameClock(timeBaseNumerator: stream.timeBase.numerator, timeBaseDenominator: stream.timeBase.denominator)
        self.damagePolicy = damagePolicy
    }

    /// The video stream a job marks: FFmpeg's best, with a picture size inside the limits —
    /// refused before any frame is decoded, so a hostile header cannot make us allocate gigabytes.
    static func videoStream(of input: InputFile) throws -> InputStream {
        let path = input.path
        guard let stream = input.bestVideoStream() else { throw MediaError(file: path, detail: "has no video stream") }
        let width = stream.video.width, height = stream.video.height
        guard width > 0, height > 0 else { throw MediaError(file: path, detail: "the video stream has no picture size") }
        guard width <= maximumSide, height <= maximumSide, width * height <= maximumPixels else {
            throw MediaError(file: path, detail: "declares \(width)×\(height) video, over the limit of \(maximumSide) a side and \(maximumPixels / 1_000_000) megapixels")
        }
        return stream
    }

    /// Frame size limits: 8K video is 33 megapixels; these leave room above it.
    static let maximumSide = 16384
    static let maximumPixels = 100_000_000

    /// A decoded frame with the time it is shown and the timestamp it keeps in the output.
    struct TimedFrame {
        let frame: Frame
        let time: PresentationTime
        /// In the video stream's time base; filled in when the decoder gave none.
        let pts: Int64
    }

    /// Which video packets a job decodes and which pictures it uses, when not all: smart
    /// rendering decodes only the runs of packets its spans need.
    struct DecodeSelection {
        /// Per input video packet, in decode order: whether to decode it.
        var decodes: [Bool]
        /// The pictures some output re-encodes, by presentation timestamp; others are only references.
        var keeps: Set<Int64>
        /// Time zero of the marks' timelines: the stream's first picture shown (from the packet index).
        var firstPresentationTimestamp: Int64
    }

    /// How far the reading has got, in seconds of the video's presentation time.
    private(set) var positionSeconds = 0.0

    /// Reads the whole input. Video frames go to `onFrame` in presentation order; every packet
    /// (video ones with their index in decode order) to `onPacket`, after any frame it completes.
    /// With a `selection`, only the selected video packets are decoded; each run of them is
    /// drained when it ends, and `onDecodeRunEnd` hears the index of the first packet after it.
    func run(selection: DecodeSelection? = nil, onFrame: (TimedFrame) throws -> Void,
             onPacket: (Packet, _ videoPacket: Int?) throws -> Void, onDecodeRunEnd: (Int) throws -> Void = { _ in }) throws {
        if let selection {
            clock = FrameClock(timeBaseNumerator: stream.timeBase.numerator, timeBaseDenominator: stream.timeBase.denominator,
                               firstTimestamp: selection.firstPresentationTimestamp)
        }
        let keeps = selection?.keeps
        let packet = try Packet()
        let frame = try Frame()
        var videoPacket = 0
        var decoding = false
        while try input.read(into: packet) {
            defer { packet.unref() }
            try Interruption.throwIfRequested()
            guard packet.streamIndex == videoIndex else {
                try onPacket(packet, nil)
                continue
            }
            if let decodes = selection?.decodes {
                if videoPacket < decodes.count && decodes[videoPacket] {
                    try decode(packet, into: frame, keeps: keeps, onFrame: onFrame)
                    decoding = true
                } else if decoding {
                    try drain(into: frame, keeps: keeps, onFrame: onFrame)
                    decoding = false
                    try onDecodeRunEnd(videoPacket)
                }
            } else {
                try decode(packet, into: frame, keeps: nil, onFrame: onFrame)
            }
            if let pts = packet.presentationTimestamp, let first = clock.firstTimestamp ?? selection?.firstPresentationTimestamp {
                let tb = stream.timeBase
                positionSeconds = max(positionSeconds, tb.seconds(pts - first))
            }
            try onPacket(packet, videoPacket)
            videoPacket += 1
        }
        // Flush: drain the decoder so no frame at the end is lost.
        if decoding || selection == nil { try drain(into: frame, keeps: keeps, onFrame: onFrame) }
        try onDecodeRunEnd(videoPacket)
    }

    /// The one notice a job gives when the input's timestamps jumped (MPEG-TS segments joined,
    /// a restarted encoder) and were shifted to follow on; nil when they did not.
    var timestampJumpNotice: String? { Self.timestampJumpNotice(path: path, jumps: input.timestampJumps) }

    /// The notice for `jumps` in the file `path`: one sentence, however many there were.
    static func timestampJumpNotice(path: String, jumps: [(atSeconds: Double, shiftSeconds: Double)]) -> String? {
        guard let first = jumps.first else { return nil }
        func seconds(_ value: Double) -> String {
            (value < 0 ? "\u{2212}" : "+") + String(format: "%.3f", abs(value)) + " s"
        }
        let at = String(format: "%.3f", first.atSeconds)
        if jumps.count == 1 {
            return "\(path): timestamps jump at \(at) s; later times shifted by \(seconds(first.shiftSeconds)) so every frame follows on"
        }
        return "\(path): timestamps jump \(jumps.count) times (first at \(at) s, shifted by \(seconds(first.shiftSeconds))); each later stretch is shifted so every frame follows on"
    }

    /// Sends the end of a run of packets and hands on every frame still inside the decoder,
    /// then readies it for a run that starts at another keyframe.
    private func drain(into frame: Frame, keeps: Set<Int64>?, onFrame: (TimedFrame) throws -> Void) throws {
        try decode(nil, into: frame, keeps: keeps, onFrame: onFrame)
        decoder.flush()
    }

    /// Decodes `packet` (nil: drains). Damage counts only where a picture is used: smart rendering
    /// decodes a GOP before a span for its references alone, and what those show does not matter.
    private func decode(_ packet: Packet?, into frame: Frame, keeps: Set<Int64>?, onFrame: (TimedFrame) throws -> Void) throws {
        try decoder.decode(packet, into: frame, onDamage: { damage, sending in
            if let keeps {
                // The sent packet's own damage counts when its picture is kept; a frame's cannot be placed.
                guard sending, packet?.presentationTimestamp.map(keeps.contains) ?? true else { return }
            }
            try recordDamage(damage)
        }, onFrame: { frame in
            let timed = timed(frame)
            if let keeps, !keeps.contains(timed.pts) { return }
            if frame.isDamaged {
                try recordDamage(MediaError(file: path, detail: "frame \(framesDecoded - 1) is damaged"))
            }
            try onFrame(timed)
        })
    }

    private func recordDamage(_ damage: MediaError) throws {
        damagedPackets += 1
        if damagePolicy == .fail {
            throw MediaError(file: path, detail: "damaged data (\(damage)); stopped (--errors fail)", code: damage.code)
        }
    }

    /// Each frame's own best-effort timestamp, never a counter: B-frames, variable frame
    /// rate and edit lists keep their timing.
    private func timed(_ frame: Frame) -> TimedFrame {
        let pts = frame.bestEffortTimestamp
        let duration = frame.packetDuration
        let time = clock.time(ofTimestamp: pts, duration: duration)
        let outputPts = pts ?? ((lastPts ?? -lastDuration) + lastDuration)
        lastPts = outputPts
        lastDuration = duration ?? lastDuration
        lastTimeSeconds = time.seconds
        framesDecoded += 1
        return TimedFrame(frame: frame, time: time, pts: outputPts)
    }
}
