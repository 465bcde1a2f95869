import Foundation
import Overlay

/// Where the marks are, measured against where the rows' keys put them: each row's place ranked
/// among the places its path could draw (`position`), where to read text (`strongestPlaces`),
/// how much a reading's box says of a place (`locationPValue`) and how close a mark read there
/// sits to it, against a forgery (`forgeryChance`).
extension StillEvidence {
    /// The row's traced mark's strength where its path puts it (the best of its instants), and
    /// the share of decoy spots, drawn as the path draws them, holding as much (times the
    /// rectangles tried); (nil, 1) where the still shows none of it.
    static func position(of row: StillRowMarks, decoys: inout DecoyTables) -> PositionEvidence {
        var best: (strokes: Double, p: Double, rect: PlaneRect)?
        let tries = max(1, row.traced.reduce(0) { $0 + $1.rects.count })
        for layer in row.traced {
            let seen = layer.rects.compactMap { rect in decoys.difference.markStrength(in: rect, ring: Self.ring(of: layer.footprint)).map { (rect: rect, value: $0) } }
            guard let strongest = seen.max(by: { $0.value < $1.value }) else { continue }
            guard let share = decoys.shareAtLeast(strongest.value, footprint: layer.footprint) else { continue }
            let p = min(1, Double(tries) * share)
            if p < best?.p ?? 2 { best = (strongest.value, p, strongest.rect) }
        }
        return PositionEvidence(strokes: best?.strokes, pValue: best?.p ?? 1, rect: best?.rect)
    }

    /// The places where a mark of `footprint`'s size holds the most strokes, strongest first,
    /// none overlapping another by more than a third: where to read text, found by the marks'
    /// known size rather than by guessing where a line of glyphs begins and ends.
    public static func strongestPlaces(for footprint: MarkFootprint, difference: StillDifference, count: Int) -> [PlaneRect] {
        let steps = (0..<decoyGrid).map { 100 * Double($0) / Double(decoyGrid - 1) }
        let lefts = steps.map { Double(footprint.displayRect(xPercent: $0, yPercent: 0).x) }
        let tops = steps.map { Double(footprint.displayRect(xPercent: 0, yPercent: $0).y) }
        let (width, height) = (Double(footprint.width), Double(footprint.height))
        var spots: [(rect: PlaneRect, value: Double)] = []
        for top in tops {
            for left in lefts {
                let rect = PlaneRect(x: left, y: top, width: width, height: height)
                if let value = difference.markStrength(in: rect, ring: ring(of: footprint)) { spots.append((rect, value)) }
            }
        }
        spots.sort { $0.value > $1.value }
        var chosen: [PlaneRect] = []
        for spot in spots where chosen.count < count {
            if chosen.contains(where: { $0.intersection(spot.rect).area > spot.rect.area / 3 }) { continue }
            chosen.append(spot.rect)
        }
        return chosen
    }

    /// The band around a mark's rectangle its strength is measured against: a third of its height.
    static func ring(of footprint: MarkFootprint) -> Double { Double(footprint.height) / 3 }

    /// Steps per axis of the grid the location's chance is counted on.
    static let locationGrid = 1001

