import Overlay

/// One position's bias in the q-ary Tardos code of a variant layer: how likely each of the q
/// variants is to be a student's symbol there (docs/design/variant-marks.md §4).
///
/// Biases are Dirichlet(1) — uniform on the simplex — mixed with the uniform vector so no symbol
/// falls below `cutoff`, and they are held as integer weights so that a codeword drawn from them
/// is bit-for-bit the same on every machine: no floating point (and no libm, whose last bits
/// differ between versions) decides a symbol. The random words come from the key, derived by the
/// caller (`VariantCodebook` in VideoWM); this type only turns words into weights and symbols.
public struct VariantBias: Sendable, Equatable {
    /// The least probability of any symbol: 1/32. It bounds the score's largest term,
    /// √((1 − t)/t) ≈ 5.6, so one lucky position cannot dominate a score (measured: slightly
    /// stronger accusations than no cutoff or 1/100, docs §7).
    public static let cutoff = (numerator: UInt64(1), denominator: UInt64(32))
    /// The alphabets the code supports: as many symbols as a layer may have variants (2…8).
    public static let alphabetSizes = LayerVariants.counts

    /// Weight of each symbol; symbol k has probability weights[k] / total.
    public let weights: [UInt64]
    public let total: UInt64

    /// The bias made from `q − 1` uniform 32-bit words (`uniformWords.count + 1` symbols).
    ///
    /// Sorted, the words cut [0, 2³²) into q gaps whose lengths are uniform on the simplex
    /// (Dirichlet(1), exactly, up to the 2⁻³² grid); each gap then gets T = ⌊t·2³²/(1 − q·t)⌋
    /// more, which is the mixture (1 − q·t)·d + t with every probability at least t (to 2⁻³²).
    public init(uniformWords: [UInt32]) {
        let q = uniformWords.count + 1
        precondition(Self.alphabetSizes.contains(q), "a variant code has 2…8 symbols")
        let cuts = uniformWords.map(UInt64.init).sorted()
        let span = UInt64(1) << 32
        let floor = (Self.cutoff.numerator * span) / (Self.cutoff.denominator - UInt64(q) * Self.cutoff.numerator)
        var weights: [UInt64] = []
        var previous: UInt64 = 0
        for cut in cuts + [span] {
            weights.append(cut - previous + floor)
            previous = cut
        }
        self.weights = weights
        total = span + UInt64(q) * floor
    }

    /// The q-ary uniform bias (every symbol 1/q): a reference for tests and the design formula.
    public init(uniformOver q: Int) {
        precondition(Self.alphabetSizes.contains(q), "a variant code has 2…8 symbols")
        weights = [UInt64](repeating: 1, count: q)
        total = UInt64(q)
    }

    public var alphabetSize: Int { weights.count }

    /// The symbol a uniform 64-bit word draws: the word scaled exactly into [0, total) (the high
    /// half of word × total), then the first symbol whose cumulative weight passes it.
    public func symbol(forUniformWord word: UInt64) -> Int {
        let point = word.multipliedFullWidth(by: total).high
        var cumulative: UInt64 = 0
        for (symbol, weight) in weights.enumerated() {
            cumulative += weight
            if point < cumulative { return symbol }
        }
        return weights.count - 1
    }

    /// The probability of symbol `k`.
    public func probability(of k: Int) -> Double { Double(weights[k]) / Double(total) }

    /// The probability that a student's symbol is one of `set`.
    public func probability(of set: VariantSet) -> Double {
        var sum: UInt64 = 0
        for k in set.members where k < weights.count { sum += weights[k] }
        return Double(sum) / Double(total)
    }
}

/// A set of variants (symbols 0…15), as a bit mask: what one period of a leak shows.
/// Empty means the period says nothing (erased).
public struct VariantSet: Sendable, Hashable, CustomStringConvertible {
    public var mask: UInt16

    public init(mask: UInt16) { self.mask = mask }
    public init(_ variants: some Sequence<Int>) {
        var mask: UInt16 = 0
        for v in variants {
            precondition((0..<16).contains(v), "variants are 0…15")
            mask |= 1 << UInt16(v)
        }
        self.mask = mask
    }

    public static let erased = VariantSet(mask: 0)

    public var isErased: Bool { mask == 0 }
    public var count: Int { mask.nonzeroBitCount }
    public func contains(_ variant: Int) -> Bool { variant >= 0 && variant < 16 && mask & (1 << UInt16(variant)) != 0 }
    public var members: [Int] { (0..<16).filter(contains) }

    public var description: String { isErased ? "–" : members.map(String.init).joined(separator: "+") }
}
