import Animation

/// The bit rates RFC 8216 declares for a media playlist, measured from the segments written.
///
/// - Peak (§4.3.4.2, `BANDWIDTH`): the largest bit rate of any run of consecutive segments
///   lasting 0.5 to 1.5 target durations. Every single segment counts too, even a short last
///   one the RFC's windows leave out, so that `BANDWIDTH` is at least every segment's own
///   rate — the stricter reading, checked by `scripts/hls-check`.
/// - Average (`AVERAGE-BANDWIDTH`): all segments' bits over the playlist's duration.
///
/// Sizes are the media segments' (the initialization section is fetched once, not per
/// segment, and is left out as the RFC's "segment bit rate" does); rates are rounded up.
public struct SegmentBitRates: Sendable, Equatable {
    /// One segment's size and duration.
    public struct Sample: Sendable, Equatable {
        /// The segment's bytes.
        public var bytes: Int
        /// Its duration.
        public var duration: PresentationTime
        /// A segment's size and duration.
        public init(bytes: Int, duration: PresentationTime) {
            self.bytes = bytes
            self.duration = duration
        }
    }

    /// `BANDWIDTH`, bits per second.
    public var peak: Int
    /// `AVERAGE-BANDWIDTH`, bits per second.
    public var average: Int

    /// Rates already measured.
    public init(peak: Int, average: Int) {
        self.peak = peak
        self.average = average
    }

    /// No bits: a playlist without segments.
    public static let zero = SegmentBitRates(peak: 0, average: 0)

    /// - Parameters:
    ///   - segments: every segment's duration and bytes, in order.
    ///   - targetDurationSeconds: the playlist's `EXT-X-TARGETDURATION`.
    public init(segments: [Sample], targetDurationSeconds: Int) {
        guard !segments.isEmpty else {
            self = .zero
            return
        }
        let target = PresentationTime(value: Int64(targetDurationSeconds), timescale: 1)
        let shortest = PresentationTime(value: target.value, timescale: 2), longest = PresentationTime(value: target.value * 3, timescale: 2)
        var peak = 0
        for first in segments.indices {
            var bytes = 0
            var duration = PresentationTime.zero
            for last in first..<segments.count {
                bytes += segments[last].bytes
                duration = duration + segments[last].duration
                if duration > longest && last > first { break }
                if last == first || duration >= shortest { peak = max(peak, Self.rate(bytes: bytes, over: duration)) }
            }
        }
        let total = segments.reduce(PresentationTime.zero) { $0 + $1.duration }
        self.init(peak: peak, average: Self.rate(bytes: segments.reduce(0) { $0 + $1.bytes }, over: total))
    }

    /// Bits per second, rounded up; a segment of no duration counts as one of a millisecond.
    static func rate(bytes: Int, over duration: PresentationTime) -> Int {
        let seconds = duration > .zero ? duration : PresentationTime(milliseconds: 1)
        let bits = Int128(bytes) * 8 * Int128(seconds.timescale)
        let value = Int128(seconds.value)
        return Int((bits + value - 1) / value)
    }

    /// The rates of renditions played together (video with its audio and captions): RFC 8216
    /// declares the sum of each one's peak and of each one's average.
    public static func + (a: SegmentBitRates, b: SegmentBitRates) -> SegmentBitRates {
        SegmentBitRates(peak: a.peak + b.peak, average: a.average + b.average)
    }

    /// The larger of two renditions' rates, each measure apart: a group's rendition that may play.
    public static func largest(_ rates: [SegmentBitRates]) -> SegmentBitRates {
        SegmentBitRates(peak: rates.map(\.peak).max() ?? 0, average: rates.map(\.average).max() ?? 0)
    }
}
