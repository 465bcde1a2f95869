import Animation
import Overlay

/// Finds the frame a viewer sees at a given time, as `transcode` times it, without decoding
/// a long video from the start.
///
/// Times count from the first frame the decoder presents (as in `VideoSource`), so that
/// frame is decoded once up front and its timestamp kept. For each request the demuxer
/// seeks to the keyframe at or before the wanted timestamp and decodes forward; the frame
/// shown is the one with the largest timestamp not after it. Decoding from a keyframe gives
/// the same pictures as decoding from the start, so the result is identical to a full scan.
///
/// Seeking is only trusted when it can be checked: the first frame out of the decoder must
/// be a keyframe with a timestamp no later than the wanted one. A seek that lands late (an
/// index keyed by decode time, a B-frame keyframe) is retried from just before that
/// keyframe; a file without timestamps, one that cannot seek, or one whose seeks keep missing
/// is decoded from the start instead, exactly as `transcode` reads it. A file whose timestamps
/// jump (MPEG-TS recordings joined) seeks too: `InputFile` goes by the corrected times.
final class VideoFrameLocator {
    /// A decoded frame (owned by the caller) and the time it is shown.
    struct Located {
        let frame: Frame
        let time: PresentationTime
        /// True when the frame is the stream's last (the wanted time may lie past the end).
        let isLast: Bool
        /// How long the frame is shown (its packet's duration, or one frame at the stream's
        /// average rate), when known.
        let duration: PresentationTime?

        /// When the video ends, if this is its last frame: the end of this frame.
        var videoEnd: PresentationTime? { isLast ? time + (duration ?? .zero) : nil }
    }

    let path: String
    let rotation: DisplayRotation
    /// Seconds the video stream lasts, when known.
    private(set) var durationSeconds: Double?
    private var input: InputFile
    private var decoder: Decoder
    private var stream: InputStream
    private let timeBase: Rational
    /// The first presented frame's timestamp: time zero. Nil when it has none or the file's
    /// timestamps jump (then no seeking).
    private var firstTimestamp: Int64?
    private let packet: Packet
    private var draining = false
    /// How requests were answered, for tests and `-v` diagnostics.
    private(set) var seeks = 0
    private(set) var fullScans = 0
    /// Frames decoded so far, the first one included.
    private(set) var decodedFrames = 0

    private static let seekAttempts = 4
    /// Frames tolerated after a seek before the first keyframe appears.
    private static let framesBeforeKeyframeLimit = 64

    init(path: String) throws {
        self.path = path
        (input, decoder, stream) = try Self.open(path)
        rotation = stream.displayRotation
        timeBase = stream.timeBase
        // The video's own duration when the file gives it: a container's may include longer audio.
        durationSeconds = timeBase.isValid ? stream.duration.map(timeBase.seconds) ?? input.durationSeconds : input.durationSeconds
        packet = try Packet()
        let first = try Frame()
        guard try nextFrame(into: first) else { throw MediaError(file: path, detail: "no frame could be decoded") }
        firstTimestamp = Self.timestamp(of: first)
        // The file's duration counts the jumps of a file whose timestamps jump (MPEG-TS
        // segments joined); the timeline (read once, and used by every seek) does not.
        if let timeline = try input.correctedTimeline(), timeline.hasJumps, timeBase.isValid,
           let span = timeline.duration(of: stream.index) {
            durationSeconds = timeBase.seconds(span)
        }
    }

    /// The video's timecode clock for `{timecode}` (see `InputFile.timecode(of:warn:)`).
    func timecode(warn: WarningHandler) -> Timecode? {
        input.timecode(of: stream, warn: warn)
    }

    private static func open(_ path: String) throws -> (InputFile, Decoder, InputStream) {
        let input = try InputFile(path: path)
        guard let stream = input.bestVideoStream() else { throw MediaError(file: path, detail: "has no video stream") }
        let decoder = try Decoder(stream: stream, file: path)
        guard stream.video.width > 0, stream.video.height > 0 else {
            throw MediaError(file: path, detail: "the video stream has no picture size")
        }
        return (input, decoder, stream)
    }

    private static func timestamp(of frame: Frame) -> Int64? { frame.bestEffortTimestamp }

