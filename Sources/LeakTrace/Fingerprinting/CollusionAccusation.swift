import Foundation

/// Scores every row's codeword against what a leak shows, and says who is named, with the
/// probability that an innocent row would be named as strongly (docs/design/variant-marks.md §4).
///
/// The score is the symmetric q-ary Tardos score (Škorić, Katzenbeisser and Celik), in its
/// combined-digit form for periods that show several variants (averaged copies): with P the
/// probability that a student's symbol lies in the set shown, a row whose symbol is in it gains
/// √((1 − P)/P), one whose symbol is not loses √(P/(1 − P)). Erased periods, and periods showing
/// every variant (P = 1), count for nobody.
///
/// The threshold is calibrated for the leak at hand rather than for the worst attack: an
/// innocent row's codeword was derived independently of everything the leak shows, so its score
/// is a sum of independent two-valued terms with known probabilities P and 1 − P, and Chernoff's
/// bound on that sum's tail holds whatever the colluders did, however the periods were read,
/// and for leaks made with another key or a forged sequence.
public struct CollusionAccusation: Sendable {
    /// One period that counts: P and the two values a row's term takes there.
    struct Term: Sendable {
        var position: Int
        var set: VariantSet
        var probability: Double
        var inSet: Double
        var notInSet: Double
        /// ln P, ln((1 − P)/P) and inSet − notInSet, kept for the bound's many evaluations.
        var logProbability: Double
        var logOdds: Double
        var spread: Double
    }

    /// The false-accusation probability a row must reach to be named, for the whole class: 10⁻⁶.
    public static let falseAccusationTarget = 1e-6

    let terms: [Term]
    /// The rows scored: the union bound's factor.
    public let rowCount: Int

    /// `observations[i]` is what position i of the code shows (`VariantSet.erased` for nothing),
    /// `biases[i]` that position's bias. `rowCount` is the number of rows that will be scored.
    public init(biases: [VariantBias], observations: [VariantSet], rowCount: Int) {
        precondition(biases.count == observations.count, "one bias per observed position")
        self.rowCount = max(rowCount, 1)
        var terms: [Term] = []
        for (position, set) in observations.enumerated() where !set.isErased {
            let p = biases[position].probability(of: set)
            guard p > 0, p < 1 else { continue }
            let inSet = ((1 - p) / p).squareRoot(), notInSet = -(p / (1 - p)).squareRoot()
            terms.append(Term(position: position, set: set, probability: p, inSet: inSet, notInSet: notInSet,
                              logProbability: log(p), logOdds: log((1 - p) / p), spread: inSet - notInSet))
        }
        self.terms = terms
    }

    /// How many periods count (neither erased nor showing every variant).
    public var positionsUsed: Int { terms.count }

    /// The symmetric score of `codeword` (the row's symbol at every position observed).
    public func score(_ codeword: [Int]) -> Double {
        var sum = 0.0
        for term in terms { sum += term.set.contains(codeword[term.position]) ? term.inSet : term.notInSet }
        return sum
    }

    // MARK: The innocent score's tail

    /// Λ(λ) = ln E[e^{λ·S}] for an innocent row, and its first two derivatives (the tilted mean
    /// and variance).
    func cumulant(_ lambda: Double) -> (value: Double, slope: Double, curvature: Double) {
        var value = 0.0, slope = 0.0, curvature = 0.0
        for term in terms {
            // ln(P·e^{λa} + (1−P)·e^{λb}) = ln P + λa + ln(1 + r), r = (1−P)/P · e^{λ(b−a)} ≤ (1−P)/P.
            let r = exp(term.logOdds - lambda * term.spread)
            value += term.logProbability + lambda * term.inSet + log1p(r)
            slope += (term.inSet + r * term.notInSet) / (1 + r)
            curvature += r / ((1 + r) * (1 + r)) * term.spread * term.spread
        }
        return (value, slope, curvature)
    }

    /// The largest score any row can reach: every period matched.
    var highestScore: Double { terms.reduce(0) { $0 + $1.inSet } }

    /// ln of a bound on P(S ≥ score) for an innocent row: Chernoff's, sharpened by the normal
    /// approximation of the tilted sum with Berry and Esseen's error bound, so it stays a bound.
    ///
    /// For any λ ≥ 0, exactly, P(S ≥ s) = e^{Λ(λ) − λs} · E_λ[e^{−λ(S−s)} · 1{S ≥ s}], the
    /// expectation taken under the exponentially tilted terms (each term's probabilities weighted
    /// by e^{λ·value}). Chernoff bounds the expectation by 1. With λ where the tilted mean Λ'(λ)
    /// is s, S − s is a sum of independent centred terms of variance σ² = Λ''(λ); the function
    /// x ↦ e^{−λx}·1{x ≥ 0} has total variation 2, so the expectation differs from its value for a
    /// normal variable, e^{t²/2}·Φ̄(t) with t = λσ (≤ 1/(t√(2π))), by at most twice the Kolmogorov
    /// distance, which Berry–Esseen bounds by C·Σ E|Xᵢ|³/σ³ (C = 0.56, Shevtsova 2010, for
    /// independent, not identically distributed terms). Worth about a decimal digit over
    /// Chernoff's alone at the probabilities that name a row; never below the true tail.
    public func logTailBound(score: Double) -> Double {
        guard score > 0, !terms.isEmpty else { return 0 }
        let highest = highestScore
        // Matching every period: the probability is exactly the product of the P's.
        if score >= highest * (1 - 1e-12) {
            return score > highest * (1 + 1e-12) ? -.infinity : terms.reduce(0) { $0 + $1.logProbability }
        }
        let lambda = Self.root(from: score / Double(terms.count)) { let c = cumulant($0); return (c.slope - score, c.curvature) }
        let c = cumulant(lambda)
        let chernoff = min(0, c.value - lambda * score)
        return chernoff + logTiltedExpectationBound(lambda: lambda, mean: c.slope - score, variance: c.curvature)
    }

