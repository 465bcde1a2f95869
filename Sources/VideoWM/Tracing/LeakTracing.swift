import Animation
import Foundation
import LeakTrace
import Overlay

/// What `videowm trace` is asked: which copy leaked, and how the copies were made.
public struct LeakTraceRequest: Sendable {
    public var leak: String
    public var original: String
    public var configPath: String
    public var csvPath: String
    /// `--var` values every row shares; they may not repeat a column.
    public var variables: [String: String]
    /// The key the copies' paths were derived from (`--key-file`); nil: paths seeded by their text.
    public var pathKey: KeyedDerivation?

    public init(leak: String, original: String, configPath: String, csvPath: String, variables: [String: String] = [:],
                pathKey: KeyedDerivation? = nil) {
        self.leak = leak
        self.original = original
        self.configPath = configPath
        self.csvPath = csvPath
        self.variables = variables
        self.pathKey = pathKey
    }
}

/// How one CSV row explains the leak.
public struct TracedRow: Sendable {
    /// 1 for the first row after the header, as batch reports number rows.
    public var number: Int
    public var line: Int
    public var values: [String: String]
    public var score: RowScore
    /// For an identified row, the spans of the leak (its own seconds) in which its marks stand
    /// out: all of it for a copy leaked whole or averaged with others, some of it for a leak
    /// that switches between copies. Empty for rows not identified.
    public var explains: [ClosedRange<Double>] = []
}

/// The outcome of a trace: the rows ranked, who is identified, and how the leak was aligned.
public struct LeakTraceReport: Sendable {
    /// A row is identified when its false-match probability is at most this.
    public static let identificationThreshold = TraceVerdict.identificationThreshold

    public struct Alignment: Sendable {
        /// Original time = leak time + offset.
        public var offsetSeconds: Double
        /// The original's span the leak shows.
        public var originalSpan: ClosedRange<Double>
        public var crops: CropFractions
        /// How alike leak and warped original are, 0…1.
        public var correlation: Double
        /// Slots (mark positions) compared.
        public var slots: Int
    }

    /// Marks in the leak that no row's (keyed) path explains.
    public struct Forgery: Sendable, CustomStringConvertible {
        /// Rows whose path without the key the marks follow: drawn by someone who knew the
        /// row's text, not by the platform (only looked for when tracing with a key).
        public var unkeyedMatches: [TracedRow]
        /// Slots in which marks were found where no identified row's mark was, of `slots`.
        public var slotsWithMarks: Int
        public var slots: Int
        /// Whether the trace had a key (the wording differs).
        public var keyed: Bool

        /// "forged or foreign marks: …", the line text and JSON give.
        public var description: String {
            if let row = unkeyedMatches.first {
                let others = unkeyedMatches.dropFirst().map { "\($0.number)" }
                return "forged or foreign marks: the marks follow the path row \(row.number)\(others.isEmpty ? "" : " (and \(others.joined(separator: ", ")))") "
                    + "would have without the key, which anyone who knows its text can compute, not the keyed path its copy has: "
                    + "drawn by someone other than the platform"
            }
            if keyed {
                return "forged or foreign marks: marks in \(slotsWithMarks) of \(slots) slots follow no row's keyed path "
                    + "(drawn without the key, or made with another key)"
            }
            return "forged or foreign marks: marks in \(slotsWithMarks) of \(slots) slots follow no row's path "
                + "(if the copies were made with a key, trace with --key-file)"
        }
    }

    public var columns: [String]
    public var rowCount: Int
    /// Every row, strongest first; empty when the leak could not be aligned.
    public var ranking: [TracedRow]
    public var alignment: Alignment?
    /// Why no row could be scored (the leak matches no part of the original), if so.
    public var problem: String?
    /// Whether the rows' paths were derived from a key.
    public var keyed: Bool
    /// Marks no row's path explains, when there are such.
    public var forgery: Forgery?

    /// The rows identified, strongest first, each with the spans of the leak it explains.
    public var identified: [TracedRow] {
        ranking.prefix { $0.score.falseMatchProbability <= Self.identificationThreshold }.map { $0 }
    }

    /// Said in every result of a trace without a key.
    public static let unkeyedWarning = "unkeyed paths: anyone who knows a student's text can compute their path and forge a leak "
        + "that names them; mark with a key ('videowm keygen', --key-file) so that only the platform can"
}

