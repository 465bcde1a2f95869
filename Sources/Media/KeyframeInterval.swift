import Animation

/// `--gop N|Ns`: a keyframe every N frames, or every N seconds of presentation time.
///
/// Seconds are what segmenters (HLS, DASH) need: with variable frame rate a frame count
/// drifts from the clock, and an encoder's own scene-cut keyframes make uneven GOPs. So
/// keyframes are forced on the frames that reach each boundary, and the encoder's own
/// placement (scene cuts, maximum interval) is switched off (`KeyframeSchedule`).
public enum KeyframeInterval: Sendable, Equatable, CustomStringConvertible {
    /// A keyframe every N frames.
    case frames(Int)
    /// A keyframe every so long, in presentation time.
    case duration(PresentationTime)

    /// Parses `60` (frames) or `2s`, `2.5s`, `0.5s` (seconds, to the millisecond).
    public init?(_ text: String) {
        if text.hasSuffix("s") {
            let number = text.dropLast()
            let parts = number.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  parts.count == 1 || parts[1].count <= 3, parts[0].count <= 6,
                  let whole = Int64(parts[0]) else { return nil }
            guard let fraction = parts.count == 2 ? Int64(parts[1].padding(toLength: 3, withPad: "0", startingAt: 0)) : 0 else { return nil }
            let milliseconds = whole * 1000 + fraction
            guard milliseconds > 0 else { return nil }
            self = .duration(PresentationTime(milliseconds: milliseconds))
        } else {
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), text.count <= 6, let frames = Int(text), frames >= 1 else { return nil }
            self = .frames(frames)
        }
    }

    public var description: String {
        switch self {
        case .frames(let count): "\(count) frames"
        case .duration(let time): "\(time.seconds) s"
        }
    }
}

/// Decides, frame by frame in presentation order, which frames are forced keyframes.
///
/// By time: the first frame, then the first frame at or after each multiple of the interval
/// (counted from the first frame, as animations are). A gap in the input longer than the
/// interval gives one keyframe after it, not a run of them. By frames: every Nth frame.
public struct KeyframeSchedule: Sendable {
    /// The interval the schedule keeps.
    public let interval: KeyframeInterval
    private var origin: PresentationTime?
    private var nextBoundary = PresentationTime.zero
    private var framesSeen = 0

    /// A schedule starting at the first frame.
    public init(_ interval: KeyframeInterval) { self.interval = interval }

    /// Whether the frame presented at `time` must be a keyframe. Call once per frame, in order.
    public mutating func isKeyframe(at time: PresentationTime) -> Bool {
        defer { framesSeen += 1 }
        switch interval {
        case .frames(let count):
            return framesSeen % count == 0
        case .duration(let length):
            let origin = self.origin ?? time
            self.origin = origin
            let elapsed = time - origin
            guard elapsed >= nextBoundary else { return false }
            // The boundary after this frame: the next whole multiple of the interval past it.
            let passed = Int128(elapsed.value) * Int128(length.timescale) / (Int128(elapsed.timescale) * Int128(length.value))
            nextBoundary = PresentationTime(value: Int64(clamping: (passed + 1) * Int128(length.value)), timescale: length.timescale)
            return true
        }
    }
}