    /// The chance that a place the row's path could draw (uniform in x and y percent) covers
    /// `box` as much as the best of `rects` does, times the rectangles tried (one per distinct
    /// instant): a mark's rectangle covers a box by the product of its overlaps along each axis,
    /// and each axis's left edge or top depends on one percentage only.
    static func locationPValue(box: PlaneRect, rects: [PlaneRect], footprint: MarkFootprint) -> Double {
        guard box.area > 0, !rects.isEmpty else { return 1 }
        let observed = rects.map { $0.intersection(box).area }.max() ?? 0
        guard observed > 0 else { return 1 }
        let steps = (0..<locationGrid).map { 100 * Double($0) / Double(locationGrid - 1) }
        let (width, height) = (Double(footprint.width), Double(footprint.height))
        let overlapsX = steps.map { percent -> Double in
            let left = Double(footprint.displayRect(xPercent: percent, yPercent: 0).x)
            return max(0, min(left + width, box.maxX) - max(left, box.minX))
        }
        let overlapsY = steps.map { percent -> Double in
            let top = Double(footprint.displayRect(xPercent: 0, yPercent: percent).y)
            return max(0, min(top + height, box.maxY) - max(top, box.minY))
        }.sorted()
        var count = 0
        for overlap in overlapsX where overlap > 0 {
            let needed = observed / overlap - 1e-9
            var low = 0, high = overlapsY.count
            while low < high {
                let middle = (low + high) / 2
                if overlapsY[middle] >= needed { high = middle } else { low = middle + 1 }
            }
            count += overlapsY.count - low
        }
        let share = Double(max(count, 1)) / Double(locationGrid * locationGrid)
        return min(1, Double(rects.count) * share)
    }

    /// The chance that a mark put at a place chosen without the key lies as close to one of the
    /// row's `rects` (its places over the instants the still may show) as the still's mark does:
    /// around each place, the offset at which a rectangle of the mark's size holds the most
    /// strokes (`markStrength`, whose band makes it peak where the rectangle fits the glyphs),
    /// searched as far as `located` tolerates, taken at the middle of its top (`plateauMiddle`);
    /// then the share of the places the path could
    /// draw (uniform in x and y percent, as the key draws them) lying that close to that place,
    /// for the closest, times the places tried. A forger's address typed within the tolerance of
    /// a place by luck peaks tens of pixels off it; the copy's own mark, within a pixel or two.
    public static func forgeryChance(rects: [PlaneRect], footprint: MarkFootprint, difference: StillDifference) -> Double {
        guard !rects.isEmpty, !footprint.isTiled else { return 1 }
        let (width, height) = (Double(footprint.width), Double(footprint.height))
        // How far the left edge and top move over the path's 0…100 %.
        let travelX = Double(footprint.displayRect(xPercent: 100, yPercent: 0).x - footprint.displayRect(xPercent: 0, yPercent: 0).x)
        let travelY = Double(footprint.displayRect(xPercent: 0, yPercent: 100).y - footprint.displayRect(xPercent: 0, yPercent: 0).y)
        let step = 1 / difference.scale
        let reachX = Int(((spanTolerance * width + placementTolerance * height) * difference.scale).rounded(.up))
        let reachY = Int((placementTolerance * height * difference.scale).rounded(.up))
        let band = ring(of: footprint)
        var closest = 1.0
        for rect in rects {
            let strength = { (dx: Int, dy: Int) -> Double? in
                difference.markStrength(in: PlaneRect(x: rect.minX + Double(dx) * step, y: rect.minY + Double(dy) * step,
                                                      width: width, height: height), ring: band)
            }
            var peak: (value: Double, dx: Int, dy: Int)?
            for dy in -reachY...reachY {
                for dx in -reachX...reachX {
                    guard let value = strength(dx, dy) else { continue }
                    // Ties go to the smaller offset: a flat top says no more than its nearest edge.
                    let nearer = peak.map { value == $0.value && abs(dx) + abs(dy) < abs($0.dx) + abs($0.dy) } ?? false
                    if value > peak?.value ?? -.infinity || nearer { peak = (value, dx, dy) }
                }
            }
            guard let peak, peak.value > 0 else { continue }
            // The middle of the top rather than its highest point: along a long line the strength
            // is nearly flat for a few pixels either way, and noise picks the highest anywhere on it.
            let centreX = Self.plateauMiddle(peak: peak.dx, reach: reachX, top: peak.value) { strength($0, peak.dy) }
            let centreY = Self.plateauMiddle(peak: peak.dy, reach: reachY, top: peak.value) { strength(peak.dx, $0) }
            // Within the offset found, and half a grid pixel for where a pixel's edge falls.
            let offsetX = (abs(centreX) + 0.5) * step, offsetY = (abs(centreY) + 0.5) * step
            let shareX = travelX > 0 ? min(1, 2 * offsetX / travelX) : 1
            let shareY = travelY > 0 ? min(1, 2 * offsetY / travelY) : 1
            StillTraceDiagnostics.note("  forgery chance at \(rect): best fit \(centreX * step), \(centreY * step) px off (searched ±\(Double(reachX) * step), ±\(Double(reachY) * step)), share \(shareX * shareY) of \(rects.count)")
            closest = min(closest, shareX * shareY)
        }
        return min(1, Double(rects.count) * closest)
    }

