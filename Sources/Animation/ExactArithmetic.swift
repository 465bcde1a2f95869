// Integer helpers shared by the timelines. Every quantity a timeline touches is bounded
// (see `TickGrid`), so 128-bit products never overflow.

/// The greatest common divisor of the magnitudes; 1 when both are zero, so it can always divide.
func greatestCommonDivisor(_ a: Int128, _ b: Int128) -> Int128 {
    var x = a < 0 ? -a : a
    var y = b < 0 ? -b : b
    while y != 0 {
        (x, y) = (y, x % y)
    }
    return x == 0 ? 1 : x
}

/// The least common multiple of two positive numbers.
func leastCommonMultiple(_ a: Int128, _ b: Int128) -> Int128 {
    a / greatestCommonDivisor(a, b) * b
}

/// Division rounding towards negative infinity (Swift's `/` rounds towards zero).
func floorDivide(_ numerator: Int128, by denominator: Int128) -> Int128 {
    let quotient = numerator / denominator
    let remainder = numerator % denominator
    return (remainder != 0 && (remainder < 0) != (denominator < 0)) ? quotient - 1 : quotient
}

/// `numerator / denominator` as a Double, reduced first so that fractions with small
/// reduced terms (1/2, 3/4, 50/1) come out exact.
func ratio(_ numerator: Int128, _ denominator: Int128) -> Double {
    let divisor = greatestCommonDivisor(numerator, denominator)
    return Double(numerator / divisor) / Double(denominator / divisor)
}

/// Clamps to `0...100`, mapping NaN to 0 so a broken config value cannot escape the frame.
func clampPercent(_ percent: Double) -> Double {
    percent.isNaN ? 0 : min(max(percent, 0), 100)
}

/// An integer time grid fine enough to hold every time of one evaluation exactly.
///
/// One timeline evaluation compares a frame time with window edges and millisecond
/// durations. Converting all of them to whole ticks of `1/ticksPerSecond` s, where
/// `ticksPerSecond` is a common multiple of 1000 and every timescale involved, turns the
/// rational arithmetic into plain integer arithmetic. Times are clamped to
/// ±`maximumSeconds` and durations to `maximumMilliseconds`, which keeps every product
/// below 2^100.
struct TickGrid {
    /// About 31.7 years; longer times are treated as this.
    static let maximumSeconds: Int128 = 1_000_000_000
    static let maximumMilliseconds: Int128 = maximumSeconds * 1000
    /// The finest grid used exactly; a common multiple beyond it falls back to nanoseconds.
    private static let maximumTicksPerSecond: Int128 = 1 << 52

    let ticksPerSecond: Int128
    /// False when the timescales had no small common multiple and times are rounded to nanoseconds.
    let isExact: Bool

    init(_ times: [PresentationTime]) {
        var common: Int128 = 1000
        var exact = true
        for time in times {
            common = leastCommonMultiple(common, Int128(time.reduced.timescale))
            if common > Self.maximumTicksPerSecond {
                exact = false
                break
            }
        }
        ticksPerSecond = exact ? common : 1_000_000_000
        isExact = exact
    }

    /// The time in ticks, clamped to ±`maximumSeconds`; exact on an exact grid, else floored.
    func ticks(_ time: PresentationTime) -> Int128 {
        let limit = PresentationTime(value: Int64(Self.maximumSeconds), timescale: 1)
        if time > limit { return Self.maximumSeconds * ticksPerSecond }
        if time < PresentationTime.zero - limit { return -Self.maximumSeconds * ticksPerSecond }
        return floorDivide(Int128(time.value) * ticksPerSecond, by: Int128(time.timescale))
    }

    /// A duration in ticks, clamped to `0...maximumMilliseconds`; always exact.
    func ticks(milliseconds: Int64) -> Int128 {
        let clamped = min(max(Int128(milliseconds), 0), Self.maximumMilliseconds)
        return clamped * (ticksPerSecond / 1000)
    }
}
