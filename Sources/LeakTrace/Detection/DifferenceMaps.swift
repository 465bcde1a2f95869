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
            let median = all.median()
            let spread = 1.4826 * all.map { abs($0 - median) }.median()
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
