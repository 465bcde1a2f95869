/// A leak frame and the original frame shown at the same instant.
public struct FramePair: Sendable {
    public var leak: LumaImage
    public var original: LumaImage

    public init(leak: LumaImage, original: LumaImage) {
        self.leak = leak
        self.original = original
    }
}

/// How much of the original each side of the leak's picture lost: fractions of the original's
/// width (left, right) and height (top, bottom). Negative where the leak shows more than the
/// original (padding inside the detected content area).
public struct CropFractions: Sendable, Equatable {
    public var left: Double
    public var right: Double
    public var top: Double
    public var bottom: Double

    public init(left: Double, right: Double, top: Double, bottom: Double) {
        self.left = left
        self.right = right
        self.top = top
        self.bottom = bottom
    }

    /// The part of a `width`×`height` original the leak shows.
    public func visibleRegion(width: Double, height: Double) -> PlaneRect {
        PlaneRect(minX: left * width, minY: top * height, maxX: (1 - right) * width, maxY: (1 - bottom) * height)
    }
}

/// Finds where the original's picture lies in the leak's: the axis-aligned map (a scale and
/// an offset per axis) under which the original frames look most like the leak frames.
///
/// The leak is modelled as the original with each side cropped by up to `searchRange` and the
/// rest scaled into the leak's content area, which covers unequal crops, any rescale and added
/// bars. The search maximises the mean normalised cross-correlation over the pairs: a coarse
/// grid on small pictures, one axis pair at a time (x and y barely interact), then a pattern
/// search on the full-size pictures down to a fraction of a pixel.
public enum SpatialRegistration {
    /// The crops the search considers, per side.
    public static let searchRange: ClosedRange<Double> = -0.04...0.16

    public struct Result: Sendable {
        /// Original pixel coordinates (of the pairs' original frames) → leak pixel coordinates.
        public var map: AxisAlignedMap
        public var crops: CropFractions
        /// The mean correlation reached, −1…1: about 0.9 and above for a true match.
        public var correlation: Double
    }

    /// Registers `pairs` (all leak frames one size, all original frames one size) given the
    /// leak's content area in leak pixels; `start` seeds the search (nil: a coarse grid search first).
    /// The crops searched when the leak's content area may be only roughly where the picture is
    /// (a screen recording's lecture, found by where the picture changes).
    public static let wideSearchRange: ClosedRange<Double> = -0.16...0.26
    /// The full-size refinement looks at most this many pixels across: the difference maps'
    /// width, so the map is pinned to a fraction of a map pixel.
    static let largestGridWidth = 320

    /// `varying`, when given, is a picture of the leak frames' size that is 1 where the leak
    /// changes over time and 0 where it stays put (a bar over part of the picture, a still
    /// background, page chrome): only where it is 1 are pictures compared, so what covers part
    /// of the lecture does not pull the map towards it.
    public static func register(_ pairs: [FramePair], leakContent: PlaneRect, start: CropFractions? = nil,
                                searchRange: ClosedRange<Double> = searchRange, varying: LumaImage? = nil) -> Result {
        precondition(!pairs.isEmpty, "registration needs frame pairs")
        var crops = start ?? CropFractions(left: 0.05, right: 0.05, top: 0.05, bottom: 0.05)
        // The pattern search may leave the grid's range a little, never so far that no picture is left.
        let loosest = (searchRange.lowerBound - 0.1)...(searchRange.upperBound + 0.1)
        func allowed(_ c: CropFractions) -> Bool {
            (0..<4).allSatisfy { loosest.contains(c[$0]) } && c.left + c.right < 0.9 && c.top + c.bottom < 0.9
        }
        if start == nil {
            let coarse = Objective(pairs, leakContent: leakContent, gridWidth: 64, varying: varying)
            // A wide search starts on a coarser grid; the pattern search below refines either.
            let grid = searchRange.upperBound - searchRange.lowerBound > 0.3 ? 0.04 : 0.02
            let steps = stride(from: searchRange.lowerBound, through: searchRange.upperBound + 1e-9, by: grid).map { $0 }
            for _ in 0..<2 {
                crops = bestOnGrid(coarse, crops, steps, horizontal: true)
                crops = bestOnGrid(coarse, crops, steps, horizontal: false)
            }
        }
        var step = start == nil ? 0.01 : 0.004
        var objective = Objective(pairs, leakContent: leakContent, gridWidth: min(160, Int(leakContent.width)), varying: varying)
        var score = objective.correlation(crops)
        var refinedAtFullSize = false
        while true {
            var improved = false
            for side in 0..<4 {
                for direction in [-1.0, 1.0] {
                    var candidate = crops
                    candidate[side] += direction * step
                    guard allowed(candidate) else { continue }
                    let candidateScore = objective.correlation(candidate)
                    if candidateScore > score {
                        (crops, score, improved) = (candidate, candidateScore, true)
                    }
                }
            }
            guard !improved else { continue }
            step /= 2
            // A pixel of the leak is 1/width of its content; stop a good way below it.
            let fullWidth = min(Double(Self.largestGridWidth), leakContent.width)
            if step < 0.1 / fullWidth {
                guard !refinedAtFullSize, Int(fullWidth) > 160 else { break }
                objective = Objective(pairs, leakContent: leakContent, gridWidth: Int(fullWidth), varying: varying)
                score = objective.correlation(crops)
                step = 2 / fullWidth
                refinedAtFullSize = true
            }
        }
        return Result(map: map(crops, original: pairs[0].original, leakContent: leakContent), crops: crops, correlation: score)
    }

