/// Collects, slot by slot, how much each leak pixel differs from the original there.
///
/// Where a mark was, the leak differs from the original however the mark was hidden: the
/// glyphs add light, and a blur or a patch over them replaces the original's detail. Each pair
/// of frames gives the absolute difference after the original is warped into the leak's
/// geometry and both are evened out by a 3×3 box (the last pixel of misregistration, block
/// edges), and after a linear fit of the leak's brightness and contrast to the original's (a
/// leaker's colour change, a different range). Averaging over a slot's frames keeps what stays
/// put (the marks) and damps re-encoding noise, which changes from frame to frame.
///
/// A leak blurred as a whole is compared with the original blurred alike (`blurPasses` more
/// 3×3 box passes, which approach a Gaussian), so the slides' edges do not differ everywhere;
/// pixels something covers (a bar, a player's progress bar, page chrome over the picture) are
/// left out (`covered`), from the brightness fit and from the maps. `calibration` finds both.
public final class DifferenceAccumulator {
    public let width: Int
    public let height: Int
    /// The leak's picture area in the accumulator's pixels; outside it nothing is compared.
    public let content: PlaneRect
    /// Original frame pixels → accumulator pixels.
    public let originalToAnalysis: AxisAlignedMap
    /// Extra 3×3 box passes over the warped original, to blur it as the leak is blurred.
    public let blurPasses: Int
    private var sums: [SlotKey: [Float]] = [:]
    private var counts: [SlotKey: Int] = [:]
    private let mask: [Bool]

    /// Pairs will have leak frames of `width`×`height` and original frames whose pixels
    /// `originalToAnalysis` takes into the leak frames' pixels.
    public init(width: Int, height: Int, content: PlaneRect, originalToAnalysis: AxisAlignedMap,
                blurPasses: Int = 0, covered: [Bool]? = nil) {
        self.width = width
        self.height = height
        self.content = content
        self.originalToAnalysis = originalToAnalysis
        self.blurPasses = blurPasses
        var mask = Self.contentMask(width: width, height: height, content: content)
        if let covered {
            for i in mask.indices where covered[i] { mask[i] = false }
        }
        self.mask = mask
    }

    /// The pixels inside `content`, less one at its edge, where a bar's ringing lives.
    static func contentMask(width: Int, height: Int, content: PlaneRect) -> [Bool] {
        var mask = [Bool](repeating: false, count: width * height)
        let inner = content.insetBy(dx: 1, dy: 1)
        for y in 0..<height where Double(y) >= inner.minY && Double(y) + 1 <= inner.maxY {
            for x in 0..<width where Double(x) >= inner.minX && Double(x) + 1 <= inner.maxX { mask[y * width + x] = true }
        }
        return mask
    }

