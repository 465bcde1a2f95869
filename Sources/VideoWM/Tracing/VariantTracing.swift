import Animation
import Foundation
import LeakTrace
import Overlay

/// What a leak's variant layer says (docs/design/variant-marks.md §4–§5): which rows' codewords explain
/// the variants its periods show, each with a false-accusation probability bounded for this leak.
public struct VariantTraceVerdict: Sendable {
    /// One row, as the variant code scores it.
    public struct Row: Sendable {
        /// 1 for the first CSV row, as batch numbers rows.
        public var number: Int
        /// How well its codeword explains the variants read.
        public var score: Double
        /// At most this probability that an innocent row of the class scores as high (union over the rows).
        public var falseAccusationProbability: Double
    }

    /// A row is named when its false-accusation probability is at most this.
    public static let target = CollusionAccusation.falseAccusationTarget

    /// The lecture's periods, those the leak covers and those in which a variant was read.
    public var periods: Int
    /// The periods the leak covers.
    public var periodsCovered: Int
    /// The periods in which a variant was read.
    public var periodsRead: Int
    /// The score a row must reach to be named; nil when the leak is too short to name anybody.
    public var threshold: Double?
    /// The rows named, strongest first.
    public var named: [Row]
    /// Every row, strongest first (ties by row).
    public var ranking: [Row]
    /// The strongest row, named or not.
    public var best: Row? { ranking.first }
}

/// The variant layer of a trace: its q patterns drawn on the original's display, its periods on
/// the original's clock (the segments of the plan `batch` cut it by), and every row's codeword,
/// derived from the key as `batch` derived it.
struct VariantTracing {
    let patterns: VariantPatterns
    let periods: VariantPeriods
    let codebook: VariantCodebook
    /// Per row, its student name in the derivation.
    let students: [String]

    /// Nil when the config has no variant layer; refused (64) without the key.
    init?(config: WatermarkConfig, rows: [[String: String]], original: String, display: (width: Int, height: Int)) throws {
        guard let layer = config.variantLayer, let spec = layer.variants, let lecture = config.variantLecture(input: original) else { return nil }
        guard let key = config.pathKey else { throw VariantCode.keyNeeded(config: config) }
        codebook = VariantCodebook(derivation: key, lecture: lecture, alphabetSize: spec.count)
        let source = try PresentationSource(input: original, segment: PresentationTime(seconds: spec.periodSeconds))
        let starts = source.segments(.encoded).map(\.start.seconds)
        periods = VariantPeriods(starts: starts)
        // Each variant alone on a transparent frame of the display, where the layer shows (its
        // tile does not move: one instant serves every period).
        let compositor = try Compositor.forJob(config: config, variables: rows.first ?? [:], warn: { _ in })
        let instant = PresentationTime(seconds: source.duration.seconds / 2)
        var renders: [StraightRGBAImage] = []
        for k in 0..<spec.count {
            guard let alone = compositor.variantLayerAlone(showing: k) else { preconditionFailure("the variant layer went") }
            var frame = StraightRGBAImage(width: display.width, height: display.height)
            try frame.withCanvas { try alone.composite(onto: $0, at: instant) }
            renders.append(frame)
        }
        // The grey frames are full-range luma.
        patterns = VariantPatterns(straightRGBA: renders)
        students = rows.map { config.variantStudent(variables: $0) ?? "" }
    }

    /// Scores every row's codeword against what `readings` saw.
    /// `numbers`: each row's number (as batch numbers them).
    func verdict(_ readings: VariantReadings?, numbers: [Int]) throws -> VariantTraceVerdict {
        try verdict(readings, numbers: numbers, students: students, codebook: codebook)
    }

    /// The same for other students or another key's codebook: how the false-accusation rate is
    /// measured on a leak none of them made (`VariantInnocentTrials`), with the code `trace` runs.
    func verdict(_ readings: VariantReadings?, numbers: [Int], students: [String], codebook: VariantCodebook) throws -> VariantTraceVerdict {
        precondition(numbers.count == students.count, "a number per row")
        let positions = 0..<periods.starts.count
        let biases = try codebook.biases(positions)
        let observations = readings?.observations(positions) ?? positions.map { _ in .erased }
        let accusation = CollusionAccusation(biases: biases, observations: observations, rowCount: students.count)
        let codewords = try students.map { try codebook.codeword(student: $0, positions: positions, biases: biases) }
        let ranked = accusation.accuse(codewords).map {
            VariantTraceVerdict.Row(number: numbers[$0.row], score: $0.score, falseAccusationProbability: min(1, $0.falseAccusationProbability))
        }
        return VariantTraceVerdict(periods: positions.count, periodsCovered: readings?.periods.count ?? 0,
                                   periodsRead: observations.filter { !$0.isErased }.count,
                                   threshold: accusation.threshold(),
                                   named: ranked.filter { $0.falseAccusationProbability <= VariantTraceVerdict.target },
                                   ranking: ranked)
    }
}