    /// How long `frame` is shown: its packet's duration, else one frame at the average rate.
    private func duration(of frame: Frame) -> PresentationTime? {
        if let ticks = frame.packetDuration, timeBase.isValid {
            return PresentationTime(value: ticks * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator))
        }
        let rate = stream.averageFrameRate
        return rate.isValid ? PresentationTime(value: Int64(rate.denominator), timescale: Int64(rate.numerator)) : nil
    }

    private func time(of timestamp: Int64, first: Int64) -> PresentationTime {
        FrameClock.time(ofTimestamp: timestamp, firstTimestamp: first,
                        timeBaseNumerator: Int64(timeBase.numerator), timeBaseDenominator: Int64(timeBase.denominator))
    }

    /// The frame shown at `wanted`: the last one whose time is not after it.
    func frame(at wanted: PresentationTime) throws -> Located {
        if let first = firstTimestamp {
            var target = FrameClock.timestamp(at: wanted, firstTimestamp: first,
                                              timeBaseNumerator: Int64(timeBase.numerator), timeBaseDenominator: Int64(timeBase.denominator))
            attempts: for _ in 0..<Self.seekAttempts {
                switch try seekAndDecode(to: target, wanted: wanted, first: first) {
                case .found(let located):
                    seeks += 1
                    return located
                case .landedLate(let keyframeTimestamp) where keyframeTimestamp > Int64.min && keyframeTimestamp - 1 < target:
                    target = keyframeTimestamp - 1
                case .landedLate, .unreliable:
                    break attempts
                }
            }
        }
        fullScans += 1
        return try frameByScanningFromStart(at: wanted)
    }

    private enum SeekOutcome {
        case found(Located)
        /// The first keyframe after the seek is already past the wanted time; its decode timestamp.
        case landedLate(Int64)
        case unreliable
    }

    private func seekAndDecode(to target: Int64, wanted: PresentationTime, first: Int64) throws -> SeekOutcome {
        guard input.seek(stream, toKeyframeBefore: target) else { return .unreliable }
        decoder.flush()
        draining = false
        var frame = try Frame()
        var shown: (frame: Frame, timestamp: Int64)?
        var sawKeyframe = false
        var framesBeforeKeyframe = 0
        var reachedLaterFrame = false
        while try nextFrame(into: frame) {
            guard let pts = Self.timestamp(of: frame) else { return .unreliable }
            if !sawKeyframe {
                // Frames before the first keyframe (an open GOP's leading pictures) lack their
                // references and precede it in time anyway.
                guard frame.isKeyFrame else {
                    framesBeforeKeyframe += 1
                    if framesBeforeKeyframe > Self.framesBeforeKeyframeLimit { return .unreliable }
                    frame.unref()
                    continue
                }
                sawKeyframe = true
                if time(of: pts, first: first) > wanted {
                    return .landedLate(min(pts, frame.packetDecodeTimestamp ?? pts))
                }
            }
            if time(of: pts, first: first) > wanted {
                reachedLaterFrame = true
                break
            }
            if pts >= shown?.timestamp ?? Int64.min {
                shown = (frame, pts)
                frame = try Frame()
            } else {
                frame.unref()
            }
        }
        guard let shown else { return .unreliable }
        return .found(Located(frame: shown.frame, time: time(of: shown.timestamp, first: first), isLast: !reachedLaterFrame,
                              duration: duration(of: shown.frame)))
    }

    /// The exact reading of `transcode`: decode from the first packet, timing frames with a
    /// `FrameClock` (which also places frames that carry no timestamp).
    func frameByScanningFromStart(at wanted: PresentationTime) throws -> Located {
        let previous = input
        (input, decoder, stream) = try Self.open(path)
        input.shareTimeline(of: previous)
        draining = false
        var clock = FrameClock(timeBaseNumerator: timeBase.numerator, timeBaseDenominator: timeBase.denominator)
        var frame = try Frame()
        var shown: (frame: Frame, time: PresentationTime)?
        var reachedLaterFrame = false
        while try nextFrame(into: frame) {
            let t = clock.time(ofTimestamp: Self.timestamp(of: frame), duration: frame.packetDuration)
            if t > wanted && shown != nil {
                reachedLaterFrame = true
                break
            }
            shown = (frame, t)
            frame = try Frame()
        }
        guard let shown else { throw MediaError(file: path, detail: "no frame could be decoded") }
        return Located(frame: shown.frame, time: shown.time, isLast: !reachedLaterFrame, duration: duration(of: shown.frame))
    }

    /// The next frame in presentation order, or false at the end of the stream. Damaged
    /// packets are concealed by the decoder, as `transcode` does by default.
    private func nextFrame(into frame: Frame) throws -> Bool {
        while true {
            switch try decoder.receive(into: frame) {
            case .frame:
                decodedFrames += 1
                return true
            case .endOfStream:
                return false
            case .damaged:
                continue
            case .needsInput:
                if draining { return false }
            }
            try Interruption.throwIfRequested()
            if try input.read(into: packet) {
                defer { packet.unref() }
                guard packet.streamIndex == stream.index else { continue }
                _ = try decoder.send(packet)  // damage is concealed
            } else {
                draining = true
                _ = try decoder.send(nil)
            }
        }
    }
}
