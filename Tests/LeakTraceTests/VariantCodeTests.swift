import Foundation
import Testing
import TestSupport
@testable import LeakTrace

/// A variant code made from a test generator instead of the key: biases and codewords drawn as
/// `VariantCodebook` draws them, from uniform words.
struct TestCode {
    let biases: [VariantBias]
    let codewords: [[Int]]

    init(rows: Int, positions: Int, alphabetSize q: Int = 4, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        biases = (0..<positions).map { _ in VariantBias(uniformWords: (0..<(q - 1)).map { _ in UInt32(truncatingIfNeeded: random.next()) }) }
        let biases = self.biases
        codewords = (0..<rows).map { _ in biases.map { $0.symbol(forUniformWord: random.next()) } }
    }

    /// What a leak made from `rows`' copies shows, period by period.
    func leak(of rows: [Int], averaged: Bool, seed: UInt64, positions: Range<Int>? = nil) -> [VariantSet] {
        var random = SplitMix64(seed: seed)
        let shown = positions ?? 0..<biases.count
        return (0..<biases.count).map { i in
            guard shown.contains(i) else { return .erased }
            if averaged { return VariantSet(rows.map { codewords[$0][i] }) }
            return VariantSet([codewords[rows[random.below(rows.count)]][i]])
        }
    }

    func accusation(_ observed: [VariantSet]) -> CollusionAccusation {
        CollusionAccusation(biases: biases, observations: observed, rowCount: codewords.count)
    }

    func named(_ observed: [VariantSet]) -> [Int] {
        accusation(observed).accuse(codewords).filter { $0.isNamed() }.map(\.row).sorted()
    }
}

@Suite("variant code: biases, symbols, accusation")
struct VariantCodeTests {
    // MARK: Biases and symbols

