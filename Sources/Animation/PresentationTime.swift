/// An exact rational time in seconds, `value / timescale`.
///
/// Frame times are kept as fractions rather than `Double`s so that a ten-hour video at
/// 30000/1001 fps lands on exactly the same instant as the arithmetic on paper, and two
/// streams with different time bases agree on which frames share an instant.
/// Equality, ordering and hashing compare the rational value, so `1/2` equals `2/4`.
public struct PresentationTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numerator: a count of `1/timescale`-second ticks. May be negative.
    public let value: Int64
    /// Ticks per second; always positive.
    public let timescale: Int64

    /// A time of `value / timescale` seconds; a negative timescale flips both signs.
    ///
    /// A zero timescale is a programming error: time bases from the outside world are
    /// validated by `FrameClock` before they get here.
    public init(value: Int64, timescale: Int64) {
        precondition(timescale != 0, "PresentationTime needs a non-zero timescale")
        if timescale > 0 {
            self.value = value
            self.timescale = timescale
        } else {
            // Negating Int64.min would overflow, so flip the signs in 128 bits.
            self = PresentationTime(exactValue: -Int128(value), timescale: -Int128(timescale))
        }
    }

    /// The time nearest to `seconds`, in microseconds (timescale 1 000 000); meant for
    /// user input such as `--at`. NaN becomes zero and out-of-range values saturate.
    public init(seconds: Double) {
        let microseconds = (seconds * 1_000_000).rounded()
        let value: Int64
        if microseconds.isNaN {
            value = 0
        } else if microseconds >= 9_223_372_036_854_775_807.0 {
            value = .max
        } else if microseconds <= -9_223_372_036_854_775_808.0 {
            value = .min
        } else {
            value = Int64(microseconds)
        }
        self.init(value: value, timescale: 1_000_000)
    }

    /// A whole number of milliseconds, the unit of the config's durations.
    public init(milliseconds: Int64) {
        self.init(value: milliseconds, timescale: 1000)
    }

    /// The start of the stream: the first presented frame.
    public static let zero = PresentationTime(value: 0, timescale: 1)

    /// The time as floating-point seconds, for display and for logging only.
    public var seconds: Double {
        Double(value) / Double(timescale)
    }

    /// The same time with numerator and denominator divided by their greatest common divisor.
    public var reduced: PresentationTime {
        let divisor = greatestCommonDivisor(Int128(value), Int128(timescale))
        return PresentationTime(uncheckedValue: Int64(Int128(value) / divisor),
                                timescale: Int64(Int128(timescale) / divisor))
    }

    public static func == (a: PresentationTime, b: PresentationTime) -> Bool {
        Int128(a.value) * Int128(b.timescale) == Int128(b.value) * Int128(a.timescale)
    }

    public static func < (a: PresentationTime, b: PresentationTime) -> Bool {
        // Both products fit in 128 bits, so the comparison is exact for every pair.
        Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
    }

    public func hash(into hasher: inout Hasher) {
        let canonical = reduced
        hasher.combine(canonical.value)
        hasher.combine(canonical.timescale)
    }

    /// The exact difference, over the least common multiple of the two timescales.
    ///
    /// Only when the exact result does not fit in 64-bit numerator and denominator (no real
    /// stream gets near this) is it rounded to the nearest representable time.
    public static func - (a: PresentationTime, b: PresentationTime) -> PresentationTime {
        let commonTimescale = leastCommonMultiple(Int128(a.timescale), Int128(b.timescale))
        let difference = Int128(a.value) * (commonTimescale / Int128(a.timescale))
            - Int128(b.value) * (commonTimescale / Int128(b.timescale))
        return PresentationTime(exactValue: difference, timescale: commonTimescale)
    }

    /// The exact sum; rounded only when it does not fit, like `-`.
    public static func + (a: PresentationTime, b: PresentationTime) -> PresentationTime {
        let commonTimescale = leastCommonMultiple(Int128(a.timescale), Int128(b.timescale))
        let sum = Int128(a.value) * (commonTimescale / Int128(a.timescale))
            + Int128(b.value) * (commonTimescale / Int128(b.timescale))
        return PresentationTime(exactValue: sum, timescale: commonTimescale)
    }

    public var description: String {
        "\(value)/\(timescale) s"
    }

    private init(uncheckedValue value: Int64, timescale: Int64) {
        self.value = value
        self.timescale = timescale
    }

    /// Builds a time from a 128-bit fraction: reduced by the gcd, and only when that still
    /// does not fit in 64 bits, rounded onto a coarser timescale (or saturated).
    init(exactValue: Int128, timescale: Int128) {
        precondition(timescale != 0, "PresentationTime needs a non-zero timescale")
        var numerator = timescale < 0 ? -exactValue : exactValue
        var denominator = timescale < 0 ? -timescale : timescale
        let divisor = greatestCommonDivisor(numerator, denominator)
        numerator /= divisor
        denominator /= divisor
        while denominator > Int128(Int64.max) || numerator > Int128(Int64.max) || numerator < Int128(Int64.min) {
            if denominator == 1 {
                numerator = min(max(numerator, Int128(Int64.min)), Int128(Int64.max))
                break
            }
            // Halve the resolution, rounding the numerator to nearest.
            numerator = floorDivide(numerator + 1, by: 2)
            denominator = (denominator + 1) / 2
        }
        self.init(uncheckedValue: Int64(numerator), timescale: Int64(denominator))
    }
}
