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

    public init(leak: String, original: String, configPath: String, csvPath: String, variables: [String: String] = [:]) {
        self.leak = leak
        self.original = original
        self.configPath = configPath
        self.csvPath = csvPath
        self.variables = variables
    }
}

/// How one CSV row explains the leak.
public struct TracedRow: Sendable {
    /// 1 for the first row after the header, as batch reports number rows.
    public var number: Int
    public var line: Int
    public var values: [String: String]
    public var score: RowScore
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

    public var columns: [String]
    public var rowCount: Int
    /// Every row, strongest first; empty when the leak could not be aligned.
    public var ranking: [TracedRow]
    public var alignment: Alignment?
    /// Why no row could be scored (the leak matches no part of the original), if so.
    public var problem: String?

    public var identified: [TracedRow] {
        ranking.filter { $0.score.falseMatchProbability <= Self.identificationThreshold }
    }
}

/// `videowm trace`: finds which CSV row's copy a leak was made from, by where the marks were.
///
/// The config and rows are bound as `batch` binds them; each row's traced marks (see
/// `TracedLayers`) are placed by the same compositor code that marked its copy, on the
/// original's geometry. The leak is read once and the original's keyframes and matching span
/// once (`LeakAnalyzer`); then every row is scored (`RowScorer`).
public enum LeakTracing {
    /// The width of the leak frames compared (the difference maps' size), at most.
    static let analysisWidth = 320
    /// The original's frames are read at about twice that, so warping them into the leak shrinks them.
    static let originalWidth = 640
    /// Keyframes farther apart than this (on average) cannot time a short leak; the original
    /// is then decoded whole once, a picture every `sparseStep` seconds.
    static let sparseKeyframeGap = 15.0
    static let sparseStep = 2.0

    public static func trace(_ request: LeakTraceRequest, warn: @escaping WarningHandler) throws -> LeakTraceReport {
        let config = try WatermarkConfig.load(path: request.configPath, warn: warn)
        let table = try CSVTable.load(path: request.csvPath)
        let rows = try TraceRows(config: config, table: table, fixedVariables: request.variables)
        var marks = try rows.traceableMarks(config: config)
        let original = try GreyVideo(path: request.original)
        let leak = try GreyVideo(path: request.leak)
        try marks.place(on: original.description)

        let display = original.displaySize
        let analyzer = LeakAnalyzer(originalDisplayWidth: display.width, originalDisplayHeight: display.height,
                                    schedules: marks.schedules, visibility: marks.visibility)
        let leakSize = leak.greySize(maximumWidth: analysisWidth)
        var leakFrames = try leak.everyFrame(width: leakSize.width, height: leakSize.height)
        var keyframes = ArrayFrameSource(try lookOver(original, width: analyzer.thumbnailWidth))
        let spanSize = original.greySize(maximumWidth: originalWidth)
        let analysis: LeakAnalysis
        do {
            analysis = try analyzer.analyse(leak: &leakFrames, keyframes: &keyframes) { seconds in
                try original.frames(from: seconds, width: spanSize.width, height: spanSize.height)
            }
        } catch let error as LeakAnalysisError {
            switch error {
            case .noOriginalKeyframes: throw MediaError(file: request.original, detail: "no frame could be decoded")
            case .leakTooShort, .notAligned:
                return LeakTraceReport(columns: table.columns, rowCount: table.rows.count, ranking: [], alignment: nil,
                                       problem: "\(request.leak): \(error) (\(request.original))")
            }
        }

        let rowMarks = zip(marks.layers, marks.footprints).map {
            TracedLayers.marks(of: $0, footprints: $1, traced: marks.traced, schedules: marks.schedules, slots: analysis.maps.slots)
        }
        let verdict = TraceVerdict(ranking: RowScorer(maps: analysis.maps, displayToMap: analysis.displayToMap,
                                                      content: analysis.content).score(rowMarks))
        let ranking = verdict.ranking.map { score in
            let record = table.rows[score.row]
            return TracedRow(number: record.number, line: record.line, values: record.values, score: score)
        }
        let alignment = LeakTraceReport.Alignment(offsetSeconds: analysis.offset, originalSpan: analysis.originalSpan,
                                                  crops: analysis.crops, correlation: analysis.correlation,
                                                  slots: analysis.maps.slots.count)
        return LeakTraceReport(columns: table.columns, rowCount: table.rows.count, ranking: ranking, alignment: alignment, problem: nil)
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
