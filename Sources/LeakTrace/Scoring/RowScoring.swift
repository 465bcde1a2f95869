import Foundation
import Overlay

/// Where one row's mark of one traced layer sat during one slot.
public struct MarkEvidence: Sendable {
    public var slot: SlotKey
    /// Which of the row's footprints (one per traced layer) the mark has.
    public var footprint: Int
    /// The mark's rectangle in the original's display pixels.
    public var rect: PlaneRect

    public init(slot: SlotKey, footprint: Int, rect: PlaneRect) {
        self.slot = slot
        self.footprint = footprint
        self.rect = rect
    }
}

/// Everything the scorer needs about one row: its marks' footprints (for decoys of the same
/// size) and where its marks were in each slot the leak covers.
public struct RowMarks: Sendable {
    public var footprints: [MarkFootprint]
    public var evidence: [MarkEvidence]

    public init(footprints: [MarkFootprint], evidence: [MarkEvidence]) {
        self.footprints = footprints
        self.evidence = evidence
    }
}

/// How well one row's path explains the leak.
public struct RowScore: Sendable, Equatable {
    /// The row's position in the list scored (0-based).
    public var row: Int
    /// Slots whose mark lay (enough) inside the leak's picture and counted.
    public var slotsUsed: Int
    /// log10 of the chance that a path unrelated to the leak explains it this well (Fisher's
    /// combination of the per-slot decoy ranks); more negative is stronger.
    public var log10PValue: Double
    /// log10 of the false-match probability: the chance that any of the rows scored, none of
    /// them the leak's source, would reach this p-value.
    public var log10FalseMatch: Double

    /// −log10 p: the evidence in decimal digits, the score printed for each row.
    public var score: Double { -log10PValue }
    public var falseMatchProbability: Double { pow(10, log10FalseMatch) }
}

/// Scores every row against the difference maps.
///
/// Per slot, a row's evidence is the mean standardised difference inside its mark's rectangle,
/// mapped into the leak. Its meaning comes from decoys: the same footprint at `decoyCount`
/// random spots of that slot — exactly how a row that did not leak places its mark, since
/// `random` draws each slot's spot uniformly and independently. The slot's p-value is the
/// row's rank among the decoys, (1 + decoys at least as high) / (1 + decoys), which holds
/// whatever the leak's content, noise or blur. Slots are independent for a row that did not
/// leak, so Fisher's method combines them; the false-match probability then allows for the
/// number of rows tried. A row's mark that lies mostly outside the leak (cropped away) says
/// nothing and is skipped, as are decoys in the same case.
public struct RowScorer: Sendable {
    public static let decoyCount = 1000
    /// Decoys are drawn until this many beat the row (see `DecoyRank`).
    static let exceedancesToStop = 10
    /// The share of a mark's rectangle that must lie in the leak's picture for its slot to count.
    public static let minimumVisibleShare = 0.3

    public let maps: DifferenceMaps
    /// Original display pixels → map pixels.
    public let displayToMap: AxisAlignedMap
    /// The leak's picture in map pixels.
    public let content: PlaneRect

    public init(maps: DifferenceMaps, displayToMap: AxisAlignedMap, content: PlaneRect) {
        self.maps = maps
        self.displayToMap = displayToMap
        self.content = content
    }

    /// Scores of `rows`, strongest first (ties by row order).
    public func score(_ rows: [RowMarks]) -> [RowScore] {
        let slots = maps.slots
        let slotIndex = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1, $0) })
        // `slots` are the maps' own: each has its table.
        let tables = slots.map { maps.table(of: $0) ?? [] }
        // Per slot, the decoys' spots in percent: the same for every row, fixed per slot so runs agree.
        let spots = slots.map { slot -> [(x: Double, y: Double)] in
            var generator = SeededGenerator(seed: 0x5EED_1EA4 ^ (UInt64(bitPattern: slot.slot) &* 0x9E37_79B9) ^ (UInt64(slot.schedule) << 56))
            return (0..<Self.decoyCount).map { _ in (generator.unit() * 100, generator.unit() * 100) }
        }
        // Slot by slot, so one slot's table stays in cache while every row's decoys read it.
        var bySlot = [[(row: Int, evidence: MarkEvidence)]](repeating: [], count: slots.count)
        for (index, row) in rows.enumerated() {
            for evidence in row.evidence {
                if let slot = slotIndex[evidence.slot] { bySlot[slot].append((index, evidence)) }
            }
        }
        // Slots are independent: each core takes whole slots, and each slot keeps its own terms.
        let bySlotDone = bySlot
        let terms = SlotTerms(count: slots.count)
        DispatchQueue.concurrentPerform(iterations: slots.count) { slot in
            var slotTerms: [(row: Int, logP: Double)] = []
            for (index, evidence) in bySlotDone[slot] {
                guard let value = value(of: evidence.rect, table: tables[slot]) else { continue }
                // The row's rank among decoys of its own footprint.
                let rank = DecoyRank(footprint: rows[index].footprints[evidence.footprint], scorer: self)
                    .count(spots[slot], table: tables[slot], atLeast: value)
                guard let pValue = rank.pValue else { continue }
                slotTerms.append((index, log(pValue)))
            }
            terms.set(slot, slotTerms)
        }
        var logSums = [Double](repeating: 0, count: rows.count)
        var used = [Int](repeating: 0, count: rows.count)
        for slot in slots.indices {
            for term in terms.get(slot) {
                logSums[term.row] += term.logP
                used[term.row] += 1
            }
        }
        let scores = rows.indices.map { index in
            let logP = Significance.logChiSquareTail(-2 * logSums[index], halfDegreesOfFreedom: used[index])
            let logFalseMatch = Significance.logAnyOf(trials: rows.count, logP: logP)
            return RowScore(row: index, slotsUsed: used[index], log10PValue: logP / log(10), log10FalseMatch: logFalseMatch / log(10))
        }
        return scores.sorted { ($0.log10PValue, $0.row) < ($1.log10PValue, $1.row) }
    }

    /// The mean standardised difference over the visible part of a display rectangle in the
    /// slot whose summed-area table is `table`, nil when too little of it is visible.
    func value(of rect: PlaneRect, table: [Float]) -> Double? {
        let mapped = displayToMap.apply(rect)
        let visible = mapped.intersection(content)
        guard visible.area >= max(4, Self.minimumVisibleShare * mapped.area) else { return nil }
        return DifferenceMaps.mean(table, width: maps.width, height: maps.height, rect: visible)?.mean
    }
}