    /// The map from original pixels to leak pixels that `crops` describe.
    public static func map(_ crops: CropFractions, original: LumaImage, leakContent: PlaneRect) -> AxisAlignedMap {
        AxisAlignedMap(mapping: crops.visibleRegion(width: Double(original.width), height: Double(original.height)), onto: leakContent)
    }

    /// The mean correlation of `pairs` under `crops`, on a grid at most 160 pixels wide.
    public static func correlation(_ pairs: [FramePair], crops: CropFractions, leakContent: PlaneRect, varying: LumaImage? = nil) -> Double {
        Objective(pairs, leakContent: leakContent, gridWidth: min(160, Int(leakContent.width)), varying: varying).correlation(crops)
    }

    /// The best crops with one axis's two sides on the grid `steps` and the other axis's as in
    /// `start`. The fixed axis is resampled once per pair, so each candidate costs one pass.
    private static func bestOnGrid(_ objective: Objective, _ start: CropFractions, _ steps: [Double], horizontal: Bool) -> CropFractions {
        let fixed = objective.pairs.map { pair -> LumaImage in
            let region = start.visibleRegion(width: Double(pair.original.width), height: Double(pair.original.height))
            return horizontal
                ? pair.original.resampled(from: PlaneRect(minX: 0, minY: region.minY, maxX: Double(pair.original.width), maxY: region.maxY),
                                          width: pair.original.width, height: objective.gridHeight)
                : pair.original.resampled(from: PlaneRect(minX: region.minX, minY: 0, maxX: region.maxX, maxY: Double(pair.original.height)),
                                          width: objective.gridWidth, height: pair.original.height)
        }
        var best = start, bestScore = -Double.infinity
        for first in steps {
            for second in steps {
                var candidate = start
                if horizontal { (candidate.left, candidate.right) = (first, second) } else { (candidate.top, candidate.bottom) = (first, second) }
                var total = 0.0
                for (index, pair) in objective.pairs.enumerated() {
                    let region = candidate.visibleRegion(width: Double(pair.original.width), height: Double(pair.original.height))
                    let partial = fixed[index]
                    let grid = horizontal
                        ? partial.resampled(from: PlaneRect(minX: region.minX, minY: 0, maxX: region.maxX, maxY: Double(partial.height)),
                                            width: objective.gridWidth, height: objective.gridHeight)
                        : partial.resampled(from: PlaneRect(minX: 0, minY: region.minY, maxX: Double(partial.width), maxY: region.maxY),
                                            width: objective.gridWidth, height: objective.gridHeight)
                    total += normalisedCorrelation(objective.leakGrids[index], centred(grid.pixels, mask: objective.mask))
                }
                let score = total / Double(objective.pairs.count)
                if score > bestScore { (best, bestScore) = (candidate, score) }
            }
        }
        return best
    }

