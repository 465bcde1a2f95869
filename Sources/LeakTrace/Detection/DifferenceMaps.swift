/// One slot of one traced animation: the span during which every row's mark of that animation
/// stays in one place.
public struct SlotKey: Hashable, Sendable, Comparable {
    /// Which slot schedule (one per distinct animation timing among the traced layers).
    public var schedule: Int
    public var slot: Int64

    public init(schedule: Int, slot: Int64) {
        self.schedule = schedule
        self.slot = slot
    }

    public static func < (a: SlotKey, b: SlotKey) -> Bool { (a.schedule, a.slot) < (b.schedule, b.slot) }
}

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
        var chosen: (passes: Int, differences: [[Float]])?
        for passes in 0...maximumBlurPasses {
            if passes > 0 { blurred = blurred.map { $0.boxBlurred(radius: 1) } }
            let current = zip(smoothed, blurred).map { plain.difference(smoothedLeak: $0, warpedOriginal: $1) }
            var all: [Float] = []
            for difference in current { for i in stride(from: 0, to: difference.count, by: 3) where plain.mask[i] { all.append(difference[i]) } }
            medians.append(DifferenceMaps.median(all))
            if passes == 0 || medians[passes] < medians[..<passes].min()! { chosen = (passes, current) }
            // Past the best the differences grow again; stop once clearly past it.
            if passes >= 2, medians[passes] > 1.1 * medians.min()! { break }
        }
        let least = medians.min()!
        let passes = medians.firstIndex { $0 <= least * 1.02 + 0.05 } ?? chosen!.passes
        let final = passes == chosen!.passes ? chosen!.differences
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
            let scale = 1 / Float(counts[slot]!)
            means[slot] = sum.map { $0 * scale }
        }
        return DifferenceMaps(means: means, width: width, height: height, mask: mask)
    }
}

/// Per slot, how unusual each pixel's difference is, ready for rectangle means.
///
/// A pixel's typical difference depends on what is there: edges and fine texture differ after
/// re-encoding and resampling in every slot, flat areas hardly ever. So each slot's mean
/// difference is compared with the same pixel's median over the schedule's slots, in units of
/// its spread there (median absolute deviation, with a floor of `noiseFloor` levels so a pixel
/// that never changed cannot make a small difference infinite). A mark, present at a spot in
/// one slot and not in most others, stands out; a static logo, in every slot, does not. With
/// fewer than three slots there is no per-pixel baseline and the whole picture's is used.
public struct DifferenceMaps: Sendable {
    public static let noiseFloor: Float = 0.5
    /// At most this many slots (spread evenly) estimate each pixel's baseline.
    static let baselineSlots = 31

    public let width: Int
    public let height: Int
    private let integrals: [SlotKey: [Float]]
    /// The summed-area table of the visible pixels (inside the leak's picture, not covered):
    /// rectangle means are taken over these only, so a bar over part of a mark neither dilutes
    /// it nor, where it covers the mark wholly, counts.
    let visibleCounts: [Float]
    /// Which map pixels are compared (see `DifferenceAccumulator`).
    public let mask: [Bool]

    public var slots: [SlotKey] { integrals.keys.sorted() }

    init(means: [SlotKey: [Float]], width: Int, height: Int, mask: [Bool]) {
        self.width = width
        self.height = height
        self.mask = mask
        visibleCounts = Self.integral(mask.map { $0 ? 1 : 0 }, width: width, height: height)
        var integrals: [SlotKey: [Float]] = [:]
        for schedule in Set(means.keys.map(\.schedule)) {
            let keys = means.keys.filter { $0.schedule == schedule }.sorted()
            let baseline = Self.baseline(keys.map { means[$0]! }, mask: mask)
            for key in keys {
                var standardised = [Float](repeating: 0, count: width * height)
                means[key]!.withUnsafeBufferPointer { mean in
                    baseline.median.withUnsafeBufferPointer { median in
                        baseline.scale.withUnsafeBufferPointer { scale in
                            mask.withUnsafeBufferPointer { inside in
                                standardised.withUnsafeMutableBufferPointer { z in
                                    for i in 0..<z.count where inside[i] { z[i] = (mean[i] - median[i]) / scale[i] }
                                }
                            }
                        }
                    }
                }
                integrals[key] = Self.integral(standardised, width: width, height: height)
            }
        }
        self.integrals = integrals
    }

