internal import CFFmpeg

/// A time base or rate (FFmpeg's `AVRational`).
package struct Rational: Equatable, Sendable {
    package var numerator: Int32
    package var denominator: Int32

    package init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ av: AVRational) { self.init(av.num, av.den) }

    var av: AVRational { AVRational(num: numerator, den: denominator) }

    /// Both parts positive: a usable rate or time base.
    package var isValid: Bool { numerator > 0 && denominator > 0 }

    /// `ticks` of this time base in `other`'s, rounded to the nearest.
    package func convert(_ ticks: Int64, to other: Rational) -> Int64 { av_rescale_q(ticks, av, other.av) }

    /// `ticks` of this time base in seconds.
    package func seconds(_ ticks: Int64) -> Double { Double(ticks) * Double(numerator) / Double(denominator) }
}
