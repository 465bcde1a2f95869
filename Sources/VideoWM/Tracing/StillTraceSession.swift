import Foundation
import LeakTrace
import Overlay

/// `videowm trace` of one still picture (a screenshot, a photograph of a screen, a crop): the
/// frame of the original it shows and where (`StillFrameSearch`), the marks found by comparing
/// the two (`StillDifference`), their text read by Tesseract (`StillMarkReader`), and each row
/// judged on both readings (`StillEvidence`).
final class StillTraceSession {
    /// The original's frame at the still's instant is compared at most this wide (its marks'
    /// letters a dozen pixels tall or more: OCR reads them from the still itself, enlarged).
    static let comparisonWidth = 640

    let request: LeakTraceRequest
    let config: WatermarkConfig
    let table: CSVTable
    let traceRows: TraceRows
    let rows: StillRows
    let original: GreyVideo

    init(_ request: LeakTraceRequest, warn: @escaping WarningHandler) throws {
        self.request = request
        config = try WatermarkConfig.load(path: request.configPath, warn: warn).keyed(with: request.pathKey)
        table = try CSVTable.load(path: request.csvPath)
        traceRows = try TraceRows(config: config, table: table, fixedVariables: request.variables)
        // Refuses, as for a video, a config that gives every row the same path.
        let marks = try traceRows.traceableMarks(config: config)
        original = try GreyVideo(path: request.original)
        rows = try StillRows(config: config, rows: traceRows, traced: marks.traced, original: original.description)
        StillTraceDiagnostics.note("init: still rows")
    }

