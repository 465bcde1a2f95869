import Animation
import Foundation
import LeakTrace
import Overlay

/// What `videowm trace` is asked: which copy leaked, and how the copies were made.
public struct LeakTraceRequest: Sendable {
    /// The leaked video.
    public var leak: String
    /// The unmarked video the copies were made from.
    public var original: String
    /// The config the copies were marked with.
    public var configPath: String
    /// The rows the copies were made for, as given to the batch.
    public var csvPath: String
    /// `--var` values every row shares; they may not repeat a column.
    public var variables: [String: String]
    /// The key the copies' paths were derived from (`--key-file`); nil: paths seeded by their text.
    public var pathKey: KeyedDerivation?

    /// A trace of `leak`; see the properties for each parameter.
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
    /// Its line in the CSV file.
    public var line: Int
    /// Its values, by column.
    public var values: [String: String]
    /// How well its marks explain the leak: the score and the false-match probability.
    public var score: RowScore
    /// For an identified row, the spans of the leak (its own seconds) in which its marks stand
    /// out: all of it for a copy leaked whole or averaged with others, some of it for a leak
    /// that switches between copies. Empty for rows not identified.
    public var explains: [ClosedRange<Double>] = []
    /// For an identified row, what named it.
    public var namedBy: [LeakTraceReport.Evidence] = []
    /// For an identified row, the chance that it was named by mistake: the smallest of its
    /// false-match probability and, when its variants named it, their false-accusation probability.
    public var namingProbability: Double?
}

/// The outcome of a trace: the rows ranked, who is identified, and how the leak was aligned.
public struct LeakTraceReport: Sendable {
    /// A row is identified when its false-match probability is at most this.
    public static let identificationThreshold = TraceVerdict.identificationThreshold

    /// What can name a row.
    public enum Evidence: String, Sendable, CaseIterable {
        /// Where the marks were, over a video leak's slots.
        case marks
        /// The variants of a variant layer the leak shows (its codeword).
        case variants
        /// The text OCR read in a still.
        case text
        /// Where the mark is in a still, against the row's keyed path at the still's instant.
        case position
    }

    /// Where and when the leak sits in the original.
    public struct Alignment: Sendable {
        /// Original time = leak time + offset.
        public var offsetSeconds: Double
        /// The original's span the leak shows.
        public var originalSpan: ClosedRange<Double>
        /// How much of each side of the original the leak cut off, as fractions.
        public var crops: CropFractions
        /// How alike leak and warped original are, 0…1.
        public var correlation: Double
        /// Slots (mark positions) compared.
        public var slots: Int
        /// The leak's picture size (display pixels, upright).
        public var leakWidth: Int
        /// The leak's picture height (display pixels, upright).
        public var leakHeight: Int
        /// Where the original's picture was found in the leak's, in leak display pixels: all of it
        /// for a re-encoded copy, a part of it for a screen recording.
        public var pictureInLeak: PlaneRect
        /// The parts of the original the leak shows one after another, each with its offset: one
        /// for a copy leaked whole, more where spans were cut out or parts joined in another order.
        public var pieces: [LeakTimeline.Piece]
    }

    /// Marks in the leak that no row's (keyed) path explains.
    public struct Forgery: Sendable, CustomStringConvertible {
        /// Rows whose path without the key the marks follow: drawn by someone who knew the
        /// row's text, not by the platform (only looked for when tracing with a key).
        public var unkeyedMatches: [TracedRow]
        /// Slots in which marks were found where no identified row's mark was, of `slots`.
        public var slotsWithMarks: Int
        /// Slots compared.
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

    /// The CSV's columns.
    public var columns: [String]
    /// How many rows were scored.
    public var rowCount: Int
    /// Every row, strongest first; empty when the leak could not be aligned.
    public var ranking: [TracedRow]
    /// How the leak was aligned; nil when it matches no part of the original.
    public var alignment: Alignment?
    /// Why no row could be scored (the leak matches no part of the original), if so.
    public var problem: String?
    /// Whether the rows' paths were derived from a key.
    public var keyed: Bool
    /// Marks no row's path explains, when there are such.
    public var forgery: Forgery?
    /// What the variant layer says, when the config has one (rows named by their codewords).
    public var variants: VariantTraceVerdict? = nil
    /// What a still picture showed, when the leak is one.
    public var still: StillTraceReport? = nil
    /// Every row named, whatever named it (`namedBy`), strongest first: by the marks' paths, by
    /// the variant code, by a still's text and position. One list, so that a program reading
    /// the report needs to look nowhere else.
    public var identified: [TracedRow] = []

    /// Whether anybody is named.
    public var namesAnybody: Bool { !identified.isEmpty }

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
    /// A lone slot between two explained ones is counted in when its p-value is at most this.
    static let bridgedSlotPValue = 0.5

    /// Traces `request`'s leak: aligns it with the original, scores every row and names those identified.
    public static func trace(_ request: LeakTraceRequest, warn: @escaping WarningHandler) throws -> LeakTraceReport {
        if UprightStill.looksLikeStill(path: request.leak) { return try StillTraceSession(request, warn: warn).report() }
        return try TraceSession(request, warn: warn).report()
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
