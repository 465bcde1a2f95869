/// Turns each decoded frame's best-effort timestamp (in a stream time base) into the time
/// since the stream's first presented frame.
///
/// Feed it frames in presentation order, as they leave the decoder. It never counts frames:
/// the time comes from each frame's own timestamp, so B-frames, edit lists and variable frame
/// rate give the same times as the source says, and the arithmetic is exact, so a ten-hour
/// video does not drift.
public struct FrameClock: Sendable, Equatable {
    /// The time base in which timestamps and durations arrive: one tick is numerator/denominator s.
    public let timeBaseNumerator: Int64
    public let timeBaseDenominator: Int64
    /// The timestamp that became time zero; nil until the first frame arrives.
    public private(set) var firstTimestamp: Int64?

    private var previousTimestamp: Int64?
    private var previousDuration: Int64?
    private var lastPositiveStep: Int64 = 0

    /// A clock for a stream with this time base (FFmpeg's `AVStream.time_base`).
    ///
    /// A time base that is zero or negative comes from a broken file; rather than trap, the
    /// clock then uses FFmpeg's internal time base of 1/1 000 000 s.
    public init(timeBaseNumerator: Int32, timeBaseDenominator: Int32) {
        (self.timeBaseNumerator, self.timeBaseDenominator) =
            Self.validTimeBase(numerator: timeBaseNumerator, denominator: timeBaseDenominator)
    }

    /// A clock whose time zero is already known: a job that decodes only some of the frames
    /// (smart rendering) still times them from the stream's first picture.
    public init(timeBaseNumerator: Int32, timeBaseDenominator: Int32, firstTimestamp: Int64) {
        self.init(timeBaseNumerator: timeBaseNumerator, timeBaseDenominator: timeBaseDenominator)
        self.firstTimestamp = firstTimestamp
    }

    /// The presentation time of the next frame.
    ///
    /// The first frame defines zero. A frame without a timestamp (`pts == nil`) is placed at
    /// the previous frame's time plus the previous frame's duration; when that duration is
    /// unknown or zero, the last positive step seen (a duration or a gap between timestamps)
    /// is used instead, or 0 if there was none. Times before the first frame clamp to zero.
    public mutating func time(ofTimestamp pts: Int64?, duration: Int64?) -> PresentationTime {
        let timestamp: Int64
        if let pts {
            timestamp = pts
            if let previousTimestamp, pts > previousTimestamp {
                let (gap, overflow) = pts.subtractingReportingOverflow(previousTimestamp)
                if !overflow { lastPositiveStep = gap }
            }
        } else if let previousTimestamp {
            let step = previousDuration.flatMap { $0 > 0 ? $0 : nil } ?? lastPositiveStep
            let (sum, overflow) = previousTimestamp.addingReportingOverflow(step)
            timestamp = overflow ? .max : sum
        } else {
            timestamp = 0
        }
        if let duration, duration > 0 {
            lastPositiveStep = duration
        }
        let first = firstTimestamp ?? timestamp
        firstTimestamp = first
        previousTimestamp = timestamp
        previousDuration = duration
        return Self.time(ofTimestamp: timestamp, firstTimestamp: first,
                         timeBaseNumerator: timeBaseNumerator, timeBaseDenominator: timeBaseDenominator)
    }

    /// The time of `pts` relative to `firstTimestamp`, exact, clamped to zero when earlier.
    ///
    /// The pure form of `time(ofTimestamp:duration:)`, for callers that already know the first
    /// timestamp (for example when seeking for a thumbnail).
    public static func time(ofTimestamp pts: Int64, firstTimestamp: Int64,
                            timeBaseNumerator: Int64, timeBaseDenominator: Int64) -> PresentationTime {
        let (numerator, denominator) = validTimeBase(numerator: timeBaseNumerator, denominator: timeBaseDenominator)
        let ticks = Int128(pts) - Int128(firstTimestamp)
        guard ticks > 0 else { return .zero }
        return PresentationTime(exactValue: ticks * Int128(numerator), timescale: Int128(denominator))
    }

    /// The last timestamp whose time is at or before `time`: the frame a viewer sees then,
    /// for a stream whose first frame carries `firstTimestamp`. Saturates at the Int64 range.
    public static func timestamp(at time: PresentationTime, firstTimestamp: Int64,
                                 timeBaseNumerator: Int64, timeBaseDenominator: Int64) -> Int64 {
        let (numerator, denominator) = validTimeBase(numerator: timeBaseNumerator, denominator: timeBaseDenominator)
        // ticks = time / (numerator / denominator), floored.
        let ticks = floorDivide(Int128(time.value) * Int128(denominator), by: Int128(time.timescale) * Int128(numerator))
        let timestamp = Int128(firstTimestamp) + ticks
        return Int64(min(max(timestamp, Int128(Int64.min)), Int128(Int64.max)))
    }

    private static func validTimeBase(numerator: some BinaryInteger, denominator: some BinaryInteger) -> (Int64, Int64) {
        var num = Int64(clamping: numerator)
        var den = Int64(clamping: denominator)
        if num < 0 && den < 0 && num > Int64.min && den > Int64.min {
            num = -num
            den = -den
        }
        guard num > 0, den > 0 else { return (1, 1_000_000) }
        return (num, den)
    }
}
