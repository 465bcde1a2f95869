import Overlay

/// Ranks a row's value among decoys of its footprint, the scorer's inner loop: a million
/// decoys and more per trace, so the placement and the rectangle mean are done here in plain
/// arithmetic instead of through `MarkFootprint.displayRect` and `RowScorer.value`, with the
/// very same formulas (a test holds them equal).
struct DecoyRank {
    let footprint: MarkFootprint
    let scorer: RowScorer

    /// Decoys at `spots` counted until `RowScorer.exceedancesToStop` of them score at least
    /// `value` (Besag and Clifford's sequential Monte Carlo p-value): a row that did not leak
    /// is usually beaten early, so most rows cost tens of decoys rather than all of them,
    /// while the p-value stays valid.
    func count(_ spots: DecoySpots, table: [Float], atLeast value: Double) -> DecoyCount {
        var spots = spots
        let geometry = DecoyGeometry(footprint: footprint, scorer: scorer)
        var valid = 0, above = 0
        table.withUnsafeBufferPointer { t in
            scorer.maps.visibleCounts.withUnsafeBufferPointer { c in
                while let spot = spots.next() {
                    guard let mean = geometry.mean(at: spot, table: t, counts: c) else { continue }
                    valid += 1
                    above += mean >= value ? 1 : 0
                    if above == RowScorer.exceedancesToStop { break }
                }
            }
        }
        return DecoyCount(valid: valid, atLeast: above)
    }

    /// The value at every spot (nil where too little of the mark would be visible).
    func values(_ spots: [(x: Double, y: Double)], table: [Float]) -> [Double?] {
        let geometry = DecoyGeometry(footprint: footprint, scorer: scorer)
        return table.withUnsafeBufferPointer { t in
            scorer.maps.visibleCounts.withUnsafeBufferPointer { c in spots.map { geometry.mean(at: $0, table: t, counts: c) } }
        }
    }
}

/// The decoys of one row's mark in one slot: `RowScorer.decoyCount` spots in percent, uniform
/// and independent, drawn as the loop needs them from a generator seeded by the slot, the row's
/// place and the mark's layer, so every run gives the same and no two rows share them.
struct DecoySpots: Sequence, IteratorProtocol {
    private var generator: SeededGenerator
    private var left = RowScorer.decoyCount
    /// Spots given outright (tests), used instead of the generator's.
    private var given: [(x: Double, y: Double)]?

    init(spots: [(x: Double, y: Double)]) {
        generator = SeededGenerator(seed: 0)
        given = spots
        left = spots.count
    }

    init(slot: SlotKey, row: Int, footprint: Int) {
        var mixer = SeededGenerator(seed: 0x5EED_1EA4 ^ (UInt64(bitPattern: slot.slot) &* 0x9E37_79B9) ^ (UInt64(slot.schedule) << 56))
        var scrambled = SeededGenerator(seed: mixer.next() ^ (UInt64(row) &* 0xD1B5_4A32_D192_ED03) ^ (UInt64(footprint) &* 0xA24B_AED4_963E_E407))
        generator = SeededGenerator(seed: scrambled.next())
    }

    mutating func next() -> (x: Double, y: Double)? {
        guard left > 0 else { return nil }
        left -= 1
        if let given { return given[given.count - 1 - left] }
        return (generator.unit() * 100, generator.unit() * 100)
    }
}

/// A footprint's placement and rectangle mean, computed once per footprint for the decoy loops.
struct DecoyGeometry {
    let footprint: MarkFootprint
    let inset: Double
    /// Placement.origin's free room per axis; where a box does not fit, its own rule applies.
    let freeX: Double, freeY: Double
    let fits: Bool
    let map: AxisAlignedMap
    let width: Double, height: Double
    let needed: Double
    let stride: Int, mapWidth: Int, mapHeight: Int

    init(footprint: MarkFootprint, scorer: RowScorer) {
        self.footprint = footprint
        inset = footprint.insetPixels
        freeX = Double(footprint.displayWidth - footprint.layoutBox.width) - 2 * inset
        freeY = Double(footprint.displayHeight - footprint.layoutBox.height) - 2 * inset
        fits = freeX >= 0 && freeY >= 0 && !footprint.isTiled
        map = scorer.displayToMap
        width = Double(footprint.width)
        height = Double(footprint.height)
        needed = RowScorer.neededVisiblePixels(mappedArea: map.scaleX * width * map.scaleY * height)
        stride = scorer.maps.width + 1
        mapWidth = scorer.maps.width
        mapHeight = scorer.maps.height
    }

    /// The display rectangle's origin at a spot, as `MarkFootprint.displayRect` places it.
    @inline(__always)
    func origin(at spot: (x: Double, y: Double)) -> (x: Int, y: Int) {
        if fits {
            // Placement.origin's `(inset + free · p / 100).rounded()`, for a value that is never negative here.
            return (Int(inset + freeX * spot.x / 100 + 0.5) - footprint.layoutBox.x, Int(inset + freeY * spot.y / 100 + 0.5) - footprint.layoutBox.y)
        }
        let r = footprint.displayRect(xPercent: spot.x, yPercent: spot.y)
        return (r.x, r.y)
    }

    /// `RowScorer.value` of the mark at `spot`, from the slot's table and the visible-pixel counts.
    @inline(__always)
    func mean(at spot: (x: Double, y: Double), table t: UnsafeBufferPointer<Float>, counts c: UnsafeBufferPointer<Float>) -> Double? {
        let (x, y) = origin(at: spot)
        let x0 = min(DifferenceMaps.nearest(map.scaleX * Double(x) + map.offsetX), mapWidth)
        let x1 = min(DifferenceMaps.nearest(map.scaleX * (Double(x) + width) + map.offsetX), mapWidth)
        let y0 = min(DifferenceMaps.nearest(map.scaleY * Double(y) + map.offsetY), mapHeight)
        let y1 = min(DifferenceMaps.nearest(map.scaleY * (Double(y) + height) + map.offsetY), mapHeight)
        guard x1 > x0, y1 > y0 else { return nil }
        let a = y1 * stride + x1, b = y0 * stride + x1, d = y1 * stride + x0, e = y0 * stride + x0
        let count = Double(c[a]) - Double(c[b]) - Double(c[d]) + Double(c[e])
        guard count >= needed else { return nil }
        return (Double(t[a]) - Double(t[b]) - Double(t[d]) + Double(t[e])) / count
    }
}