    /// How a leak differs from its original wherever it is compared, from frame pairs spread
    /// over it (leak frames at the map's size): the blur that makes the original look most like
    /// the leak (the fewest box passes whose median difference is within 2% of the least,
    /// 0…`maximumBlurPasses`), and the pixels covered in the leak — those whose difference, with
    /// that blur, is over `coveredLevel` in most of the pairs (a mark moves away; a bar stays).
    public static func calibration(pairs: [FramePair], width: Int, height: Int, content: PlaneRect,
                                   originalToAnalysis: AxisAlignedMap) -> (blurPasses: Int, covered: [Bool]) {
        let plain = DifferenceAccumulator(width: width, height: height, content: content, originalToAnalysis: originalToAnalysis)
        guard !pairs.isEmpty else { return (0, [Bool](repeating: false, count: width * height)) }
        let warped = pairs.map { plain.warp($0.original) }
        let smoothed = pairs.map { $0.leak.boxBlurred(radius: 1) }
        var medians: [Float] = []
        var blurred = warped
        // The pass with the least median so far, and its differences (pass 0 until one beats it).
        var chosen: (passes: Int, differences: [[Float]]) = (0, [])
        var least = Float.infinity
        for passes in 0...maximumBlurPasses {
            if passes > 0 { blurred = blurred.map { $0.boxBlurred(radius: 1) } }
            let current = zip(smoothed, blurred).map { plain.difference(smoothedLeak: $0, warpedOriginal: $1) }
            var all: [Float] = []
            for difference in current { for i in stride(from: 0, to: difference.count, by: 3) where plain.mask[i] { all.append(difference[i]) } }
            let median = all.median()
            medians.append(median)
            if passes == 0 || median < least { chosen = (passes, current) }
            least = min(least, median)
            // Past the best the differences grow again; stop once clearly past it.
            if passes >= 2, median > 1.1 * least { break }
        }
        let passes = medians.firstIndex { $0 <= least * 1.02 + 0.05 } ?? chosen.passes
        let final = passes == chosen.passes ? chosen.differences
            : zip(smoothed, warped).map { leak, original in
                var blurredOriginal = original
                for _ in 0..<passes { blurredOriginal = blurredOriginal.boxBlurred(radius: 1) }
                return plain.difference(smoothedLeak: leak, warpedOriginal: blurredOriginal)
            }
        var covered = [Bool](repeating: false, count: width * height)
        for i in covered.indices where plain.mask[i] {
            let over = final.filter { $0[i] > coveredLevel }.count
            covered[i] = over * 2 > final.count
        }
        return (passes, covered)
    }

    /// At most this many extra box passes (σ about 2.6 map pixels).
    static let maximumBlurPasses = 10
    /// A pixel differing by more than this in most pairs is covered.
    static let coveredLevel: Float = 30

    /// The slots that have frames.
    public var slots: [SlotKey] { sums.keys.sorted() }

    public func frameCount(of slot: SlotKey) -> Int { counts[slot] ?? 0 }

    /// Adds one pair of frames shown at the same instant to each of `slots` (usually one).
    public func add(leak: LumaImage, original: LumaImage, to slots: [SlotKey]) {
        precondition(leak.width == width && leak.height == height, "leak frames of the accumulator's size")
        guard !slots.isEmpty else { return }
        let difference = self.difference(leak: leak, original: original)
        for slot in slots {
            var sum = sums[slot] ?? [Float](repeating: 0, count: width * height)
            sum.withUnsafeMutableBufferPointer { s in
                difference.withUnsafeBufferPointer { d in
                    for i in s.indices { s[i] += d[i] }
                }
            }
            sums[slot] = sum
            counts[slot, default: 0] += 1
        }
    }

    /// |leak − (gain · original + bias)| per pixel, 0 outside the content area.
    func difference(leak: LumaImage, original: LumaImage) -> [Float] {
        var warped = warp(original)
        for _ in 0..<blurPasses { warped = warped.boxBlurred(radius: 1) }
        return difference(smoothedLeak: leak.boxBlurred(radius: 1), warpedOriginal: warped)
    }

