import Foundation

/// Corners of a picture with binary descriptors, found at several scales: what a still picture
/// and the lecture's frames are matched by, whatever the still's size, crop or perspective.
///
/// Each level of a pyramid (the picture shrunk by 1.25 per level) gives its strongest corners
/// (Shi and Tomasi's smaller eigenvalue of the gradients' structure tensor, spread over a grid
/// so that one busy corner of the picture does not take them all), and each corner a 256-bit
/// BRIEF descriptor: comparisons of smoothed pixels at fixed pairs of offsets around it
/// (Calonder et al. 2010), as ORB does but without its orientation, which a screen photographed
/// at an angle of a few degrees does not need. Points are stored in the full picture's pixels.
public struct CornerFeatures: Sendable {
    /// Where each feature is, in the picture's own (level 0) continuous pixel units (a pixel's
    /// centre is at +0.5).
    public private(set) var xs: [Float] = []
    public private(set) var ys: [Float] = []
    /// The pyramid level each came from (its scale is `levelScale^level`).
    public private(set) var levels: [UInt8] = []
    /// Four words per feature.
    public private(set) var descriptors: [UInt64] = []

    public var count: Int { xs.count }

    /// Each level is this much smaller than the one before.
    public static let levelScale = 1.25
    /// The descriptor's pairs lie within this many pixels of the corner (at its level).
    static let patchRadius = 15
    static let border = patchRadius + 3

    /// Finds up to `budget` features in `image`, over the levels whose width stays at least
    /// `minimumWidth` pixels (and at most `maximumLevels` of them).
    public init(_ image: LumaImage, budget: Int, minimumWidth: Int = 96, maximumLevels: Int = 14) {
        // Each level's size, as a fraction of the picture's.
        var factors: [Double] = []
        for index in 0..<maximumLevels {
            let factor = 1 / pow(Self.levelScale, Double(index))
            guard Double(image.width) * factor >= Double(minimumWidth), Double(image.height) * factor >= Double(2 * Self.border + 8) else { break }
            factors.append(factor)
        }
        let totalArea = factors.reduce(0.0) { $0 + $1 * $1 }
        var level = image
        for (index, factor) in factors.enumerated() {
            if index > 0 {
                // Each level from the one before: area resampling keeps it free of aliasing.
                level = level.resized(width: Int((Double(image.width) * factor).rounded()),
                                      height: max(1, Int((Double(image.height) * factor).rounded())))
            }
            // Finer levels hold more corners: a budget in proportion to each level's area.
            let levelBudget = max(40, Int(Double(budget) * factor * factor / totalArea))
            add(level, level: index, scale: Double(level.width) / Double(image.width), budget: levelBudget)
        }
    }

    private mutating func add(_ level: LumaImage, level index: Int, scale: Double, budget: Int) {
        let corners = Self.corners(in: level, budget: budget)
        let smoothed = level.boxBlurred(radius: 2)
        let width = level.width
        let pairs = BriefPattern.shared.offsets(width: width)
        smoothed.pixels.withUnsafeBufferPointer { pixels in
            pairs.withUnsafeBufferPointer { pattern in
                for corner in corners {
                    let centre = corner.y * width + corner.x
                    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
                    for bit in 0..<256 {
                        let pair = pattern[bit]
                        guard pixels[centre + pair.first] < pixels[centre + pair.second] else { continue }
                        let mask = UInt64(1) << UInt64(bit & 63)
                        switch bit >> 6 {
                        case 0: words.0 |= mask
                        case 1: words.1 |= mask
                        case 2: words.2 |= mask
                        default: words.3 |= mask
                        }
                    }
                    xs.append(Float((Double(corner.x) + 0.5) / scale))
                    ys.append(Float((Double(corner.y) + 0.5) / scale))
                    levels.append(UInt8(index))
                    descriptors += [words.0, words.1, words.2, words.3]
                }
            }
        }
    }

