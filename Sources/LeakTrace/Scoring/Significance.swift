import Foundation

/// The statistics that turn per-slot evidence into a verdict, in logarithms so that the tiny
/// probabilities of a clear identification (1e-40 and below) do not underflow.
enum Significance {
    /// ln P(χ² with 2k degrees of freedom ≥ x): Fisher's method combines k independent
    /// p-values p_i through x = −2 Σ ln p_i. For even degrees of freedom the tail has the
    /// closed form e^(−x/2) Σ_{i<k} (x/2)^i / i!, summed here in log space.
    static func logChiSquareTail(_ x: Double, halfDegreesOfFreedom k: Int) -> Double {
        guard k > 0 else { return 0 }
        guard x > 0 else { return 0 }
        let m = x / 2
        var logTerm = 0.0, largest = 0.0
        var logTerms: [Double] = [0]
        for i in 1..<k {
            logTerm += log(m) - log(Double(i))
            logTerms.append(logTerm)
            largest = max(largest, logTerm)
        }
        let sum = logTerms.reduce(0) { $0 + exp($1 - largest) }
        return min(0, -m + largest + log(sum))
    }

    /// ln of the chance that at least one of `trials` independent draws, each with probability
    /// e^logP, happens: 1 − (1 − p)^n, without cancelling away small p.
    static func logAnyOf(trials: Int, logP: Double) -> Double {
        let n = Double(max(trials, 1))
        if logP < -30 { return min(0, logP + log(n)) }
        let p = exp(logP)
        return log(-expm1(n * log1p(-min(p, 1 - 1e-16))))
    }
}

/// SplitMix64: a small, well-mixed generator with a fixed sequence per seed, so decoy paths
/// (and with them every score) are the same on every run and machine.
struct SeededGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) / 9_007_199_254_740_992.0 }
}
