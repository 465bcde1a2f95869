import Animation
import Foundation
import LeakTrace
import Overlay

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
    /// The leak's picture size, upright.
    let leakSize: (width: Int, height: Int)
    /// The variant layer's patterns, periods and codewords (nil without one).
    let variantTracing: VariantTracing?

    init(_ request: LeakTraceRequest, warn: @escaping WarningHandler) throws {
        self.request = request
        config = try WatermarkConfig.load(path: request.configPath, warn: warn).keyed(with: request.pathKey)
        table = try CSVTable.load(path: request.csvPath)
        rows = try TraceRows(config: config, table: table, fixedVariables: request.variables)
        var marks = try rows.traceableMarks(config: config)
        let original = try GreyVideo(path: request.original)
        let leak = try GreyVideo(path: request.leak)
        leakSize = leak.displaySize
        try marks.place(on: original.description)
        self.marks = marks

        let display = original.displaySize
        variantTracing = try VariantTracing(config: config, rows: rows.variables, original: request.original, display: display)
        var analyzer = LeakAnalyzer(originalDisplayWidth: display.width, originalDisplayHeight: display.height,
                                    schedules: marks.schedules, visibility: marks.visibility)
        if let variantTracing { analyzer.variants = (variantTracing.patterns, variantTracing.periods) }
        let leakSize = leak.greySize(maximumWidth: LeakTracing.leakSampleWidth)
        var leakFrames = try leak.everyFrame(width: leakSize.width, height: leakSize.height)
        var keyframes = ArrayFrameSource(try LeakTracing.lookOver(original, width: analyzer.thumbnailWidth))
        let spanSize = original.greySize(maximumWidth: LeakTracing.originalWidth)
        do {
            analysis = try analyzer.analyse(leak: &leakFrames, keyframes: &keyframes,
                                            reopenLeak: { try leak.everyFrame(width: leakSize.width, height: leakSize.height) }) { seconds in
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
            let row = ranking[index].score.row
            ranking[index].explains = explainedSpans(scorer.slotPValues(of: rowMarks[row], index: row), analysis: analysis)
        }
        let inLeak = analysis.pictureInLeak
        let (width, height) = (Double(leakSize.width), Double(leakSize.height))
        let alignment = LeakTraceReport.Alignment(offsetSeconds: analysis.offset, originalSpan: analysis.originalSpan,
                                                  crops: analysis.crops, correlation: analysis.correlation,
                                                  slots: analysis.maps.slots.count, leakWidth: leakSize.width, leakHeight: leakSize.height,
                                                  pictureInLeak: PlaneRect(minX: inLeak.minX * width, minY: inLeak.minY * height,
                                                                           maxX: inLeak.maxX * width, maxY: inLeak.maxY * height),
                                                  pieces: analysis.timeline.pieces)
        var report = LeakTraceReport(columns: table.columns, rowCount: table.rows.count, ranking: ranking, alignment: alignment, problem: nil,
                                     keyed: request.pathKey != nil,
                                     forgery: try forgery(scorer: scorer, rowMarks: rowMarks, identified: ranking.prefix(identified).map(\.score.row)))
        report.variants = try variantTracing?.verdict(analysis.variantReadings, numbers: table.rows.map(\.number))
        report.identified = namedRows(ranking: ranking, count: identified, variants: report.variants)
        return report
    }

    /// The rows the marks' paths identify, then those only the variant code names (each row
    /// once, with everything that named it).
    private func namedRows(ranking: [TracedRow], count: Int, variants: VariantTraceVerdict?) -> [TracedRow] {
        var rows = ranking.prefix(count).map { row -> TracedRow in
            var named = row
            named.namedBy = [.marks]
            named.namingProbability = row.score.falseMatchProbability
            return named
        }
        for variant in variants?.named ?? [] {
            if let index = rows.firstIndex(where: { $0.number == variant.number }) {
                rows[index].namedBy.append(.variants)
                rows[index].namingProbability = min(rows[index].namingProbability ?? 1, variant.falseAccusationProbability)
            } else if var row = ranking.first(where: { $0.number == variant.number }) {
                row.namedBy = [.variants]
                row.namingProbability = variant.falseAccusationProbability
                rows.append(row)
            }
        }
        return rows
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
        // Where identified rows' marks were, in their slot and the slots either side (a heavily
        // compressed copy keeps a ghost of the mark where it was until the picture is refreshed),
        // grown by the mark's height (a blur over it reaches beyond).
        var excluded: [SlotKey: [PlaneRect]] = [:]
        for row in identified {
            for evidence in rowMarks[row].evidence {
                let grown = evidence.rect.insetBy(dx: -evidence.rect.height, dy: -evidence.rect.height)
                for neighbour in -1...1 {
                    excluded[SlotKey(schedule: evidence.slot.schedule, slot: evidence.slot.slot + Int64(neighbour)), default: []].append(grown)
                }
            }
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
    /// runs of consecutive explained slots (p at most `explainedSlotPValue`; a single slot between
    /// two such whose p is at most `bridgedSlotPValue` joins them: where copies were averaged, a
    /// mark is sometimes drowned by another's), each from its first slot's start to its last's
    /// end, within the part of the leak compared.
    func explainedSpans(_ pValues: [SlotKey: Double], analysis: LeakAnalysis) -> [ClosedRange<Double>] {
        var spans: [ClosedRange<Double>] = []
        for schedule in Set(pValues.keys.map(\.schedule)).sorted() {
            let duration = marks.schedules[schedule].durationSeconds
            let strong = Set(pValues.filter { $0.key.schedule == schedule && $0.value <= LeakTracing.explainedSlotPValue }.keys.map(\.slot))
            let bridged = strong.compactMap { slot -> Int64? in
                let gap = slot + 1
                guard !strong.contains(gap), strong.contains(gap + 1),
                      (pValues[SlotKey(schedule: schedule, slot: gap)] ?? 1) <= LeakTracing.bridgedSlotPValue else { return nil }
                return gap
            }
            let explained = strong.union(bridged).sorted()
            var runStart: Int64?
            var previous: Int64?
            func close() {
                guard let start = runStart, let end = previous else { return }
                let from = max(Double(start) * duration, analysis.originalSpan.lowerBound)
                let to = min(Double(end + 1) * duration, analysis.originalSpan.upperBound)
                if to > from { spans += analysis.timeline.leakSpans(showing: from...to) }
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
