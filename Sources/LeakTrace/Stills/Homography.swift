import Foundation

/// A plane-to-plane projective map, x' = (h0·x + h1·y + h2) / (h6·x + h7·y + h8), likewise y'
/// with h3…h5: how a flat picture (the lecture's frame on a screen) appears in a photograph of
/// it, whatever the camera's angle; a screenshot or a crop is the special case without perspective.
public struct Homography: Sendable, Equatable, CustomStringConvertible {
    /// Row by row, normalised so that the last entry is 1 where it can be.
    public private(set) var entries: [Double]

    public init(_ entries: [Double]) {
        precondition(entries.count == 9, "a homography has nine entries")
        let last = entries[8]
        self.entries = abs(last) > 1e-12 ? entries.map { $0 / last } : entries
    }

    public static let identity = Homography([1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// x' = scale·x + offsetX, likewise y: a screenshot's map.
    public init(scaleX: Double, scaleY: Double, offsetX: Double, offsetY: Double) {
        self.init([scaleX, 0, offsetX, 0, scaleY, offsetY, 0, 0, 1])
    }

    /// The image of a point; nil where the map sends it to infinity (behind the camera).
    public func apply(x: Double, y: Double) -> (x: Double, y: Double)? {
        let h = entries
        let w = h[6] * x + h[7] * y + h[8]
        guard w > 1e-12 else { return nil }
        return ((h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w)
    }

    /// The images of a rectangle's corners, clockwise from the top left.
    public func corners(of rect: PlaneRect) -> [(x: Double, y: Double)]? {
        let points = [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.maxX, rect.maxY), (rect.minX, rect.maxY)]
        let mapped = points.compactMap { apply(x: $0.0, y: $0.1) }
        return mapped.count == 4 ? mapped : nil
    }

    /// The box around a rectangle's image (nil where a corner goes to infinity).
    public func boundingBox(of rect: PlaneRect) -> PlaneRect? {
        guard let corners = corners(of: rect) else { return nil }
        return PlaneRect(minX: corners.map(\.x).min() ?? 0, minY: corners.map(\.y).min() ?? 0,
                         maxX: corners.map(\.x).max() ?? 0, maxY: corners.map(\.y).max() ?? 0)
    }

    /// How many target pixels one source pixel becomes near a point: the square root of the
    /// map's local area scale (its Jacobian's determinant).
    public func localScale(x: Double, y: Double) -> Double {
        let h = entries
        let w = h[6] * x + h[7] * y + h[8]
        guard abs(w) > 1e-12 else { return 0 }
        let u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w
        let a = (h[0] - u * h[6]) / w, b = (h[1] - u * h[7]) / w
        let c = (h[3] - v * h[6]) / w, d = (h[4] - v * h[7]) / w
        return sqrt(abs(a * d - b * c))
    }

    /// The map back; nil when it has none.
    public var inverse: Homography? {
        let h = entries
        let cofactors = [
            h[4] * h[8] - h[5] * h[7], h[2] * h[7] - h[1] * h[8], h[1] * h[5] - h[2] * h[4],
            h[5] * h[6] - h[3] * h[8], h[0] * h[8] - h[2] * h[6], h[2] * h[3] - h[0] * h[5],
            h[3] * h[7] - h[4] * h[6], h[1] * h[6] - h[0] * h[7], h[0] * h[4] - h[1] * h[3],
        ]
        let determinant = h[0] * cofactors[0] + h[1] * cofactors[3] + h[2] * cofactors[6]
        guard abs(determinant) > 1e-15 else { return nil }
        return Homography(cofactors.map { $0 / determinant })
    }

    /// This map followed by `next`.
    public func followed(by next: Homography) -> Homography {
        let a = next.entries, b = entries
        var product = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                product[row * 3 + column] = (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
            }
        }
        return Homography(product)
    }

    /// Whether the map keeps a picture's orientation inside `rect` (no mirror image, no fold):
    /// its corners' images go round the same way and make a convex quadrilateral.
    public func keepsOrientation(of rect: PlaneRect) -> Bool {
        guard let corners = corners(of: rect) else { return false }
        for index in 0..<4 {
            let a = corners[index], b = corners[(index + 1) % 4], c = corners[(index + 2) % 4]
            let turn = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            guard turn > 0 else { return false }
        }
        return true
    }

    /// The homography taking each `from` point to its `to` point, in the least-squares sense
    /// when there are more than four (the direct linear transform on coordinates normalised to
    /// their centroid and mean distance √2, Hartley's conditioning); nil for degenerate points.
    public static func fitting(from: [(x: Double, y: Double)], to: [(x: Double, y: Double)]) -> Homography? {
        precondition(from.count == to.count, "pairs of points")
        guard from.count >= 4, let normalizeFrom = normalizing(from), let normalizeTo = normalizing(to) else { return nil }
        // With h8 = 1: two equations per pair in h0…h7, solved by the normal equations.
        var normal = [Double](repeating: 0, count: 64)
        var right = [Double](repeating: 0, count: 8)
        for (p, q) in zip(from, to) {
            guard let a = normalizeFrom.apply(x: p.x, y: p.y), let b = normalizeTo.apply(x: q.x, y: q.y) else { return nil }
            let rows: [([Double], Double)] = [
                ([a.x, a.y, 1, 0, 0, 0, -a.x * b.x, -a.y * b.x], b.x),
                ([0, 0, 0, a.x, a.y, 1, -a.x * b.y, -a.y * b.y], b.y),
            ]
            for (row, value) in rows {
                for i in 0..<8 {
                    right[i] += row[i] * value
                    for j in 0..<8 { normal[i * 8 + j] += row[i] * row[j] }
                }
            }
        }
        guard let solution = LinearSystem.solve(normal, right, size: 8), let back = normalizeTo.inverse else { return nil }
        let normalized = Homography(solution + [1])
        return normalizeFrom.followed(by: normalized).followed(by: back)
    }

    /// The similarity that moves points' centroid to the origin and their mean distance to √2.
    private static func normalizing(_ points: [(x: Double, y: Double)]) -> Homography? {
        let n = Double(points.count)
        let cx = points.reduce(0) { $0 + $1.x } / n, cy = points.reduce(0) { $0 + $1.y } / n
        let spread = points.reduce(0) { $0 + hypot($1.x - cx, $1.y - cy) } / n
        guard spread > 1e-9 else { return nil }
        let s = 2.0.squareRoot() / spread
        return Homography([s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1])
    }

    public var description: String {
        "[" + entries.map { String(format: "%.6g", $0) }.joined(separator: ", ") + "]"
    }
}

/// Small dense linear systems, solved by Gaussian elimination with partial pivoting.
enum LinearSystem {
    /// x with A·x = b for a `size`×`size` matrix given row by row; nil when A is (nearly) singular.
    static func solve(_ matrix: [Double], _ right: [Double], size n: Int) -> [Double]? {
        var a = matrix, b = right
        let scale = a.map(abs).max() ?? 0
        guard scale > 0 else { return nil }
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(a[$0 * n + column]) < abs(a[$1 * n + column]) }),
                  abs(a[pivot * n + column]) > 1e-12 * scale else { return nil }
            if pivot != column {
                for k in 0..<n { a.swapAt(pivot * n + k, column * n + k) }
                b.swapAt(pivot, column)
            }
            for row in (column + 1)..<n {
                let factor = a[row * n + column] / a[column * n + column]
                guard factor != 0 else { continue }
                for k in column..<n { a[row * n + k] -= factor * a[column * n + k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<n { sum -= a[row * n + k] * x[k] }
            x[row] = sum / a[row * n + row]
        }
        return x
    }
}
