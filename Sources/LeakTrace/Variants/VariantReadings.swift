import Overlay

/// One period of a leak, read.
public struct VariantReading: Sendable, Equatable {
    /// The period: the position in the code.
    public var period: Int
    public var frames: Int
    /// Each variant's share of the difference: about 1 for the variant shown (less after what the
    /// leak did to it), ½ each for two averaged copies, about 0 for the others.
    public var shares: [Double]
    /// How much of the leak's difference from the original the variants explain, 0…1.
    public var explainedShare: Double
    /// The variants the period shows (empty: erased).
    public var variants: VariantSet
}

/// A leak's periods read, and how they became decisions.
public struct VariantReadings: Sendable {
    /// A variant counts as shown when its share is at least this part of the leak's strength.
    public static let shownShare = 0.25
    /// A period whose shares add up to less than this part of the leak's strength shows none.
    public static let presentShare = 0.35
    /// A leak whose typical period shows less than this share of the layer has no variant layer in it.
    public static let leastStrength = 0.2
    /// A period whose variants can show less than this part of the typical energy (a white mark on
    /// a white slide) is erased: its shares mean little.
    public static let leastPatternEnergy = 0.1

    public var periods: [VariantReading]
    /// The model blur (analysis pixels) that explained the leak best.
    public var modelBlurRadius: Int
    /// The leak's typical total share: how strongly the variant layer survives in it.
    public var strength: Double

    /// The decision for one period from its shares (docs/design/variant-marks.md §5).
    static func decide(shares: [Double], strength: Double, patternEnergyShare: Double) -> VariantSet {
        guard strength >= leastStrength, patternEnergyShare >= leastPatternEnergy,
              shares.reduce(0, +) >= presentShare * strength else { return .erased }
        return VariantSet(shares.indices.filter { shares[$0] >= shownShare * strength })
    }

    /// What positions `positions` of the code show: a period not read is erased.
    public func observations(_ positions: Range<Int>) -> [VariantSet] {
        var byPeriod: [Int: VariantSet] = [:]
        for reading in periods { byPeriod[reading.period] = reading.variants }
        return positions.map { byPeriod[$0] ?? .erased }
    }
}

/// Non-negative least squares for a handful of unknowns: the unconstrained fit on every support
/// (subset of unknowns), keeping the best whose solution is non-negative — the NNLS optimum lies
/// on one of them. q ≤ 8 variants: at most 255 systems of at most 8 unknowns.
enum NonNegativeLeastSquares {
    /// The β ≥ 0 minimising βᵀGβ − 2bᵀβ.
    static func solve(gram: [[Double]], projections: [Double]) -> [Double] {
        let q = projections.count
        var best = [Double](repeating: 0, count: q), bestGain = 0.0
        for support in 1..<(1 << q) {
            let members = (0..<q).filter { support & (1 << $0) != 0 }
            let matrix = members.map { k in members.map { gram[k][$0] } }
            guard let solution = solveLinear(matrix, members.map { projections[$0] }), solution.allSatisfy({ $0 >= 0 }) else { continue }
            // At the fit on a support, the objective's improvement is bᵀβ.
            let gain = zip(members, solution).reduce(0) { $0 + projections[$1.0] * $1.1 }
            if gain > bestGain {
                bestGain = gain
                best = [Double](repeating: 0, count: q)
                for (k, value) in zip(members, solution) { best[k] = value }
            }
        }
        return best
    }

    /// Gaussian elimination with partial pivoting; nil when the matrix is (nearly) singular.
    static func solveLinear(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        let n = b.count
        var m = a, v = b
        let scale = a.indices.map { abs(a[$0][$0]) }.max() ?? 0
        guard scale > 0 else { return nil }
        for column in 0..<n {
            let pivot = (column..<n).max { abs(m[$0][column]) < abs(m[$1][column]) } ?? column  // never empty: column < n
            guard abs(m[pivot][column]) > 1e-9 * scale else { return nil }
            m.swapAt(column, pivot); v.swapAt(column, pivot)
            for row in (column + 1)..<n {
                let factor = m[row][column] / m[column][column]
                for k in column..<n { m[row][k] -= factor * m[column][k] }
                v[row] -= factor * v[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in (0..<n).reversed() {
            var sum = v[row]
            for k in (row + 1)..<n { sum -= m[row][k] * x[k] }
            x[row] = sum / m[row][row]
        }
        return x
    }
}
