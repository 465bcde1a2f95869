import Foundation
import Animation

/// How an HLS output is cut: `--segment SECONDS` (default 6, Apple's recommendation) and, for
/// a batch, the folder of the segments every row shares.
public struct HLSSettings: Sendable, Equatable {
    /// Six seconds, Apple's recommendation for video on demand.
    public static let defaultSegmentDuration = PresentationTime(value: 6, timescale: 1)

    /// `--segment`: the length segments aim at; nil: the default, or a variant layer's period
    /// (the lecture decides: `Lecture.segment`).
    public var segment: PresentationTime?
    /// nil: beside the outputs (batch), or no sharing (transcode).
    public var sharedFolder: String?

    public init(segment: PresentationTime? = nil, sharedFolder: String? = nil) {
        self.segment = segment
        self.sharedFolder = sharedFolder
    }

    /// A segment length given in seconds (`--segment`, lecture.json's `segment`), to the millisecond.
    public static func segmentLength(seconds: Double) -> PresentationTime {
        PresentationTime(milliseconds: Int64((seconds * 1000).rounded()))
    }
}

/// Which frames start a segment when the video is re-encoded: the first frame at or after each
/// whole multiple of the interval, counted from the first frame. The encoder is told to make
/// those frames keyframes, and the segmenter cuts at the same frames, both through this.
struct IntervalBoundaries {
    let interval: PresentationTime
    private var origin: PresentationTime?
    private var nextMultiple: Int64 = 1

    init(interval: PresentationTime) {
        precondition(interval > .zero, "a segment interval must be positive")
        self.interval = interval
    }

    /// Whether the frame (or keyframe) shown at `time` starts a segment; call in presentation
    /// order. The first call starts the first segment.
    mutating func startsSegment(at time: PresentationTime) -> Bool {
        guard let origin else {
            origin = time
            return true
        }
        let elapsed = time - origin
        guard elapsed >= PresentationTime(value: nextMultiple * interval.value, timescale: interval.timescale) else { return false }
        // The next boundary is the first whole multiple past this time (a gap longer than the
        // interval gives one boundary after it, not several).
        let passed = Int128(elapsed.value) * Int128(interval.timescale) / (Int128(elapsed.timescale) * Int128(interval.value))
        nextMultiple = Int64(passed) + 1
        return true
    }
}