/// `videowm trace`: finds which CSV rows' copies a leak was made from, by where the marks were.
///
/// The config and rows are bound as `batch` binds them (with the key, when given); each row's
/// traced marks (see `TracedLayers`) are placed by the same compositor code that marked its
/// copy, on the original's geometry. The leak is read once and the original's keyframes and
/// matching span once (`LeakAnalyzer`); then every row is scored on its own (`RowScorer`), and
/// every row whose false-match probability meets the threshold is identified (colluders).
/// With a key, marks that follow no row's keyed path are looked into: the paths without the
/// key, and any mark-like spots at all (`MarkPresence`), so a forged leak names nobody and says so.
public enum LeakTracing {
    /// The leak's frames are read at most this wide: large enough to find a lecture that fills
    /// a third of a screen recording's width and still resample it to the maps' 320 pixels.
    static let leakSampleWidth = 960
    /// The original's frames are read at about twice that, so warping them into the leak shrinks them.
    static let originalWidth = 640
    /// Keyframes farther apart than this (on average) cannot time a short leak; the original
    /// is then decoded whole once, a picture every `sparseStep` seconds.
    static let sparseKeyframeGap = 15.0
    static let sparseStep = 2.0
    /// A slot an identified row explains: its p-value there is at most this.
    static let explainedSlotPValue = 0.05

    public static func trace(_ request: LeakTraceRequest, warn: @escaping WarningHandler) throws -> LeakTraceReport {
        try TraceSession(request, warn: warn).report()
    }

    /// The original's keyframes as thumbnails; when they are too far apart to time a leak, a
    /// thumbnail every `sparseStep` seconds of a whole decode instead.
    static func lookOver(_ video: GreyVideo, width: Int) throws -> [TimedLuma] {
        let size = video.greySize(maximumWidth: width)
        var frames: [TimedLuma] = []
        var keyframes = try video.keyframes(width: size.width, height: size.height)
        while let frame = try keyframes.next() { frames.append(frame) }
        let span = (frames.last?.time ?? 0) - (frames.first?.time ?? 0)
        let duration = max(span, video.durationSeconds ?? 0)
        guard frames.count < 2 || duration / Double(frames.count) > sparseKeyframeGap else { return frames }
        frames = []
        let every = try video.everyFrame(width: size.width, height: size.height)
        var next = -Double.infinity
        while let time = try every.advance() {
            guard time >= next else { continue }
            frames.append(TimedLuma(time: time, image: try every.picture()))
            next = time + sparseStep
        }
        return frames
    }
}

/// One trace: the rows bound and placed, the leak analysed against the original once; then
/// the rows can be scored under the request's key or any other (`score(pathKey:)`), which is
/// how a forgery along the unkeyed paths is recognised and how the false-accusation rate is
/// measured over many keys.
final class TraceSession {
    let request: LeakTraceRequest
    let config: WatermarkConfig
    let table: CSVTable
    let rows: TraceRows
    /// The rows' traced marks under the request's key, placed on the original.
    let marks: TraceRows.Marks
    /// Nil when the leak could not be aligned (`problem` says why).
    let analysis: LeakAnalysis?
    let problem: String?

    init(_ request: LeakTraceRequest, warn: @escaping WarningHandler) throws {
        self.request = request
        config = try WatermarkConfig.load(path: request.configPath, warn: warn).keyed(with: request.pathKey)
        table = try CSVTable.load(path: request.csvPath)
        rows = try TraceRows(config: config, table: table, fixedVariables: request.variables)
        var marks = try rows.traceableMarks(config: config)
        let original = try GreyVideo(path: request.original)
        let leak = try GreyVideo(path: request.leak)
        try marks.place(on: original.description)
        self.marks = marks

        let display = original.displaySize
        let analyzer = LeakAnalyzer(originalDisplayWidth: display.width, originalDisplayHeight: display.height,
                                    schedules: marks.schedules, visibility: marks.visibility)
        let leakSize = leak.greySize(maximumWidth: LeakTracing.leakSampleWidth)
        var leakFrames = try leak.everyFrame(width: leakSize.width, height: leakSize.height)
        var keyframes = ArrayFrameSource(try LeakTracing.lookOver(original, width: analyzer.thumbnailWidth))
        let spanSize = original.greySize(maximumWidth: LeakTracing.originalWidth)
        do {
            analysis = try analyzer.analyse(leak: &leakFrames, keyframes: &keyframes) { seconds in
                try original.frames(from: seconds, width: spanSize.width, height: spanSize.height)
            }
            problem = nil
        } catch let error as LeakAnalysisError {
            switch error {
            case .noOriginalKeyframes: throw MediaError(file: request.original, detail: "no frame could be decoded")
            case .leakTooShort, .notAligned:
                analysis = nil
                problem = "\(request.leak): \(error) (\(request.original))"
            }
        }
    }

    var scorer: RowScorer? {
        analysis.map { RowScorer(maps: $0.maps, displayToMap: $0.displayToMap, content: $0.content) }
    }

    /// Each row's traced marks in the slots the leak covers, under `pathKey` (nil: without a key).
    func rowMarks(pathKey: KeyedDerivation?) throws -> [RowMarks] {
        guard let analysis else { return [] }
        let bound = pathKey == request.pathKey ? marks : try rows.rebinding(marks, config: config.keyed(with: pathKey))
        return zip(bound.layers, bound.footprints).map {
            TracedLayers.marks(of: $0, footprints: $1, traced: bound.traced, schedules: bound.schedules, slots: analysis.maps.slots)
        }
    }

