import CFFmpeg

/// A time base or rate (FFmpeg's `AVRational`).
struct Rational: Equatable, Sendable {
    var numerator: Int32
    var denominator: Int32

    init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ av: AVRational) { self.init(av.num, av.den) }

    var av: AVRational { AVRational(num: numerator, den: denominator) }

    /// Both parts positive: a usable rate or time base.
    var isValid: Bool { numerator > 0 && denominator > 0 }

    /// `ticks` of this time base in `other`'s, rounded to the nearest.
    func convert(_ ticks: Int64, to other: Rational) -> Int64 { av_rescale_q(ticks, av, other.av) }

    /// `ticks` of this time base in seconds.
    func seconds(_ ticks: Int64) -> Double { Double(ticks) * Double(numerator) / Double(denominator) }
}