/// Per-slot results written by concurrent workers, one slot each.
private final class SlotTerms: @unchecked Sendable {
    // Each index is written by exactly one worker and read after all have finished.
    private var terms: [[(row: Int, logP: Double)]]
    private let lock = NSLock()

    init(count: Int) { terms = Array(repeating: [], count: count) }

    func set(_ slot: Int, _ value: [(row: Int, logP: Double)]) {
        lock.lock()
        terms[slot] = value
        lock.unlock()
    }

    func get(_ slot: Int) -> [(row: Int, logP: Double)] { terms[slot] }
}

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
    func count(_ spots: [(x: Double, y: Double)], table: [Float], atLeast value: Double) -> DecoyCount {
        let inset = footprint.insetPixels
        // Placement.origin's free room per axis; where a box does not fit, its own rule applies.
        let freeX = Double(footprint.displayWidth - footprint.layoutBox.width) - 2 * inset
        let freeY = Double(footprint.displayHeight - footprint.layoutBox.height) - 2 * inset
        let fits = freeX >= 0 && freeY >= 0 && !footprint.isTiled
        let map = scorer.displayToMap, content = scorer.content
        let width = Double(footprint.width), height = Double(footprint.height)
        let mappedArea = map.scaleX * width * map.scaleY * height
        let needed = max(4, RowScorer.minimumVisibleShare * mappedArea)
        let stride = scorer.maps.width + 1
        let mapWidth = scorer.maps.width, mapHeight = scorer.maps.height
        var valid = 0, above = 0
        table.withUnsafeBufferPointer { t in
            for spot in spots {
                let x: Int, y: Int
                if fits {
                    // Placement.origin's `(inset + free · p / 100).rounded()`, for a value that is never negative here.
                    x = Int(inset + freeX * spot.x / 100 + 0.5) - footprint.layoutBox.x
                    y = Int(inset + freeY * spot.y / 100 + 0.5) - footprint.layoutBox.y
                } else {
                    let r = footprint.displayRect(xPercent: spot.x, yPercent: spot.y)
                    (x, y) = (r.x, r.y)
                }
                let minX = max(map.scaleX * Double(x) + map.offsetX, content.minX)
                let minY = max(map.scaleY * Double(y) + map.offsetY, content.minY)
                let maxX = min(map.scaleX * (Double(x) + width) + map.offsetX, content.maxX)
                let maxY = min(map.scaleY * (Double(y) + height) + map.offsetY, content.maxY)
                guard maxX > minX, maxY > minY, (maxX - minX) * (maxY - minY) >= needed else { continue }
                let x0 = min(DifferenceMaps.nearest(minX), mapWidth), x1 = min(DifferenceMaps.nearest(maxX), mapWidth)
                let y0 = min(DifferenceMaps.nearest(minY), mapHeight), y1 = min(DifferenceMaps.nearest(maxY), mapHeight)
                guard x1 > x0, y1 > y0 else { continue }
                let sum = Double(t[y1 * stride + x1]) - Double(t[y0 * stride + x1]) - Double(t[y1 * stride + x0]) + Double(t[y0 * stride + x0])
                valid += 1
                above += sum / Double((x1 - x0) * (y1 - y0)) >= value ? 1 : 0
                if above == RowScorer.exceedancesToStop { break }
            }
        }
        return DecoyCount(valid: valid, atLeast: above)
    }
}

/// How a row's value ranked among the decoys looked at.
struct DecoyCount: Equatable {
    var valid: Int
    var atLeast: Int

    /// h/n when stopped at the h-th exceedance after n decoys, else (1 + exceedances)/(1 + decoys);
    /// nil when no decoy was usable.
    var pValue: Double? {
        guard valid > 0 else { return nil }
        if atLeast >= RowScorer.exceedancesToStop { return Double(atLeast) / Double(valid) }
        return Double(1 + atLeast) / Double(1 + valid)
    }
}