    /// Every row scored under `pathKey`, strongest first.
    func score(pathKey: KeyedDerivation?) throws -> [RowScore] {
        guard let scorer else { return [] }
        return scorer.score(try rowMarks(pathKey: pathKey))
    }

    func report() throws -> LeakTraceReport {
        guard let analysis, let scorer else {
            return LeakTraceReport(columns: table.columns, rowCount: table.rows.count, ranking: [], alignment: nil, problem: problem,
                                   keyed: request.pathKey != nil, forgery: nil)
        }
        let rowMarks = try rowMarks(pathKey: request.pathKey)
        var ranking = scorer.score(rowMarks).map(tracedRow)
        let identified = ranking.prefix { $0.score.falseMatchProbability <= LeakTraceReport.identificationThreshold }.count
        for index in 0..<identified {
            ranking[index].explains = explainedSpans(scorer.slotPValues(of: rowMarks[ranking[index].score.row]), analysis: analysis)
        }
        let alignment = LeakTraceReport.Alignment(offsetSeconds: analysis.offset, originalSpan: analysis.originalSpan,
                                                  crops: analysis.crops, correlation: analysis.correlation,
                                                  slots: analysis.maps.slots.count)
        return LeakTraceReport(columns: table.columns, rowCount: table.rows.count, ranking: ranking, alignment: alignment, problem: nil,
                               keyed: request.pathKey != nil,
                               forgery: try forgery(scorer: scorer, rowMarks: rowMarks, identified: ranking.prefix(identified).map(\.score.row)))
    }

    private func tracedRow(_ score: RowScore) -> TracedRow {
        let record = table.rows[score.row]
        return TracedRow(number: record.number, line: record.line, values: record.values, score: score)
    }

    /// Marks that the identified rows do not explain: with a key, first the rows' paths without
    /// it (a forger's drawing along a computable path is named as such); then mark-like spots
    /// anywhere outside the identified rows' marks.
    private func forgery(scorer: RowScorer, rowMarks: [RowMarks], identified: [Int]) throws -> LeakTraceReport.Forgery? {
        var unkeyedMatches: [TracedRow] = []
        if request.pathKey != nil {
            unkeyedMatches = scorer.score(try self.rowMarks(pathKey: nil))
                .prefix { $0.falseMatchProbability <= LeakTraceReport.identificationThreshold }
                .filter { !identified.contains($0.row) }
                .map(tracedRow)
        }
        var excluded: [SlotKey: [PlaneRect]] = [:]
        for row in identified {
            for evidence in rowMarks[row].evidence { excluded[evidence.slot, default: []].append(evidence.rect) }
        }
        guard let footprint = Self.typicalFootprint(rowMarks) else { return nil }
        let presence = MarkPresence.scan(scorer, footprint: footprint, excluding: excluded)
        guard !unkeyedMatches.isEmpty || presence.marksFound else { return nil }
        return LeakTraceReport.Forgery(unkeyedMatches: unkeyedMatches, slotsWithMarks: presence.slotsWithMarks, slots: presence.slots.count,
                                       keyed: request.pathKey != nil)
    }

    /// The footprint of median width among the rows' first traced layers: what a mark in this
    /// leak looks like in size, whoever drew it.
    static func typicalFootprint(_ rows: [RowMarks]) -> MarkFootprint? {
        let footprints = rows.compactMap(\.footprints.first).sorted { $0.width < $1.width }
        return footprints.isEmpty ? nil : footprints[footprints.count / 2]
    }

    /// The spans of the leak (its own seconds) whose slots a row's p-values show its marks in:
    /// runs of consecutive explained slots, each from its first slot's start to its last's end,
    /// within the part of the leak compared.
    func explainedSpans(_ pValues: [SlotKey: Double], analysis: LeakAnalysis) -> [ClosedRange<Double>] {
        var spans: [ClosedRange<Double>] = []
        let offset = analysis.offset
        for schedule in Set(pValues.keys.map(\.schedule)).sorted() {
            let duration = marks.schedules[schedule].durationSeconds
            let explained = pValues.filter { $0.key.schedule == schedule && $0.value <= LeakTracing.explainedSlotPValue }.keys.map(\.slot).sorted()
            var runStart: Int64?
            var previous: Int64?
            func close() {
                guard let start = runStart, let end = previous else { return }
                let from = max(Double(start) * duration, analysis.originalSpan.lowerBound) - offset
                let to = min(Double(end + 1) * duration, analysis.originalSpan.upperBound) - offset
                if to > from { spans.append(from...to) }
            }
            for slot in explained {
                if let previous, slot == previous + 1 {
                    // the run goes on
                } else {
                    close()
                    runStart = slot
                }
                previous = slot
            }
            close()
        }
        return Self.merged(spans)
    }

    /// Overlapping or touching spans joined, in order.
    static func merged(_ spans: [ClosedRange<Double>]) -> [ClosedRange<Double>] {
        var result: [ClosedRange<Double>] = []
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, span.lowerBound <= last.upperBound + 1e-6 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                result.append(span)
            }
        }
        return result
    }
}
