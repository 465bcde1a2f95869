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
/// keyframe; a file without timestamps, one that cannot seek, one whose timestamps jump, or
/// one whose seeks keep missing is decoded from the start instead, exactly as `transcode`
/// reads it.
final class VideoFrameLocator {
    /// A decoded frame (owned by the caller) and the time it is shown.
    struct Located {
        let frame: Frame
        let time: PresentationTime
        /// True when the frame is the stream's last (the wanted time may lie past the end).
        let isLast: Bool
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
        // Times in a file whose timestamps jump (MPEG-TS segments joined) are corrected only
        // when it is read in order: a seek by time would land by the uncorrected ones, and the
        // file's duration counts the jumps.
        if input.correctsTimestampJumps, let span = try Self.spanIfTimestampsJump(in: path, stream: stream.index) {
            firstTimestamp = nil
            durationSeconds = timeBase.isValid ? timeBase.seconds(span) : nil
        }
    }

    /// Reads the file's packets (without decoding); when its timestamps jump, how long the
    /// video stream lasts with the jumps taken out (in its time base).
    private static func spanIfTimestampsJump(in path: String, stream: Int) throws -> Int64? {
        let input = try InputFile(path: path)
        let packet = try Packet()
        var first = Int64.max, end = Int64.min
        while try input.read(into: packet) {
            defer { packet.unref() }
            try Interruption.throwIfRequested()
            guard packet.streamIndex == stream, let pts = packet.presentationTimestamp else { continue }
            first = min(first, pts)
            end = max(end, pts + max(packet.duration, 0))
        }
        return input.hasTimestampJumps && end > first ? end - first : nil
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
        return .found(Located(frame: shown.frame, time: time(of: shown.timestamp, first: first), isLast: !reachedLaterFrame))
    }

    /// The exact reading of `transcode`: decode from the first packet, timing frames with a
    /// `FrameClock` (which also places frames that carry no timestamp).
    func frameByScanningFromStart(at wanted: PresentationTime) throws -> Located {
        (input, decoder, stream) = try Self.open(path)
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
        return Located(frame: shown.frame, time: shown.time, isLast: !reachedLaterFrame)
    }

    /// The next frame in presentation order, or false at the end of the stream. Damaged
    /// packets are concealed by the decoder, as `transcode` does by default.
    private func nextFrame(into frame: Frame) throws -> Bool {
        while true {
            switch try decoder.receive(into: frame) {
            case .frame:
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
