import Animation
import Foundation
import Overlay

/// An HLS lecture whose config has a variant layer (docs/design/variant-marks.md §6–§8): the
/// `encoded` plan cut every `seconds` (a period is a segment), each segment's q variants
/// rendered once for the whole class (the variant layer alone, variant k all along) and
/// shared, and each student's row re-encoding only the segments its own marks show in (without
/// the variant layer: their marks name them there, and the tile would make each row's own
/// segments dearer). A row's playlist lists, segment by segment, its
/// own segment or the shared render of its codeword's variant.
///
/// The q renders of a segment are padded to one size (a `free` box after the `mdat`) and named
/// by their content (batch) or an opaque keyed name (serve), so neither a name nor a size says
/// which variant a student was given.
///
/// `batch` writes a whole lecture (`write`); a server makes the same files one segment at a time
/// (`sharedFiles(ofSegment:)`, a student's `row(config:variables:images:codeword:)`),
/// through the same functions, so each is byte for byte batch's. Use one lecture from one thread
/// at a time (its rows' compositors are stateful); lectures over one source are cheap to make.
public final class VariantLecture {
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

    /// A server's lecture, before any student: the config's variant layer bound alone, with
    /// `jobValues` for `{date}` and `{time}` (batch binds it with its first row's variables, which the
    /// layer's text may not use: `BatchPlan` refuses a CSV column in it). A server knows no student's
    /// variables when it renders the shared variants, so the layer's text may use none (64, naming it).
    public convenience init(source: PresentationSource, config: WatermarkConfig, jobValues: [String: String], images: ImageCache,
                            warn: @escaping WarningHandler) throws {
        try self.init(source: source, compositor: try Self.layerAlone(config: config, jobValues: jobValues, images: images, warn: warn), warn: warn)
    }

    /// The config's variant layer alone, bound for nobody in particular (a lecture before any
    /// student): with `jobValues` for `{date}` and `{time}` and the values every student shares (a
    /// batch's `--var`s); a student's own variable in the layer's text is refused (64, naming it).
    public static func layerAlone(config: WatermarkConfig, jobValues: [String: String], images: ImageCache,
                                  warn: @escaping WarningHandler) throws -> Compositor {
        guard let alone = config.withVariantLayerAlone else { preconditionFailure("a variant lecture needs a variant layer") }
        if let layer = config.variantLayer, case .text(let template) = layer.content,
           let name = template.variableNames.first(where: { !TextTokens.all.contains($0) && jobValues[$0] == nil }) {
            throw ConfigError(file: config.file, path: layer.path + ".text",
                              problem: "'{\(name)}' in a variant layer's text: the layer is the same for every student (each segment's variants are rendered once for the class), so it may use no student's variable")
        }
        return try Compositor.forJob(config: alone, variables: jobValues, images: images, warn: warn)
    }

    /// How many periods (segments) a codeword covers.
    public var periodCount: Int { plan.segmentCount }

    /// q: how many variants each segment has.
    public var variantCount: Int { variants.count }

    /// When each period starts: the plan's segment starts, as the variant schedule and `trace` read them.
    var periodStarts: [PresentationTime] { plan.plannedSegments.map(\.start) }

    /// For each segment, whether a layer of `compositor` other than the variant layer shows in
    /// it: the segments a row marked by it re-encodes (the others are shared renders).
    public func ownSegments(markedBy compositor: Compositor) -> [Bool] {
        source.ownSegments(plan, by: compositor)
    }

    /// A student's row: `compositor` (the row's layers, the variant layer among them) drawing
    /// `codeword`'s variant in each period; it re-encodes the segments its own marks show in,
    /// where the variant layer is hidden (`VariantSchedule.hiding`).
    public func row(compositor: Compositor, codeword: [Int]) throws -> PresentationRow {
        precondition(codeword.count == periodCount, "one variant per period")
        let own = ownSegments(markedBy: compositor)
        compositor.variantSchedule = VariantSchedule(periodStarts: periodStarts, variants: codeword).hiding(own)
        return try PresentationRow(source: source, compositor: compositor, rendering: .encoded, ownSegments: own, warn: warn)
    }

