import Overlay

/// Whether a leak holds marks that no row's path explains: what tells a forged leak (a
/// classmate's address drawn along the path anyone can compute without the key, or anywhere)
/// or one made with another key from an unmarked copy, when no row is identified.
///
/// In each slot a mark-sized rectangle is slid over the picture on a grid a third of the mark
/// apart (any mark lies mostly inside one of them), skipping every rectangle that touches an
/// identified row's mark.
/// A slot holds a mark when its strongest rectangle stands out from the slot's own rectangles
/// by `outlierThreshold` robust standard deviations (median and median absolute deviation):
/// re-encoding noise and the content's edges spread the values but rarely make one rectangle
/// stand out like a mark, which is brighter than what was there in one place for one slot.
/// The leak holds marks when most slots do (`slotShareThreshold`, and at least
/// `minimumSlots`); the thresholds are checked on unmarked copies by `MarkPresenceTests` and
/// the calibration run (see docs/design/measurements.md, Tracing).
public struct MarkPresence: Sendable {
    public static let outlierThreshold = 8.0
    public static let slotShareThreshold = 0.5
    public static let minimumSlots = 3

    /// The strongest rectangle of one slot.
    public struct SlotFinding: Sendable {
        public var slot: SlotKey
        /// Its rectangle in the original's display pixels.
        public var rect: PlaneRect
        /// How far it stands out, in robust standard deviations of the slot's rectangles.
        public var outlierScore: Double
        public var holdsMark: Bool { outlierScore >= MarkPresence.outlierThreshold }
    }

    /// Per slot looked at, its strongest rectangle.
    public var slots: [SlotFinding]

    /// Slots that hold a mark.
    public var slotsWithMarks: Int { slots.filter(\.holdsMark).count }

    /// Whether the leak holds marks (see the type's description).
    public var marksFound: Bool {
        let count = slotsWithMarks
        return count >= Self.minimumSlots && Double(count) >= Self.slotShareThreshold * Double(slots.count)
    }

    /// Looks for marks of `footprint`'s size in every slot of the scorer's maps, outside the
    /// display rectangles `excluded` gives per slot.
    public static func scan(_ scorer: RowScorer, footprint: MarkFootprint, excluding excluded: [SlotKey: [PlaneRect]] = [:]) -> MarkPresence {
        let geometry = DecoyGeometry(footprint: footprint, scorer: scorer)
        // Spots a third of the mark apart in each direction, in percent of the free room.
        let stepX = geometry.freeX > 0 ? min(100, 100 * Double(footprint.width) / 3 / geometry.freeX) : 100
        let stepY = geometry.freeY > 0 ? min(100, 100 * Double(footprint.height) / 3 / geometry.freeY) : 100
        let spots = stride(from: 0.0, through: 100, by: stepY).flatMap { y in stride(from: 0.0, through: 100, by: stepX).map { (x: $0, y: y) } }
        var findings: [SlotFinding] = []
        for slot in scorer.maps.slots {
            guard let table = scorer.maps.table(of: slot) else { continue }
            let skip = excluded[slot] ?? []
            var values: [Double] = []
            var best: (value: Double, rect: PlaneRect)?
            for (spot, value) in zip(spots, DecoyRank(footprint: footprint, scorer: scorer).values(spots, table: table)) {
                guard let value else { continue }
                let r = footprint.displayRect(xPercent: spot.x, yPercent: spot.y)
                let rect = PlaneRect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height))
                if skip.contains(where: { $0.intersection(rect).area > 0 }) { continue }
                values.append(value)
                if value > best?.value ?? -.infinity { best = (value, rect) }
            }
            guard let best, values.count >= 20 else { continue }
            let median = Self.median(values)
            let spread = 1.4826 * Self.median(values.map { abs($0 - median) })
            findings.append(SlotFinding(slot: slot, rect: best.rect, outlierScore: (best.value - median) / max(spread, 0.05)))
        }
        return MarkPresence(slots: findings)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