    /// A strength within this share of the top is on the top (`plateauMiddle`).
    static let plateauShare = 0.97

    /// The middle of the run of offsets around `peak` whose strength stays within `plateauShare` of `top`.
    static func plateauMiddle(peak: Int, reach: Int, top: Double, strength: (Int) -> Double?) -> Double {
        var low = peak, high = peak
        while low > -reach, let value = strength(low - 1), value >= plateauShare * top { low -= 1 }
        while high < reach, let value = strength(high + 1), value >= plateauShare * top { high += 1 }
        return Double(low + high) / 2
    }

    /// The mean stroke strength at every spot of the decoy grid the still shows. A spot's
    /// left edge depends only on its x and its top only on its y, so each is placed once.
    static func decoyValues(_ footprint: MarkFootprint, difference: StillDifference) -> [Double] {
        let steps = (0..<decoyGrid).map { 100 * Double($0) / Double(decoyGrid - 1) }
        let lefts = steps.map { Double(footprint.displayRect(xPercent: $0, yPercent: 0).x) }
        let tops = steps.map { Double(footprint.displayRect(xPercent: 0, yPercent: $0).y) }
        let (width, height) = (Double(footprint.width), Double(footprint.height))
        let band = ring(of: footprint)
        var values: [Double] = []
        values.reserveCapacity(decoyGrid * decoyGrid)
        for top in tops {
            for left in lefts {
                if let value = difference.markStrength(in: PlaneRect(x: left, y: top, width: width, height: height), ring: band) { values.append(value) }
            }
        }
        return values
    }
}

/// The decoys' values per footprint, sorted, made when first needed. A row whose mark is no
/// stronger than most places is ranked among the first footprint's decoys (marks of one layer
/// differ only in their texts' widths); only a row that stands out gets decoys of its own size.
struct DecoyTables {
    let difference: StillDifference
    private var tables: [String: [Double]] = [:]
    private var first: [Double]?
    /// Below this share the first footprint's decoys are not trusted for another size.
    static let exactBelow = 0.05

    init(difference: StillDifference) { self.difference = difference }

    /// The share of decoys of `footprint` at least `value` (at least one decoy's worth); nil when the still shows none.
    mutating func shareAtLeast(_ value: Double, footprint: MarkFootprint) -> Double? {
        let generic = first ?? {
            let made = StillEvidence.decoyValues(footprint, difference: difference).sorted()
            first = made
            tables[Self.key(footprint)] = made
            return made
        }()
        guard let rough = Self.share(generic, atLeast: value) else { return nil }
        guard rough < Self.exactBelow else { return rough }
        let key = Self.key(footprint)
        let own = tables[key] ?? {
            let made = StillEvidence.decoyValues(footprint, difference: difference).sorted()
            tables[key] = made
            return made
        }()
        return Self.share(own, atLeast: value)
    }

    static func share(_ sorted: [Double], atLeast value: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] >= value { high = middle } else { low = middle + 1 }
        }
        return Double(max(sorted.count - low, 1)) / Double(sorted.count)
    }

    static func key(_ footprint: MarkFootprint) -> String {
        let box = footprint.layoutBox
        return [footprint.width, footprint.height, box.x, box.y, box.width, box.height].map(String.init).joined(separator: ",")
    }
}