    /// The Berry–Esseen constant for sums of independent, not identically distributed terms.
    static let berryEsseenConstant = 0.56

    /// ln of a bound on E_λ[e^{−λX}·1{X ≥ 0}] for X = S − s under the tilt λ, with mean `mean`
    /// (about 0) and `variance`; at most 0 (the expectation is at most 1).
    func logTiltedExpectationBound(lambda: Double, mean: Double, variance: Double) -> Double {
        guard lambda > 0, variance > 0 else { return 0 }
        let sigma = variance.squareRoot()
        var thirdMoments = 0.0
        for term in terms {
            // The tilted term: inSet with probability π = 1/(1 + r), else notInSet.
            let r = exp(term.logOdds - lambda * term.spread)
            let pi = 1 / (1 + r)
            thirdMoments += pi * (1 - pi) * (pi * pi + (1 - pi) * (1 - pi)) * term.spread * term.spread * term.spread
        }
        let kolmogorov = Self.berryEsseenConstant * thirdMoments / (sigma * sigma * sigma)
        // The normal part: E[e^{−λ(m + σZ)}·1{m + σZ ≥ 0}] = e^{−λm + t²/2}·Φ̄(t − m/σ), t = λσ.
        let t = lambda * sigma, x = t - mean / sigma
        let normal = exp(-lambda * mean + t * t / 2 + Self.logUpperTail(x))
        return min(0, log(normal + 2 * kolmogorov))
    }

    /// ln Φ̄(x), the standard normal upper tail; for large x by its upper bound φ(x)/x (so the
    /// result is never an understatement).
    static func logUpperTail(_ x: Double) -> Double {
        if x < 8 { return log(erfc(x / 2.0.squareRoot()) / 2) }
        return -x * x / 2 - log(x * (2 * Double.pi).squareRoot())
    }

    /// The λ ≥ 0 where an increasing function (given with its derivative) crosses zero, from
    /// `guess`: Newton's steps, kept inside a bracket that bisection narrows when a step leaves it.
    static func root(from guess: Double, _ function: (Double) -> (value: Double, slope: Double)) -> Double {
        var low = 0.0, high = Double.infinity
        var lambda = max(guess, 1e-9)
        for _ in 0..<200 {
            let (value, slope) = function(lambda)
            if abs(value) <= 1e-10 * max(1, abs(lambda * slope)) { return lambda }
            if value < 0 { low = lambda } else { high = lambda }
            if high - low <= 1e-13 * high { return lambda }
            var next = slope > 0 ? lambda - value / slope : .nan
            if !(next > low && next < high) { next = high.isFinite ? (low + high) / 2 : max(2 * lambda, 1e-6) }
            guard next < 1e7 else { return lambda }
            lambda = next
        }
        return lambda
    }

    /// log₁₀ of the probability that any of the `rowCount` rows, none of them behind the leak,
    /// would score at least `score`: the union bound over the rows of the Chernoff bound.
    public func log10FalseAccusation(score: Double) -> Double {
        min(0, (logTailBound(score: score) + log(Double(rowCount))) / log(10))
    }

    /// The score a row needs to be named at false-accusation probability `target`: where the
    /// union-bounded tail falls to it. Nil when no score can get there (the leak is too short or
    /// too ambiguous to name anybody at that probability).
    public func threshold(falseAccusation target: Double = falseAccusationTarget) -> Double? {
        let needed = log(Double(rowCount) / target)  // −ln bound must reach this
        guard !terms.isEmpty, -terms.reduce(0, { $0 + $1.logProbability }) > needed else { return nil }
        // Chernoff's threshold first: λ·Λ'(λ) − Λ(λ), the rate at the score Λ'(λ), grows with λ
        // (its derivative is λ·Λ''(λ)). The sharpened bound is lower, so its threshold is below.
        let lambda = Self.root(from: (2 * needed / Double(terms.count)).squareRoot()) {
            let c = cumulant($0)
            return ($0 * c.slope - c.value - needed, $0 * c.curvature)
        }
        var low = 0.0, high = min(cumulant(lambda).slope, highestScore)
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if -logTailBound(score: middle) >= needed { high = middle } else { low = middle }
            if high - low <= 1e-9 * high { break }
        }
        return high
    }

    // MARK: The verdict

    /// Every row's score and false-accusation probability, strongest first (ties by row).
    public func accuse(_ codewords: [[Int]]) -> [RowAccusation] {
        precondition(codewords.count <= rowCount, "the union bound counts every row scored")
        let accusations = codewords.enumerated().map { row, codeword in
            let score = score(codeword)
            return RowAccusation(row: row, score: score, log10FalseAccusation: log10FalseAccusation(score: score))
        }
        return accusations.sorted { ($0.log10FalseAccusation, $0.row) < ($1.log10FalseAccusation, $1.row) }
    }
}

/// One row's standing against a leak's variant sequence.
public struct RowAccusation: Sendable, Equatable {
    public var row: Int
    public var score: Double
    /// log₁₀ of the probability that an innocent row among those scored would score this high.
    public var log10FalseAccusation: Double

    public var falseAccusationProbability: Double { pow(10, log10FalseAccusation) }

    /// Whether the row is named at `target` (default 10⁻⁶).
    public func isNamed(at target: Double = CollusionAccusation.falseAccusationTarget) -> Bool {
        log10FalseAccusation <= log10(target)
    }
}