    /// The strongest corners of one level, at least `border` pixels from its edges: local maxima
    /// of the Shi–Tomasi response over 3×3, the best of each cell of a grid first (so that they
    /// spread over the picture), then the best of the rest.
    static func corners(in image: LumaImage, budget: Int) -> [(x: Int, y: Int)] {
        let width = image.width, height = image.height
        let smooth = image.boxBlurred(radius: 1)
        var xx = [Float](repeating: 0, count: width * height)
        var yy = xx, xy = xx
        smooth.pixels.withUnsafeBufferPointer { p in
            xx.withUnsafeMutableBufferPointer { gxx in
                yy.withUnsafeMutableBufferPointer { gyy in
                    xy.withUnsafeMutableBufferPointer { gxy in
                        for y in 1..<(height - 1) {
                            for i in (y * width + 1)..<(y * width + width - 1) {
                                let gx = (p[i + 1] - p[i - 1]) / 2, gy = (p[i + width] - p[i - width]) / 2
                                gxx[i] = gx * gx
                                gyy[i] = gy * gy
                                gxy[i] = gx * gy
                            }
                        }
                    }
                }
            }
        }
        let a = LumaImage(width: width, height: height, pixels: xx).boxBlurred(radius: 2).pixels
        let c = LumaImage(width: width, height: height, pixels: yy).boxBlurred(radius: 2).pixels
        let b = LumaImage(width: width, height: height, pixels: xy).boxBlurred(radius: 2).pixels
        var response = [Float](repeating: 0, count: width * height)
        var strongest: Float = 0
        response.withUnsafeMutableBufferPointer { r in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    c.withUnsafeBufferPointer { c in
                        for i in 0..<r.count {
                            let half = (a[i] - c[i]) / 2
                            r[i] = (a[i] + c[i]) / 2 - (half * half + b[i] * b[i]).squareRoot()
                            strongest = max(strongest, r[i])
                        }
                    }
                }
            }
        }
        // A corner must stand above flat noise: at least a faint edge's response (a step of a
        // few grey levels) and a small share of the level's strongest.
        let floor = max(4, 0.005 * strongest)
        var candidates: [(x: Int, y: Int, response: Float)] = []
        response.withUnsafeBufferPointer { r in
            for y in border..<(height - border) {
                for x in border..<(width - border) {
                    let i = y * width + x
                    let value = r[i]
                    guard value > floor else { continue }
                    // A strict maximum over the 3×3 square, ties going to the first in reading order.
                    let up = i - width, down = i + width
                    guard value > r[up - 1], value > r[up], value > r[up + 1], value > r[i - 1],
                          value >= r[i + 1], value >= r[down - 1], value >= r[down], value >= r[down + 1] else { continue }
                    candidates.append((x, y, value))
                }
            }
        }
        candidates.sort { $0.response > $1.response }
        guard candidates.count > budget else { return candidates.map { ($0.x, $0.y) } }
        // A grid of about budget/4 cells, each giving its best few first.
        let cells = max(1, Int((Double(budget) / 4).squareRoot()))
        let cellWidth = max(1, (width + cells - 1) / cells), cellHeight = max(1, (height + cells - 1) / cells)
        var perCell = [Int](repeating: 0, count: cells * cells)
        var chosen: [(x: Int, y: Int)] = []
        var rest: [(x: Int, y: Int)] = []
        let firstPerCell = max(1, budget / (2 * cells * cells))
        for candidate in candidates {
            let cell = min(candidate.y / cellHeight, cells - 1) * cells + min(candidate.x / cellWidth, cells - 1)
            if perCell[cell] < firstPerCell {
                perCell[cell] += 1
                chosen.append((candidate.x, candidate.y))
            } else if rest.count < budget {
                rest.append((candidate.x, candidate.y))
            }
        }
        return Array((chosen + rest).prefix(budget))
    }
}

/// BRIEF's test pairs: 256 pairs of offsets drawn once from an isotropic Gaussian around the
/// corner (σ = a fifth of the patch's width), clamped to the patch; the same on every run.
struct BriefPattern: Sendable {
    /// Offsets in a level's pixels, as index differences for that level's width, made per width.
    struct Pair { var first: Int, second: Int }
    let points: [(dx: Int, dy: Int, ex: Int, ey: Int)]

    static let shared = BriefPattern()

    private init() {
        var generator = SeededGenerator(seed: 0xB41E_F00D)
        let radius = CornerFeatures.patchRadius
        let sigma = Double(2 * radius + 1) / 5
        func gaussian() -> Int {
            // Box–Muller.
            let u = max(generator.unit(), 1e-12), v = generator.unit()
            let value = sigma * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
            return min(max(Int(value.rounded()), -radius), radius)
        }
        points = (0..<256).map { _ in (gaussian(), gaussian(), gaussian(), gaussian()) }
    }

    /// The pairs as index differences in a picture `width` pixels wide.
    func offsets(width: Int) -> [Pair] {
        points.map { Pair(first: $0.dy * width + $0.dx, second: $0.ey * width + $0.ex) }
    }
}