    /// The mean correlation of the pairs for given crops, on a grid over the leak's content area.
    struct Objective {
        let pairs: [FramePair]
        /// The leak frames resampled onto the grid, each with mean removed, and their norms.
        let leakGrids: [(pixels: [Float], norm: Float)]
        let gridWidth: Int
        let gridHeight: Int
        /// The grid pixels compared (nil: all).
        let mask: [Bool]?

        init(_ pairs: [FramePair], leakContent: PlaneRect, gridWidth: Int, varying: LumaImage? = nil) {
            self.pairs = pairs
            let gridWidth = max(8, gridWidth)
            let gridHeight = max(8, Int((Double(gridWidth) * leakContent.height / leakContent.width).rounded()))
            (self.gridWidth, self.gridHeight) = (gridWidth, gridHeight)
            var mask = varying.map { $0.resampled(from: leakContent, width: gridWidth, height: gridHeight).pixels.map { $0 >= 0.5 } }
            // Too little changes to go by (a still stretch): compare everything.
            if let kept = mask, kept.filter({ $0 }).count < kept.count / 20 { mask = nil }
            self.mask = mask
            leakGrids = pairs.map { pair in
                centred(pair.leak.resampled(from: leakContent, width: gridWidth, height: gridHeight).pixels, mask: mask)
            }
        }

        func correlation(_ crops: CropFractions) -> Double {
            var total = 0.0
            for (pair, leak) in zip(pairs, leakGrids) {
                let region = crops.visibleRegion(width: Double(pair.original.width), height: Double(pair.original.height))
                let original = centred(pair.original.resampled(from: region, width: gridWidth, height: gridHeight).pixels, mask: mask)
                total += normalisedCorrelation(leak, original)
            }
            return total / Double(pairs.count)
        }
    }
}

extension CropFractions {
    /// The sides by number (0 left, 1 right, 2 top, 3 bottom), for searches that step each in turn.
    subscript(side: Int) -> Double {
        get { [left, right, top, bottom][side] }
        set {
            switch side {
            case 0: left = newValue
            case 1: right = newValue
            case 2: top = newValue
            default: bottom = newValue
            }
        }
    }
}

/// Values with the mean of those `mask` keeps removed, the others set to 0, and the norm of
/// what is left: a correlation of two such signals compares the kept values only.
func centred(_ values: [Float], mask: [Bool]?) -> (pixels: [Float], norm: Float) {
    guard let mask else { return centred(values) }
    var result = values
    var norm: Float = 0
    result.withUnsafeMutableBufferPointer { p in
        mask.withUnsafeBufferPointer { keep in
            var sum: Float = 0, count = 0
            for i in p.indices where keep[i] { sum += p[i]; count += 1 }
            let mean = sum / Float(max(count, 1))
            for i in p.indices {
                p[i] = keep[i] ? p[i] - mean : 0
                norm += p[i] * p[i]
            }
        }
    }
    return (result, norm.squareRoot())
}

/// Values with their mean removed, and the norm of what is left.
func centred(_ values: [Float]) -> (pixels: [Float], norm: Float) {
    var result = values
    var norm: Float = 0
    result.withUnsafeMutableBufferPointer { p in
        var sum: Float = 0
        for value in p { sum += value }
        let mean = sum / Float(max(p.count, 1))
        for i in p.indices {
            p[i] -= mean
            norm += p[i] * p[i]
        }
    }
    return (result, norm.squareRoot())
}

/// The normalised cross-correlation of two centred signals of one length; 0 when either is flat.
func normalisedCorrelation(_ a: (pixels: [Float], norm: Float), _ b: (pixels: [Float], norm: Float)) -> Double {
    guard a.norm > 1e-3, b.norm > 1e-3 else { return 0 }
    var dot: Float = 0
    a.pixels.withUnsafeBufferPointer { x in
        b.pixels.withUnsafeBufferPointer { y in
            for i in 0..<min(x.count, y.count) { dot += x[i] * y[i] }
        }
    }
    return Double(dot / (a.norm * b.norm))
}
