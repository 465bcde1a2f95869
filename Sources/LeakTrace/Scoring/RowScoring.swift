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
/// mapped into the leak. Its meaning comes from decoys: the same footprint at up to `decoyCount`
/// random spots of that slot — exactly how a row that did not leak places its mark, since
/// `random` draws each slot's spot uniformly and independently. The slot's p-value is the
/// row's rank among the decoys, (1 + decoys at least as high) / (1 + decoys), which holds
/// whatever the leak's content, noise or blur. Each row draws decoys of its own (`DecoySpots`,
/// seeded by the slot and the row's place in the list): the row's spot and its decoys are then
/// independent draws of one distribution, so the p-value is exact however the leak looks; one
/// set shared by every row would be off wherever it happened to miss a bright spot, for every
/// row and every key alike (measured: 2 of 240 innocent trials reached 0.001 with shared
/// decoys). Slots are independent for a row that did not leak, so Fisher's method combines
/// them; the false-match probability then allows for the number of rows tried. A row's mark
/// that lies mostly outside the leak (cropped away) says nothing and is skipped, as are decoys
/// in the same case.
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
        let tables = slots.map { maps.table(of: $0)! }
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
                // The row's rank among decoys of its own footprint, drawn for it.
                let rank = DecoyRank(footprint: rows[index].footprints[evidence.footprint], scorer: self)
                    .count(DecoySpots(slot: slots[slot], row: index, footprint: evidence.footprint), table: tables[slot], atLeast: value)
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

    /// The row's p-value in each slot it was scored in (the same decoy ranks `score` combines):
    /// where in the leak its marks stand out. For the few identified rows, to say which time a
    /// row explains when a leak switches between copies.
    ///
    /// `index` is the row's place in the list `score` was given (which seeds its decoys).
    public func slotPValues(of row: RowMarks, index: Int) -> [SlotKey: Double] {
        var pValues: [SlotKey: Double] = [:]
        for evidence in row.evidence {
            guard let table = maps.table(of: evidence.slot), let value = value(of: evidence.rect, table: table) else { continue }
            let rank = DecoyRank(footprint: row.footprints[evidence.footprint], scorer: self)
                .count(DecoySpots(slot: evidence.slot, row: index, footprint: evidence.footprint), table: table, atLeast: value)
            if let p = rank.pValue { pValues[evidence.slot] = min(pValues[evidence.slot] ?? 1, p) }
        }
        return pValues
    }

    /// The mean standardised difference over the visible pixels of a display rectangle (inside
    /// the leak's picture and not covered, see `DifferenceMaps`) in the slot whose summed-area
    /// table is `table`, nil when too little of it is visible.
    func value(of rect: PlaneRect, table: [Float]) -> Double? {
        let mapped = displayToMap.apply(rect)
        guard let (mean, visible) = maps.mean(table, rect: mapped), Double(visible) >= Self.neededVisiblePixels(mappedArea: mapped.area) else {
            return nil
        }
        return mean
    }

    /// The visible pixels a mark whose rectangle covers `mappedArea` map pixels needs to count.
    static func neededVisiblePixels(mappedArea: Double) -> Double { max(4, minimumVisibleShare * mappedArea) }
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