    /// The original frame in the accumulator's pixels, evened out by a 3×3 box.
    func warp(_ original: LumaImage) -> LumaImage {
        let frame = PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height))
        return original.resampled(from: originalToAnalysis.inverse.apply(frame), width: width, height: height).boxBlurred(radius: 1)
    }

    /// |leak − (gain · original + bias)| per pixel of the mask, 0 elsewhere, for a leak frame
    /// and an original already in the accumulator's pixels and evened out.
    func difference(smoothedLeak smoothed: LumaImage, warpedOriginal warped: LumaImage) -> [Float] {
        var result = [Float](repeating: 0, count: width * height)
        warped.pixels.withUnsafeBufferPointer { o in
            smoothed.pixels.withUnsafeBufferPointer { l in
                mask.withUnsafeBufferPointer { inside in
                    // Gain and bias: from the median difference (gain 1), then twice a least-squares
                    // fit on the pixels within three times the median difference of the fit before:
                    // a bar or a box over part of the picture (and the marks) must not set the
                    // brightness of the rest.
                    var g: Float = 1, b: Float = 0
                    func fit(within limit: Float) {
                        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
                        for i in 0..<inside.count where inside[i] && abs(l[i] - (g * o[i] + b)) <= limit {
                            let x = Double(o[i]), y = Double(l[i])
                            n += 1; sx += x; sy += y; sxx += x * x; sxy += x * y
                        }
                        let variance = n * sxx - sx * sx
                        let gain = n > 0 && variance > 1e-6 * n * n ? min(max((n * sxy - sx * sy) / variance, 0.5), 2) : 1
                        (g, b) = (Float(gain), Float(n > 0 ? (sy - gain * sx) / n : 0))
                    }
                    var offsets = [Int](repeating: 0, count: 512), counted = 0
                    for i in 0..<inside.count where inside[i] {
                        offsets[min(511, max(0, Int((l[i] - o[i]).rounded()) + 256))] += 1
                        counted += 1
                    }
                    var below = 0, level = 0
                    while level < 511 && below + offsets[level] <= counted / 2 { below += offsets[level]; level += 1 }
                    b = Float(level - 256)
                    for _ in 0..<2 {
                        var histogram = [Int](repeating: 0, count: 256), total = 0
                        for i in 0..<inside.count where inside[i] {
                            histogram[min(255, Int(abs(l[i] - (g * o[i] + b))))] += 1
                            total += 1
                        }
                        var seen = 0, median = 0
                        while median < 255 && seen + histogram[median] <= total / 2 { seen += histogram[median]; median += 1 }
                        fit(within: max(12, 3 * Float(median + 1)))
                    }
                    // How far the leak lies outside the range of the fitted original around each pixel
                    // (its 3×3 neighbours): a mark's light or a patch over detail does, a slide's
                    // edge a fraction of a pixel off or blurred a little differently does not.
                    let (low, high) = Self.neighbourhoodRange(o, width: width, height: height)
                    result.withUnsafeMutableBufferPointer { r in
                        for i in 0..<inside.count where inside[i] {
                            let lowest = g * low[i] + b, highest = g * high[i] + b
                            r[i] = max(0, l[i] - highest) + max(0, lowest - l[i])
                        }
                    }
                }
            }
        }
        return result
    }

    /// Per pixel, the least and greatest value among it and its eight neighbours (edges repeated).
    static func neighbourhoodRange(_ values: UnsafeBufferPointer<Float>, width: Int, height: Int) -> (low: [Float], high: [Float]) {
        var rowLow = [Float](repeating: 0, count: values.count), rowHigh = rowLow
        for y in 0..<height {
            let base = y * width
            for x in 0..<width {
                let a = values[base + max(x - 1, 0)], c = values[base + x], e = values[base + min(x + 1, width - 1)]
                rowLow[base + x] = min(a, c, e)
                rowHigh[base + x] = max(a, c, e)
            }
        }
        var low = rowLow, high = rowHigh
        for y in 0..<height {
            let above = max(y - 1, 0) * width, here = y * width, below = min(y + 1, height - 1) * width
            for x in 0..<width {
                low[here + x] = min(rowLow[above + x], rowLow[here + x], rowLow[below + x])
                high[here + x] = max(rowHigh[above + x], rowHigh[here + x], rowHigh[below + x])
            }
        }
        return (low, high)
    }

    /// The per-slot maps, each pixel's difference standardised against the same pixel in the
    /// other slots of its schedule (see `DifferenceMaps`).
    public func maps() -> DifferenceMaps {
        var means: [SlotKey: [Float]] = [:]
        for (slot, sum) in sums {
            let scale = 1 / Float(max(counts[slot] ?? 1, 1))
            means[slot] = sum.map { $0 * scale }
        }
        return DifferenceMaps(means: means, width: width, height: height, mask: mask)
    }
}