    /// A student's row from `config` bound to their `variables` (as `Compositor.forJob` binds a
    /// batch row's), drawing `codeword`'s variants.
    public func row(config: WatermarkConfig, variables: [String: String], images: ImageCache, codeword: [Int]) throws -> PresentationRow {
        try row(compositor: try Compositor.forJob(config: config, variables: variables, images: images, warn: warn), codeword: codeword)
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

    /// The files every student's playlist picks from at segment `k`, as `maker` (over `variants`)
    /// makes them: the q variants, padded to one size, and with segment 0 the initialization
    /// segment every playlist names (every row's segments come from encoders set up alike), made
    /// from variant 0's packets of it.
    func sharedFiles(ofSegment k: Int, maker: SegmentMaker, seeking: Bool) throws -> SharedFiles {
        let made = try maker.render(segment: k, seeking: seeking, keepingPackets: k == 0)
        let renders = try made.map { try $0.get() }
        let padded = Self.padded(renders.map(\.segment.bytes))
        let variants = renders.indices.map { v in
            let render = renders[v].segment
            return RenderedSegment(index: k, bytes: padded[v], duration: render.duration, isShared: true, decodedPictures: render.decodedPictures,
                                   encodedPictures: render.encodedPictures, videoSamples: render.videoSamples)
        }
        let initialization = k == 0
            ? RenderedInitialization(bytes: try self.variants[0].initializationSegment(firstSegmentPackets: renders[0].packets).bytes, isShared: true) : nil
        return SharedFiles(variants: variants, initialization: initialization)
    }

    /// A segment's shared files: its q variants (in variant order) and, for segment 0, the
    /// lecture's initialization segment.
    public struct SharedFiles: Sendable {
        /// The segment's q variants, in variant order.
        public let variants: [RenderedSegment]
        /// The lecture's initialization segment, with segment 0; nil otherwise.
        public let initialization: RenderedInitialization?
    }

    /// Segment `k`'s shared files alone (the reader seeks to its GOPs; one decode, q encodes):
    /// what a server makes on the first request for any of them, byte for byte the files
    /// `batch` writes for that segment.
    public func sharedFiles(ofSegment k: Int) throws -> SharedFiles {
        precondition(plan.cuts.indices.contains(k), "segment \(k) of a lecture of \(plan.segmentCount)")
        return try sharedFiles(ofSegment: k, maker: try SegmentMaker(source: source, plan: plan, rows: variants), seeking: true)
    }

    /// Writes the presentations of `rows` (each with its codeword's variants), `group` rows at
    /// a time: first the q variants of every segment, each segment's GOPs decoded once and each
    /// variant encoded once, stored shared and listed for every row; then each group's own
    /// segments, encoded for its rows (a group decodes only the segments one of its rows needs).
    /// A row whose own work fails is abandoned alone; a failure of the input or of a shared render
    /// abandons every row and is thrown.
    ///
    /// Given `partner` (another lecture over the same source, with a compositor of its own: fonts
    /// are not thread-safe), the shared renders of the lecture's second half are made on a second
    /// thread alongside the first half's (`sharedRenders`).
    func write(_ rows: [Student], group: Int, partner: VariantLecture? = nil,
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
            var made = 0
            damaged += try sharedRenders(partner: partner, while: { !active.isEmpty }) { k, files in
                let (shared, initialization) = (files.variants, files.initialization)
                precondition(shared.count == q, "one render per variant")
                frames += shared[0].videoSamples
                try forEachActive(Array(rows.indices)) { n in
                    let student = rows[n]
                    if let initialization { initializationURI[n] = try student.storage.store(initialization: initialization) }
                    if !student.ownSegments[k] { uris[n][k] = try student.storage.store(segment: shared[student.codeword[k]]) }
                }
                made += 1
                // How far the renders are, as the time of the segment that many segments in.
                progress(plan.time(plan.end(of: made - 1)), frames)
            }
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

extension VariantLecture {
    /// Makes every segment's shared files (`sharedFiles(ofSegment:maker:seeking:)`) and hands
    /// each to `store`, on the caller's thread, while `going()`; returns the damaged packets the
    /// renders' decoders concealed.
    ///
    /// Without `partner`, in segment order. With one, the segments are cut in two halves, each
    /// read and decoded in one run by a maker of its own: the first half's by this lecture on the
    /// caller's thread, the second's by `partner` on a second thread, a segment of each at a time
    /// (so no more than two segments' renders wait in memory). The second maker's decoder runs
    /// through the first half, without drawing or encoding it, before its own: about 1 % more CPU
    /// at q = 8 (decoding 30 s of a 720p lecture took 1.15 s here, rendering its variants about
    /// forty times that), for two cores' work where one did it all (a segment's q encodes run on
    /// one thread, and x264's threads find little to share in a 2-s segment; the wall time saved
    /// is not yet measured on a quiet machine). The files are byte for byte the same either
    /// way: each segment is made alone from its own keyframe with encoders of its own (`SegmentMaker`).
    func sharedRenders(partner: VariantLecture?, while going: () -> Bool, store: (Int, SharedFiles) throws -> Void) throws -> Int {
        let first = try SegmentMaker(source: source, plan: plan, rows: variants)
        guard let partner, plan.segmentCount > 1 else {
            for k in 0..<plan.segmentCount where going() {
                try store(k, try sharedFiles(ofSegment: k, maker: first, seeking: false))
            }
            return first.damagedPackets
        }
        let second = try SegmentMaker(source: partner.source, plan: partner.plan, rows: partner.variants)
        let half = (plan.segmentCount + 1) / 2
        for k in 0..<half where going() {
            let other = k + half < plan.segmentCount
                ? SecondThreadWork { try partner.sharedFiles(ofSegment: k + half, maker: second, seeking: false) } : nil
            let mine = Result { try sharedFiles(ofSegment: k, maker: first, seeking: false) }
            // The second thread is joined before either outcome is acted on.
            let theirs = other.map { work in Result { try work.result() } }
            try store(k, try mine.get())
            if let theirs { try store(k + half, try theirs.get()) }
        }
        return first.damagedPackets + second.damagedPackets
    }
}

/// Where a lecture's shared variant renders get the variant layer from (a ladder's,
/// `LectureLadder`): a compositor holding it, made anew for each thread's rows (a compositor's
/// fonts are not thread-safe).
public struct VariantLayerSource: @unchecked Sendable {
    let make: () throws -> Compositor

    /// As a batch binds it: `config` with a row's `variables` (the layer's text uses no CSV
    /// column: `BatchPlan` checks), as `BatchRunner.runVariantLecture` binds it.
    static func binding(_ config: WatermarkConfig, variables: [String: String], images: ImageCache) -> Self {
        Self { try Compositor.forJob(config: config, variables: variables, images: images, warn: { _ in }) }
    }

    /// A server's, for nobody in particular: the layer alone with the lecture's `jobValues`
    /// (`VariantLecture.layerAlone`); a student's variable in its text is refused here (64, naming it).
    public static func alone(_ config: WatermarkConfig, jobValues: [String: String], images: ImageCache,
                             warn: @escaping WarningHandler) throws -> Self {
        _ = try VariantLecture.layerAlone(config: config, jobValues: jobValues, images: images, warn: warn)
        return Self { try VariantLecture.layerAlone(config: config, jobValues: jobValues, images: images, warn: warn) }
    }
}
