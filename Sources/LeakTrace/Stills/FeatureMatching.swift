import Foundation

/// A feature of one picture paired with its look-alike in another.
public struct FeatureMatch: Sendable, Equatable {
    /// Index in the first picture's features.
    public var query: Int
    /// Index in the second picture's features.
    public var reference: Int
    /// Bits in which their descriptors differ (of 256).
    public var distance: Int
}

public enum FeatureMatching {
    /// Descriptors further apart than this are no match at all (a quarter of the bits).
    public static let maximumDistance = 64
    /// The nearest must be clearly nearer than the second nearest (Lowe's ratio test): repeated
    /// shapes, letters of a slide's text above all, would otherwise pair by chance.
    public static let ratio = 0.8

    /// For each feature of `query`, its nearest feature of `reference` by Hamming distance,
    /// kept when it is near enough and clearly nearer than any other.
    public static func match(_ query: CornerFeatures, _ reference: CornerFeatures) -> [FeatureMatch] {
        guard query.count > 0, reference.count > 1 else { return [] }
        var matches: [FeatureMatch] = []
        query.descriptors.withUnsafeBufferPointer { q in
            reference.descriptors.withUnsafeBufferPointer { r in
                for i in 0..<query.count {
                    let a0 = q[4 * i], a1 = q[4 * i + 1], a2 = q[4 * i + 2], a3 = q[4 * i + 3]
                    var best = Int.max, second = Int.max, bestIndex = -1
                    for j in 0..<reference.count {
                        let d = (a0 ^ r[4 * j]).nonzeroBitCount + (a1 ^ r[4 * j + 1]).nonzeroBitCount
                            + (a2 ^ r[4 * j + 2]).nonzeroBitCount + (a3 ^ r[4 * j + 3]).nonzeroBitCount
                        if d < best {
                            second = best
                            best = d
                            bestIndex = j
                        } else if d < second {
                            second = d
                        }
                    }
                    guard best <= maximumDistance, Double(best) < ratio * Double(second) else { continue }
                    matches.append(FeatureMatch(query: i, reference: bestIndex, distance: best))
                }
            }
        }
        return matches
    }
}

/// A homography found among point pairs of which many are wrong (RANSAC: Fischler and Bolles
/// 1981): the map that four pairs drawn at random give, kept when most other pairs agree with
/// it, then fitted again to every pair that agrees.
public enum RobustHomography {
    public struct Estimate: Sendable {
        /// `from` points → `to` points.
        public var map: Homography
        /// The pairs that agree with it.
        public var inliers: [Int]
    }

    /// The map from `from` to `to` that the most pairs agree with to within `threshold` (in
    /// `to`'s units), when at least `minimumInliers` do; draws are seeded, so every run agrees.
    /// `acceptable` refuses maps that cannot be (a mirror image, a fold).
    public static func estimate(from: [(x: Double, y: Double)], to: [(x: Double, y: Double)], threshold: Double,
                                minimumInliers: Int = 8, maximumIterations: Int = 3000, seed: UInt64 = 0x4A4E_5AC,
                                acceptable: (Homography) -> Bool = { _ in true }) -> Estimate? {
        precondition(from.count == to.count, "pairs of points")
        let n = from.count
        guard n >= max(4, minimumInliers) else { return nil }
        var generator = SeededGenerator(seed: seed)
        var best: [Int] = []
        var iterations = maximumIterations
        var iteration = 0
        while iteration < iterations {
            iteration += 1
            var sample: [Int] = []
            while sample.count < 4 {
                let index = Int(generator.next() % UInt64(n))
                if !sample.contains(index) { sample.append(index) }
            }
            guard !degenerate(sample.map { from[$0] }), !degenerate(sample.map { to[$0] }),
                  let map = Homography.fitting(from: sample.map { from[$0] }, to: sample.map { to[$0] }), acceptable(map) else { continue }
            let inliers = agreeing(map, from: from, to: to, threshold: threshold)
            guard inliers.count > best.count else { continue }
            best = inliers
            // Enough draws that one of them, with 99.9% chance, was four inliers.
            let share = Double(inliers.count) / Double(n)
            let allInliers = pow(share, 4)
            if allInliers > 1e-9 {
                let needed = log(0.001) / log(max(1e-12, 1 - allInliers))
                iterations = min(iterations, max(iteration, Int(needed.rounded(.up))))
            }
        }
        guard best.count >= minimumInliers else { return nil }
        // Fitted to every agreeing pair, twice: the second time to those that still agree.
        var inliers = best
        var map: Homography?
        for _ in 0..<2 {
            guard let fitted = Homography.fitting(from: inliers.map { from[$0] }, to: inliers.map { to[$0] }), acceptable(fitted) else { break }
            let agreeing = agreeing(fitted, from: from, to: to, threshold: threshold)
            guard agreeing.count >= minimumInliers else { break }
            map = fitted
            inliers = agreeing
        }
        guard let map else { return nil }
        return Estimate(map: map, inliers: inliers)
    }

    static func agreeing(_ map: Homography, from: [(x: Double, y: Double)], to: [(x: Double, y: Double)], threshold: Double) -> [Int] {
        let squared = threshold * threshold
        return from.indices.filter { index in
            guard let p = map.apply(x: from[index].x, y: from[index].y) else { return false }
            let dx = p.x - to[index].x, dy = p.y - to[index].y
            return dx * dx + dy * dy <= squared
        }
    }

    /// Whether three of four points (nearly) lie on a line: no homography follows from them.
    static func degenerate(_ points: [(x: Double, y: Double)]) -> Bool {
        let xs = points.map(\.x), ys = points.map(\.y)
        let spread = max((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0))
        guard spread > 1e-6 else { return true }
        for i in 0..<4 {
            let others = (0..<4).filter { $0 != i }.map { points[$0] }
            let area = abs((others[1].x - others[0].x) * (others[2].y - others[0].y) - (others[1].y - others[0].y) * (others[2].x - others[0].x))
            if area < 0.01 * spread * spread { return true }
        }
        return false
    }
}
