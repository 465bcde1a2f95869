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
public final class DifferenceAccumulator {
    public let width: Int
    public let height: Int
    /// The leak's picture area in the accumulator's pixels; outside it nothing is compared.
    public let content: PlaneRect
    /// Original frame pixels → accumulator pixels.
    public let originalToAnalysis: AxisAlignedMap
    private var sums: [SlotKey: [Float]] = [:]
    private var counts: [SlotKey: Int] = [:]
    private let mask: [Bool]

    /// Pairs will have leak frames of `width`×`height` and original frames whose pixels
    /// `originalToAnalysis` takes into the leak frames' pixels.
    public init(width: Int, height: Int, content: PlaneRect, originalToAnalysis: AxisAlignedMap) {
        self.width = width
        self.height = height
        self.content = content
        self.originalToAnalysis = originalToAnalysis
        var mask = [Bool](repeating: false, count: width * height)
        // Leave out a pixel at the content's edge, where a bar's ringing lives.
        let inner = content.insetBy(dx: 1, dy: 1)
        for y in 0..<height where Double(y) >= inner.minY && Double(y) + 1 <= inner.maxY {
            for x in 0..<width where Double(x) >= inner.minX && Double(x) + 1 <= inner.maxX { mask[y * width + x] = true }
        }
        self.mask = mask
    }

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
        let frame = PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height))
        let warped = original.resampled(from: originalToAnalysis.inverse.apply(frame), width: width, height: height).boxBlurred(radius: 1)
        let smoothed = leak.boxBlurred(radius: 1)
        var result = [Float](repeating: 0, count: width * height)
        warped.pixels.withUnsafeBufferPointer { o in
            smoothed.pixels.withUnsafeBufferPointer { l in
                mask.withUnsafeBufferPointer { inside in
                    // Least-squares gain and bias over the content area.
                    var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
                    for i in 0..<inside.count where inside[i] {
                        let x = Double(o[i]), y = Double(l[i])
                        n += 1; sx += x; sy += y; sxx += x * x; sxy += x * y
                    }
                    let variance = n * sxx - sx * sx
                    let gain = n > 0 && variance > 1e-6 * n * n ? min(max((n * sxy - sx * sy) / variance, 0.5), 2) : 1
                    let bias = n > 0 ? (sy - gain * sx) / n : 0
                    let g = Float(gain), b = Float(bias)
                    result.withUnsafeMutableBufferPointer { r in
                        for i in 0..<inside.count where inside[i] { r[i] = abs(l[i] - (g * o[i] + b)) }
                    }
                }
            }
        }
        return result
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

    public var slots: [SlotKey] { integrals.keys.sorted() }

    init(means: [SlotKey: [Float]], width: Int, height: Int, mask: [Bool]) {
        self.width = width
        self.height = height
        var integrals: [SlotKey: [Float]] = [:]
        for schedule in Set(means.keys.map(\.schedule)) {
            let slots = means.filter { $0.key.schedule == schedule }.sorted { $0.key < $1.key }
            let baseline = Self.baseline(slots.map(\.value), mask: mask)
            for (key, slotMean) in slots {
                var standardised = [Float](repeating: 0, count: width * height)
                slotMean.withUnsafeBufferPointer { mean in
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

    /// The mean standardised difference over the whole pixels of `rect` (in map pixels) in
    /// `slot`, with the area it covered; nil when the slot has no map or the rect misses the picture.
    public func mean(in rect: PlaneRect, slot: SlotKey) -> (mean: Double, area: Int)? {
        guard let table = integrals[slot] else { return nil }
        return Self.mean(table, width: width, height: height, rect: rect)
    }

    static func mean(_ table: [Float], width: Int, height: Int, rect: PlaneRect) -> (mean: Double, area: Int)? {
        let x0 = min(nearest(rect.minX), width), x1 = min(nearest(rect.maxX), width)
        let y0 = min(nearest(rect.minY), height), y1 = min(nearest(rect.maxY), height)
        guard x1 > x0, y1 > y0 else { return nil }
        let w = width + 1
        let sum = Double(table[y1 * w + x1]) - Double(table[y0 * w + x1]) - Double(table[y1 * w + x0]) + Double(table[y0 * w + x0])
        let area = (x1 - x0) * (y1 - y0)
        return (sum / Double(area), area)
    }

    /// The nearest pixel edge at or after 0: `Int(x + 0.5)`, which (unlike `rounded()`, a libm
    /// call) compiles to a few instructions, and the scorer rounds millions of rectangles.
    @inline(__always)
    static func nearest(_ x: Double) -> Int { x > 0 ? Int(min(x, 1e9) + 0.5) : 0 }

    /// The table of `slot`, for scorers that look up many rectangles in one slot.
    func table(of slot: SlotKey) -> [Float]? { integrals[slot] }
}