    @Test func biasesAreIntegerWeightsWithTheCutoff() {
        var random = SplitMix64(seed: 1)
        for q in VariantBias.alphabetSizes {
            for _ in 0..<200 {
                let bias = VariantBias(uniformWords: (0..<(q - 1)).map { _ in UInt32(truncatingIfNeeded: random.next()) })
                #expect(bias.alphabetSize == q)
                #expect(bias.weights.reduce(0, +) == bias.total)
                for k in 0..<q { #expect(bias.probability(of: k) >= 1.0 / 32 - 1e-9) }
            }
        }
        // Words at the ends of the range: the gaps are 0 and the whole span, plus the cutoff.
        let extreme = VariantBias(uniformWords: [0, 0, UInt32.max])
        #expect(extreme.weights[0] == extreme.weights[1] && extreme.weights[2] > extreme.weights[3])
    }

    /// Dirichlet(1) mixed with the uniform vector: each symbol's mean probability is 1/q, and a
    /// symbol's probability is (1 − q·t)·Beta(1, q − 1) + t, whose variance is (1 − q·t)²·(q − 1)/(q²(q + 1)).
    @Test func biasesFollowTheDirichletMixture() {
        var random = SplitMix64(seed: 2)
        let q = 4, n = 20_000
        var sum = [Double](repeating: 0, count: q), squares = [Double](repeating: 0, count: q)
        for _ in 0..<n {
            let bias = VariantBias(uniformWords: (0..<(q - 1)).map { _ in UInt32(truncatingIfNeeded: random.next()) })
            for k in 0..<q {
                sum[k] += bias.probability(of: k)
                squares[k] += bias.probability(of: k) * bias.probability(of: k)
            }
        }
        let shrink = 1 - Double(q) / 32
        let expectedVariance = shrink * shrink * Double(q - 1) / Double(q * q * (q + 1))
        for k in 0..<q {
            let mean = sum[k] / Double(n), variance = squares[k] / Double(n) - mean * mean
            #expect(abs(mean - 0.25) < 0.005, "symbol \(k): mean \(mean)")
            #expect(abs(variance / expectedVariance - 1) < 0.05, "symbol \(k): variance \(variance), expected \(expectedVariance)")
        }
    }

    @Test func symbolsAreDrawnWithTheirProbabilities() {
        let bias = VariantBias(uniformWords: [0x4000_0000, 0x5000_0000, 0xC000_0000])
        var random = SplitMix64(seed: 3)
        var counts = [0, 0, 0, 0]
        let n = 40_000
        for _ in 0..<n { counts[bias.symbol(forUniformWord: random.next())] += 1 }
        for k in 0..<4 {
            let expected = bias.probability(of: k) * Double(n)
            #expect(abs(Double(counts[k]) - expected) < 5 * expected.squareRoot(), "symbol \(k): \(counts[k]) vs \(expected)")
        }
        #expect(bias.symbol(forUniformWord: 0) == 0)
        #expect(bias.symbol(forUniformWord: .max) == 3)
        // The same word always draws the same symbol: integers only.
        #expect(bias.symbol(forUniformWord: 0x1234_5678_9ABC_DEF0) == bias.symbol(forUniformWord: 0x1234_5678_9ABC_DEF0))
    }

    @Test func setsNameTheirMembers() {
        let set = VariantSet([0, 2])
        #expect(set.contains(0) && !set.contains(1) && set.contains(2) && set.count == 2)
        #expect(set.description == "0+2" && VariantSet.erased.description == "–" && VariantSet.erased.isErased)
        let bias = VariantBias(uniformOver: 4)
        #expect(abs(bias.probability(of: set) - 0.5) < 1e-12)
    }

    // MARK: The score and its bound

    /// An innocent row's term has mean 0 and variance 1 at every position, whatever is shown.
    @Test func innocentScoresAreStandardised() {
        let code = TestCode(rows: 2000, positions: 100, seed: 4)
        let observed = code.leak(of: [0, 1], averaged: false, seed: 5)
        let accusation = code.accusation(observed)
        let scores = (2..<2000).map { accusation.score(code.codewords[$0]) }
        let mean = scores.reduce(0, +) / Double(scores.count)
        let variance = scores.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(scores.count - 1)
        #expect(abs(mean) < 4 * (100.0 / 1998).squareRoot(), "mean \(mean)")
        #expect(abs(variance / 100 - 1) < 0.12, "variance \(variance)")
    }

    /// The bound is never below the exact tail: on a code of 18 positions (single variants and
    /// pairs) the tail is counted exactly over all 2¹⁸ outcomes.
    @Test func theBoundIsAboveTheExactTail() {
        let code = TestCode(rows: 1, positions: 18, seed: 6)
        var random = SplitMix64(seed: 7)
        let observed = (0..<18).map { i in VariantSet(i % 3 == 0 ? [random.below(4), random.below(4)] : [random.below(4)]) }
        let accusation = code.accusation(observed)
        // Every combination of in/out of the set: 2¹² outcomes with their probabilities.
        var outcomes: [(score: Double, probability: Double)] = [(0, 1)]
        for term in accusation.terms {
            outcomes = outcomes.flatMap { [($0.score + term.inSet, $0.probability * term.probability),
                                           ($0.score + term.notInSet, $0.probability * (1 - term.probability))] }
        }
        outcomes.sort { $0.score > $1.score }
        var tail = 0.0, index = 0, sharpened = 0
        for s in stride(from: accusation.highestScore - 0.05, to: 0, by: -0.1) {
            while index < outcomes.count, outcomes[index].score >= s - 1e-12 { tail += outcomes[index].probability; index += 1 }
            let bound = exp(accusation.logTailBound(score: s))
            #expect(bound >= tail * (1 - 1e-9), "score \(s): bound \(bound) < exact \(tail)")
            // The normal part sharpens Chernoff's bound somewhere along the tail.
            let lambda = CollusionAccusation.root(from: s / 18) { let c = accusation.cumulant($0); return (c.slope - s, c.curvature) }
            if bound < exp(accusation.cumulant(lambda).value - lambda * s) * 0.9 { sharpened += 1 }
        }
        #expect(sharpened > 0)
        // Matching everything: exactly the product of the probabilities.
        let all = accusation.terms.reduce(1) { $0 * $1.probability }
        #expect(abs(exp(accusation.logTailBound(score: accusation.highestScore)) / all - 1) < 1e-9)
        #expect(accusation.logTailBound(score: accusation.highestScore + 1) == -.infinity)
        #expect(accusation.logTailBound(score: -3) == 0)
    }

    @Test func theThresholdIsWhereTheBoundMeetsTheTarget() throws {
        let code = TestCode(rows: 300, positions: 300, seed: 8)
        let accusation = code.accusation(code.leak(of: [3], averaged: false, seed: 9))
        let threshold = try #require(accusation.threshold())
        #expect(abs(accusation.log10FalseAccusation(score: threshold) + 6) < 1e-6)
        // Thirty periods of one leaker can be enough, three cannot.
        let short = code.accusation(code.leak(of: [3], averaged: false, seed: 9, positions: 0..<3))
        #expect(short.threshold() == nil)
    }

    // MARK: Who is named

    @Test func oneMinuteOfOneRowNamesThatRow() {
        let code = TestCode(rows: 300, positions: 300, seed: 10)
        // 60 s at 2 s a period, anywhere in the lecture.
        #expect(code.named(code.leak(of: [42], averaged: false, seed: 11, positions: 120..<150)) == [42])
        #expect(code.named(code.leak(of: [7], averaged: false, seed: 11, positions: 0..<30)) == [7])
    }

    @Test func threeRowsMixedSegmentBySegmentAreAllNamed() {
        let code = TestCode(rows: 300, positions: 300, seed: 12)
        #expect(code.named(code.leak(of: [5, 150, 299], averaged: false, seed: 13)) == [5, 150, 299])
    }

    @Test func twoAveragedCopiesAreBothNamed() {
        let code = TestCode(rows: 300, positions: 300, seed: 14)
        #expect(code.named(code.leak(of: [20, 21], averaged: true, seed: 15)) == [20, 21])
        #expect(code.named(code.leak(of: [20, 21, 22], averaged: true, seed: 15)) == [20, 21, 22])
    }

    @Test func nothingShownOrAForgedSequenceNamesNobody() {
        let code = TestCode(rows: 300, positions: 300, seed: 16)
        #expect(code.named([VariantSet](repeating: .erased, count: 300)).isEmpty)
        #expect(code.accusation([VariantSet](repeating: .erased, count: 300)).threshold() == nil)
        var random = SplitMix64(seed: 17)
        #expect(code.named((0..<300).map { _ in VariantSet([random.below(4)]) }).isEmpty)
        // Another key's code: its rows' leak against these rows.
        let other = TestCode(rows: 300, positions: 300, seed: 18)
        #expect(code.named(other.leak(of: [1, 2, 3], averaged: false, seed: 19)).isEmpty)
    }

    /// The calibration behind the stated probability: 200 leaks none of these rows made (a
    /// forged sequence, another key's colluders mixed or averaged, half erased), each scored
    /// against 300 innocent rows — 60,000 innocent scores. The bound holds at every level the
    /// sample can see (the share of innocent p-values at or below α is at most α), and nobody is
    /// named at 10⁻⁶. (`scripts/variant-code-calibration` runs 10,000 such leaks.)
    @Test func innocentRowsAreNamedNoMoreOftenThanTheBoundSays() throws {
        let code = TestCode(rows: 300, positions: 150, seed: 20)
        let levels = [1e-1, 1e-2, 1e-3]
        var below = [0, 0, 0]
        var named = 0
        for trial in 0..<200 {
            let other = TestCode(rows: 3, positions: 150, seed: 1000 + UInt64(trial))
            var random = SplitMix64(seed: 5000 + UInt64(trial))
            let observed: [VariantSet] = switch trial % 4 {
            case 0: (0..<150).map { _ in VariantSet([random.below(4)]) }
            case 1: other.leak(of: [0, 1, 2], averaged: false, seed: UInt64(trial))
            case 2: other.leak(of: [0, 1], averaged: true, seed: UInt64(trial))
            default: other.leak(of: [0], averaged: false, seed: UInt64(trial), positions: 40..<115)
            }
            let accusation = code.accusation(observed)
            let scores = code.codewords.map(accusation.score)
            // Per row (no union bound): p ≤ α exactly when the score reaches the one-row threshold.
            let single = CollusionAccusation(biases: code.biases, observations: observed, rowCount: 1)
            for (index, level) in levels.enumerated() {
                let threshold = try #require(single.threshold(falseAccusation: level))
                below[index] += scores.filter { $0 >= threshold }.count
            }
            named += accusation.accuse(code.codewords).filter { $0.isNamed() }.count
        }
        for (index, level) in levels.enumerated() {
            #expect(Double(below[index]) <= level * 60_000, "p ≤ \(level): \(below[index]) of 60000")
        }
        #expect(named == 0)
    }

    // MARK: The design formula

    @Test func theDesignFormulaMatchesItsKnownCases() {
        // Binary arcsine: μ̃ = 2/π gives (π²/2)·c²·(…)², Laarhoven–de Weger's asymptote.
        let binary = VariantCodeDesign.positionsNeeded(rows: 300, colluders: 3, coalitionScore: 2 / Double.pi, missProbability: 1)
        #expect(abs(Double(binary) - Double.pi * Double.pi / 2 * 9 * log(300 / 1e-6)) <= 1)
        // This code's coalition scores (docs/design/variant-marks.md §7).
        let interleaving = VariantCodeDesign.coalitionScore(alphabetSize: 4, colluders: 3, strategy: .interleaving)
        let averaging = VariantCodeDesign.coalitionScore(alphabetSize: 4, colluders: 3, strategy: .averaging)
        let worst = VariantCodeDesign.coalitionScore(alphabetSize: 4, colluders: 3, strategy: .worst)
        #expect(abs(interleaving - 1.55) < 0.05 && abs(averaging - 2.11) < 0.06 && abs(worst - 1.08) < 0.06,
                "μ̃ \(interleaving), \(averaging), \(worst)")
        #expect(worst < interleaving && interleaving < averaging)
        let needed = VariantCodeDesign.positionsNeeded(rows: 300, colluders: 3, alphabetSize: 4, strategy: .interleaving)
        #expect((300...345).contains(needed), "\(needed)")
    }
}
