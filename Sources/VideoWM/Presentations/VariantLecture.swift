import Animation
import Foundation
import Overlay

/// An HLS lecture whose config has a variant layer (docs/variant-marks.md §6–§8): the
/// `encoded` plan cut every `seconds` (a period is a segment), each segment's q variants
/// rendered once for the whole class (the variant layer alone, variant k all along) and
/// shared, and each student's row re-encoding only the segments its own marks show in, with the
/// variant its codeword names drawn under them. A row's playlist lists, segment by segment, its
/// own segment or the shared render of its codeword's variant.
///
/// The q renders of a segment are padded to one size (a `free` box after the `mdat`) and named
/// by their content, so neither a name nor a size says which variant a student was given.
final class VariantLecture {
    let source: PresentationSource
    let plan: PresentationPlan
    /// Variant k of the layer alone, as every row without a mark of its own shows it.
    let variants: [PresentationRow]
    let warn: WarningHandler

    /// - Parameter compositor: any row's (its variant layer is every row's: `BatchPlan` checks).
    init(source: PresentationSource, compositor: Compositor, warn: @escaping WarningHandler) throws {
        guard let layer = compositor.layerVariants else { preconditionFailure("a variant lecture needs a variant layer") }
        self.source = source
        self.warn = warn
        variants = try (0..<layer.count).map { k in
            guard let alone = compositor.variantLayerAlone(showing: k) else { preconditionFailure("the variant layer went") }
            return try PresentationRow(source: source, compositor: alone, rendering: .encoded, warn: warn)
        }
        plan = variants[0].plan
    }

    /// How many periods (segments) a codeword covers.
    var periodCount: Int { plan.segmentCount }

    /// When each period starts: the plan's segment starts, as the variant schedule and `trace` read them.
    var periodStarts: [PresentationTime] { plan.plannedSegments.map(\.start) }

    /// For each segment, whether a layer of `compositor` other than the variant layer shows in
    /// it: the segments a row marked by it re-encodes (the others are shared renders).
    func ownSegments(markedBy compositor: Compositor) -> [Bool] {
        plan.positions.map { range in range.contains { compositor.drawsOwnMarks(at: plan.time(plan.pictureTimestamps[$0])) } }
    }

    /// A student's row: `compositor` (the row's layers, the variant layer among them) drawing
    /// `codeword`'s variant in each period; it re-encodes the segments its own marks show in.
    func row(compositor: Compositor, codeword: [Int]) throws -> PresentationRow {
        precondition(codeword.count == periodCount, "one variant per period")
        compositor.variantSchedule = VariantSchedule(periodStarts: periodStarts, variants: codeword)
        return try PresentationRow(source: source, compositor: compositor, rendering: .encoded, ownSegments: ownSegments(markedBy: compositor), warn: warn)
    }

    /// A student of the lecture, before their row is made (rows hold prepared marks: they are
    /// made a group at a time).
    struct Student {
        let codeword: [Int]
        /// `ownSegments(markedBy:)` of the row's compositor.
        let ownSegments: [Bool]
        let storage: PresentationStorage
        /// Makes the row (`row(compositor:codeword:)`).
        let makeRow: () throws -> PresentationRow
    }

    /// The q renders' bytes padded to one length: each gets a `free` box after its `mdat` (a box
    /// is 8 bytes at least, so the common length grows by 8 when some render falls short by less).
    static func padded(_ renders: [[UInt8]]) -> [[UInt8]] {
        var length = renders.map(\.count).max() ?? 0
        if renders.contains(where: { $0.count < length && length - $0.count < 8 }) { length += 8 }
        return renders.map { bytes in
            let missing = length - bytes.count
            guard missing > 0 else { return bytes }
            let size = UInt32(missing)
            return bytes + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                + Array("free".utf8) + [UInt8](repeating: 0, count: missing - 8)
        }
    }

