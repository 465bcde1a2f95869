import Foundation

/// How long a leak must be for the variant code to name its colluders, before the fact: the
/// design formula of docs/design/variant-marks.md §4, for choosing q and the period for a class size.
///
/// In the Gaussian approximation an innocent row's score over m positions has mean 0 and
/// variance m, the coalition's total has mean μ̃·m and its weakest member at least μ̃·m/c, so
///
///     m ≥ (2·c² / μ̃²) · ( √ln(n/ε₁) + √ln(1/ε₂) )²
///
/// positions name every colluder with miss probability ε₂ at false-accusation probability ε₁.
/// For q = 2 and Tardos' arcsine biases μ̃ = 2/π, and 2/μ̃² = π²/2 is Laarhoven and de Weger's
/// asymptote for the symmetric binary code. Here μ̃ is measured for this code's biases by a
/// fixed-seed simulation (`coalitionScore`). The accusation itself never relies on this
/// approximation: it computes its own bound for each leak (`CollusionAccusation`).
public enum VariantCodeDesign {
    /// How the colluders make each period of their leak from their copies.
    public enum Strategy: String, Sendable, CaseIterable {
        /// Each period from one of them, chosen at random (segment-by-segment mixing).
        case interleaving
        /// All copies averaged: every colluder's variant shows.
        case averaging
        /// The choice, per pattern of how many colluders hold each variant, that lowers the
        /// coalition's score most: any variant or set of variants they hold (marking assumption).
        case worst
    }

    /// Positions needed by the formula above, given the coalition score per position `mu`.
    public static func positionsNeeded(rows: Int, colluders: Int, coalitionScore mu: Double,
                                       falseAccusation: Double = CollusionAccusation.falseAccusationTarget,
                                       missProbability: Double = 0.01) -> Int {
        precondition(rows > 0 && colluders > 0 && mu > 0 && falseAccusation > 0 && missProbability > 0)
        let c = Double(colluders)
        let root = log(Double(rows) / falseAccusation).squareRoot() + log(1 / missProbability).squareRoot()
        return Int((2 * c * c / (mu * mu) * root * root).rounded(.up))
    }

    /// Positions needed against `strategy` for a q-ary code.
    public static func positionsNeeded(rows: Int, colluders: Int, alphabetSize q: Int, strategy: Strategy,
                                       falseAccusation: Double = CollusionAccusation.falseAccusationTarget,
                                       missProbability: Double = 0.01) -> Int {
        positionsNeeded(rows: rows, colluders: colluders,
                        coalitionScore: coalitionScore(alphabetSize: q, colluders: colluders, strategy: strategy),
                        falseAccusation: falseAccusation, missProbability: missProbability)
    }

    /// μ̃: the coalition's expected total score per position, estimated over `samples` random
    /// positions (biases and colluders' symbols) drawn from a fixed seed, so it is the same on
    /// every run.
    public static func coalitionScore(alphabetSize q: Int, colluders c: Int, strategy: Strategy, samples: Int = 20_000) -> Double {
        precondition(VariantBias.alphabetSizes.contains(q) && c >= 1)
        var random = SeededGenerator(seed: 0xC011_0DE5 ^ UInt64(q << 8 | c))
        // Per pattern of holdings (counts sorted high to low), per choice of ranks shown: summed scores.
        var sums: [[Int]: [Double]] = [:]
        var total = 0.0
        for _ in 0..<samples {
            let bias = VariantBias(uniformWords: (0..<(q - 1)).map { _ in UInt32(truncatingIfNeeded: random.next()) })
            let symbols = (0..<c).map { _ in bias.symbol(forUniformWord: random.next()) }
            func coalition(_ set: VariantSet) -> Double {
                let p = bias.probability(of: set)
                guard p < 1 else { return 0 }
                let inSet = ((1 - p) / p).squareRoot(), notInSet = -(p / (1 - p)).squareRoot()
                return symbols.reduce(0) { $0 + (set.contains($1) ? inSet : notInSet) }
            }
            switch strategy {
            case .interleaving:
                total += coalition(VariantSet([symbols[Int(random.next() % UInt64(c))]]))
            case .averaging:
                total += coalition(VariantSet(symbols))
            case .worst:
                // Symbols held, most-held first (ties in random order: the coalition cannot tell them apart).
                let held = Dictionary(symbols.map { ($0, 1) }, uniquingKeysWith: +)
                let ranked = held.map { ($0.key, $0.value, random.next()) }.sorted { ($1.1, $1.2) < ($0.1, $0.2) }
                let pattern = ranked.map(\.1)
                let choices = (1..<(1 << ranked.count)).map { choice in
                    coalition(VariantSet(ranked.indices.filter { choice & (1 << $0) != 0 }.map { ranked[$0].0 }))
                }
                sums[pattern] = zip(sums[pattern] ?? [Double](repeating: 0, count: choices.count), choices).map(+)
            }
        }
        if strategy == .worst {
            // The coalition plays, for each pattern, the choice with the lowest mean.
            total = sums.values.reduce(0) { $0 + ($1.min() ?? 0) }
        }
        return total / Double(samples)
    }
}