    func report() throws -> LeakTraceReport {
        var report = LeakTraceReport(columns: table.columns, rowCount: table.rows.count, ranking: [], alignment: nil, problem: nil,
                                     keyed: request.pathKey != nil, forgery: nil)
        let still = PicturePyramid(try UprightStill.grey(path: request.leak))
        StillTraceDiagnostics.note("still read \(still.width)x\(still.height)")
        let (overview, _) = try StillOverviewReader.read(original)
        StillTraceDiagnostics.note("overview: \(overview.thumbnails.count) thumbnails, \(overview.featureFrames.count) feature frames")
        var match: StillMatch
        do {
            let original = self.original
            match = try StillFrameSearch().match(still, overview: overview) { seconds, size in
                try original.frames(from: seconds, width: size.width, height: size.height)
            }
        } catch let error as StillMatchError {
            switch error {
            case .noOriginalFrames: throw MediaError(file: request.original, detail: "no frame could be decoded")
            case .notFound:
                report.problem = "\(request.leak): \(error) (\(request.original))"
                return report
            }
        }
        StillTraceDiagnostics.note("match: time \(match.time), \(match.times.count) times \(match.times.first ?? 0)-\(match.times.last ?? 0), inliers \(match.inliers), coverage \(match.coverage), map \(match.map)")
        // The original at that instant, and how the still differs from it.
        let display = original.displaySize
        let size = original.greySize(maximumWidth: Self.comparisonWidth)
        let frame = try frame(at: match.time, size: size)
        let scale = Double(size.width) / Double(display.width)
        match.map = PlacementRefinement.refine(match.map, still: still, frame: frame, display: display, radius: 2)
        let view = still.warped(by: match.map, region: PlaneRect(minX: 0, minY: 0, maxX: Double(display.width), maxY: Double(display.height)),
                                width: size.width, height: size.height)
        let difference = StillDifference(still: view, original: frame, scale: scale, marks: rows.marks, lineHeight: rows.lineHeight)
        // Where each row's keyed mark is against the marks found, text unread; then the text of
        // the marks found, and of the places the strongest rows' keys point at.
        let rowMarks = rows.marks(at: match.times)
        StillTraceDiagnostics.note("difference and row marks")
        for (name, values, gain) in [("opacity", difference.opacity, Float(255)), ("strokes", difference.strokes, Float(1000)),
                                     ("view", view.image.pixels, Float(1)), ("frame", frame.pixels, Float(1))] {
            StillTraceDiagnostics.save("map-\(name)", values: values, width: size.width, height: size.height, gain: gain)
        }
        let positions = StillEvidence.positions(of: rowMarks, difference: difference)
        StillTraceDiagnostics.note("positions")
        // Where to read: the places a mark of the typical size holds the most strokes, found
        // without regard to any row (so where a text is read says nothing of whose it is).
        let boxes = rows.typicalFootprint.map { StillEvidence.strongestPlaces(for: $0, difference: difference, count: 4) } ?? []
        StillTraceDiagnostics.note("difference: blur \(difference.blurRadius), fit \(difference.fit), boxes \(boxes)")
        let readings = try StillMarkReader(characters: rows.characters)
            .read(boxes, still: still, map: match.map, difference: difference, lineHeight: rows.lineHeight, marks: rows.marks)
        StillTraceDiagnostics.note("readings: \(readings.map { "\($0.text) [\($0.source) \(Int($0.confidence))] \($0.box)" })")
        let verdict = StillEvidence.evaluate(rows: rowMarks, positions: positions, readings: readings, distinctiveness: rows.distinctiveness,
                                             difference: difference)
        StillTraceDiagnostics.note("verdict: named \(verdict.named.map(\.row)), forged \(verdict.forged.map(\.row))")
        for e in verdict.ranking.prefix(4) {
            StillTraceDiagnostics.note("  row \(e.row + 1): text p \(e.textPValue) \(String(describing: e.alignment)) located \(String(describing: e.located)) opacity \(String(describing: e.markOpacity)) pos p \(e.positionPValue) forgery \(String(describing: e.forgeryChance)) FM \(e.score.falseMatchProbability)")
        }
        report.ranking = verdict.ranking.map { tracedRow($0.row, score: $0.score) }
        report.identified = verdict.named.map { evidence in
            var row = tracedRow(evidence.row, score: evidence.score)
            row.namedBy = (evidence.textPValue < 1 ? [.text] : []) + (evidence.positionPValue <= 0.05 ? [.position] : [])
            row.namingProbability = evidence.score.falseMatchProbability
            return row
        }
        report.still = StillTraceReport(width: still.width, height: still.height, displayWidth: display.width, displayHeight: display.height,
                                        time: match.time, times: (match.times.min() ?? match.time)...(match.times.max() ?? match.time),
                                        placement: match.map, featurePairs: match.inliers, coverage: match.coverage, readings: readings,
                                        rows: verdict.ranking.map { rowEvidence($0, readings: readings) },
                                        forged: verdict.forged.map { table.rows[$0.row].number })
        return report
    }

    /// The original's frame shown at `time` (the first at or after it, to a millisecond), `size` large.
    private func frame(at time: Double, size: (width: Int, height: Int)) throws -> LumaImage {
        let frames = try original.frames(from: max(0, time - 0.5), width: size.width, height: size.height)
        var last: LumaImage?
        while let shown = try frames.advance() {
            last = try frames.picture()
            if shown >= time - 1e-3 { break }
        }
        guard let last else { throw MediaError(file: request.original, detail: "no frame could be decoded at \(time) s") }
        return last
    }

    private func tracedRow(_ index: Int, score: RowScore) -> TracedRow {
        let record = table.rows[index]
        return TracedRow(number: record.number, line: record.line, values: record.values, score: score)
    }

    private func rowEvidence(_ evidence: StillRowEvidence, readings: [MarkReading]) -> StillTraceReport.RowEvidence {
        StillTraceReport.RowEvidence(number: table.rows[evidence.row].number,
                                     reading: evidence.readings.isEmpty ? nil : evidence.readings.map { readings[$0].text }.joined(separator: " "),
                                     matchedCharacters: evidence.alignment?.matches ?? 0, edits: evidence.alignment?.edits ?? 0,
                                     textPValue: evidence.textPValue, located: evidence.located, markOpacity: evidence.markOpacity,
                                     positionPValue: evidence.positionPValue, forgeryChance: evidence.forgeryChance)
    }
}