    /// Writes the presentations of `rows` (each with its codeword's variants), `group` rows at
    /// a time: first the q variants of every segment, each segment's GOPs decoded once and each
    /// variant encoded once, stored shared and listed for every row; then each group's own
    /// segments, encoded for its rows (a group decodes only the segments one of its rows needs).
    /// A row whose own work fails is abandoned alone; a failure of the input or of a shared render
    /// abandons every row and is thrown.
    func write(_ rows: [Student], group: Int,
               onRowFailed: (Int, Error) throws -> Void, onRowWritten: (Int) throws -> Void,
               progress: (PresentationTime, Int) -> Void) throws -> PresentationSummary {
        let q = variants.count
        var active = Array(rows.indices)
        var uris = [[String]](repeating: [String](repeating: "", count: plan.segmentCount), count: rows.count)
        var initializationURI = [String](repeating: "", count: rows.count)
        var frames = 0
        var damaged = 0
        func fail(_ n: Int, _ error: Error) throws {
            active.removeAll { $0 == n }
            rows[n].storage.abandon()
            try onRowFailed(n, error)
        }
        func forEachActive(_ members: [Int], _ body: (Int) throws -> Void) throws {
            for n in members where active.contains(n) {
                do {
                    try body(n)
                } catch let error as InterruptedError {
                    throw error
                } catch {
                    try fail(n, error)
                }
            }
        }
        do {
            // The shared renders: every row lists its codeword's variant of each segment.
            let maker = try SegmentMaker(source: source, plan: plan, rows: variants)
            for k in 0..<plan.segmentCount where !active.isEmpty {
                let made = try maker.render(segment: k, seeking: false, keepingPackets: k == 0)
                let renders = try (0..<q).map { try made[$0].get() }
                let padded = Self.padded(renders.map(\.segment.bytes))
                let shared = renders.indices.map { v in
                    let render = renders[v].segment
                    return RenderedSegment(index: k, bytes: padded[v], duration: render.duration, isShared: true, decodedPictures: render.decodedPictures,
                                           encodedPictures: render.encodedPictures, videoSamples: render.videoSamples)
                }
                // Every row's segments come from encoders set up alike: one initialization for all.
                let initialization = k == 0
                    ? RenderedInitialization(bytes: try variants[0].initializationSegment(firstSegmentPackets: renders[0].packets).bytes, isShared: true) : nil
                frames += shared[0].videoSamples
                try forEachActive(Array(rows.indices)) { n in
                    let student = rows[n]
                    if let initialization { initializationURI[n] = try student.storage.store(initialization: initialization) }
                    if !student.ownSegments[k] { uris[n][k] = try student.storage.store(segment: shared[student.codeword[k]]) }
                }
                progress(plan.time(plan.end(of: k)), frames)
            }
            damaged += maker.damagedPackets
            // Each group's own segments (where its rows' own marks show), then its playlists.
            for start in stride(from: 0, to: rows.count, by: group) {
                try Interruption.throwIfRequested()
                var members: [Int] = []
                var made: [PresentationRow] = []
                try forEachActive(Array(start..<min(start + group, rows.count))) { n in
                    let row = try rows[n].makeRow()
                    members.append(n)
                    made.append(row)
                }
                guard !made.isEmpty else { continue }
                let own = try SegmentMaker(source: source, plan: plan, rows: made)
                for k in 0..<plan.segmentCount where members.contains(where: { active.contains($0) && rows[$0].ownSegments[k] }) {
                    let segments = try own.render(segment: k, seeking: true)
                    try forEachActive(members) { n in
                        guard rows[n].ownSegments[k], let position = members.firstIndex(of: n) else { return }
                        uris[n][k] = try rows[n].storage.store(segment: try segments[position].get().segment)
                    }
                }
                damaged += own.damagedPackets
                try forEachActive(members) { n in
                    guard let position = members.firstIndex(of: n) else { return }
                    try rows[n].storage.commit(playlist: made[position].playlist(initializationURI: initializationURI[n], uri: { uris[n][$0.index] }))
                }
                for n in members where active.contains(n) { try onRowWritten(n) }
            }
        } catch {
            for n in active { rows[n].storage.abandon() }
            throw error
        }
        return PresentationSummary(videoFrames: frames, damagedPackets: damaged)
    }
}