    /// Each pixel's median and spread over the slots (or the picture's, with under three slots).
    private static func baseline(_ maps: [[Float]], mask: [Bool]) -> (median: [Float], scale: [Float]) {
        let count = maps[0].count
        if maps.count < 3 {
            let all = maps.flatMap { map in map.indices.filter { mask[$0] }.map { map[$0] } }
            let median = Self.median(all)
            let spread = 1.4826 * Self.median(all.map { abs($0 - median) })
            return ([Float](repeating: median, count: count), [Float](repeating: spread + noiseFloor, count: count))
        }
        let step = max(1, maps.count / baselineSlots)
        let sample = stride(from: 0, to: maps.count, by: step).map { maps[$0] }
        var median = [Float](repeating: 0, count: count), scale = [Float](repeating: 1, count: count)
        var values = [Float](repeating: 0, count: sample.count)
        values.withUnsafeMutableBufferPointer { v in
            for i in 0..<count where mask[i] {
                for j in 0..<sample.count { v[j] = sample[j][i] }
                let m = Self.medianInPlace(v)
                for j in 0..<v.count { v[j] = abs(v[j] - m) }
                median[i] = m
                scale[i] = 1.4826 * Self.medianInPlace(v) + noiseFloor
            }
        }
        return (median, scale)
    }

    /// The median of a few values, sorting them in place (insertion sort: there are at most 31).
    private static func medianInPlace(_ v: UnsafeMutableBufferPointer<Float>) -> Float {
        for i in 1..<max(v.count, 1) {
            let value = v[i]
            var j = i - 1
            while j >= 0, v[j] > value {
                v[j + 1] = v[j]
                j -= 1
            }
            v[j + 1] = value
        }
        let middle = v.count / 2
        return v.count % 2 == 1 ? v[middle] : (v[middle - 1] + v[middle]) / 2
    }

    static func median(_ values: [Float]) -> Float {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The summed-area table, (width + 1) × (height + 1), rows summed in Double.
    private static func integral(_ values: [Float], width: Int, height: Int) -> [Float] {
        var table = [Float](repeating: 0, count: (width + 1) * (height + 1))
        var above = [Double](repeating: 0, count: width + 1)
        values.withUnsafeBufferPointer { v in
            table.withUnsafeMutableBufferPointer { t in
                above.withUnsafeMutableBufferPointer { a in
                    for y in 0..<height {
                        var row = 0.0
                        for x in 0..<width {
                            row += Double(v[y * width + x])
                            a[x + 1] += row
                            t[(y + 1) * (width + 1) + x + 1] = Float(a[x + 1])
                        }
                    }
                }
            }
        }
        return table
    }

    /// The mean standardised difference over the visible whole pixels of `rect` (in map pixels)
    /// in `slot`, with how many pixels that was; nil when the slot has no map or no pixel of the
    /// rect is visible.
    public func mean(in rect: PlaneRect, slot: SlotKey) -> (mean: Double, visiblePixels: Int)? {
        guard let table = integrals[slot] else { return nil }
        return mean(table, rect: rect)
    }

    func mean(_ table: [Float], rect: PlaneRect) -> (mean: Double, visiblePixels: Int)? {
        let x0 = min(Self.nearest(rect.minX), width), x1 = min(Self.nearest(rect.maxX), width)
        let y0 = min(Self.nearest(rect.minY), height), y1 = min(Self.nearest(rect.maxY), height)
        guard x1 > x0, y1 > y0 else { return nil }
        let w = width + 1
        func sum(_ t: [Float]) -> Double { Double(t[y1 * w + x1]) - Double(t[y0 * w + x1]) - Double(t[y1 * w + x0]) + Double(t[y0 * w + x0]) }
        let count = sum(visibleCounts)
        guard count >= 0.5 else { return nil }
        return (sum(table) / count, Int(count.rounded()))
    }

    /// The nearest pixel edge at or after 0: `Int(x + 0.5)`, which (unlike `rounded()`, a libm
    /// call) compiles to a few instructions, and the scorer rounds millions of rectangles.
    @inline(__always)
    static func nearest(_ x: Double) -> Int { x > 0 ? Int(min(x, 1e9) + 0.5) : 0 }

    /// The table of `slot`, for scorers that look up many rectangles in one slot.
    func table(of slot: SlotKey) -> [Float]? { integrals[slot] }
}
