import Foundation

/// How one quality-matched span was encoded: what `-v` says for each span of a smart render.
public struct SpanQualityReport: Sendable, Equatable {
    /// 1-based, in the order of the video.
    public var span: Int
    /// Seconds from the first picture of its first and last replaced pictures.
    public var startSeconds: Double
    public var endSeconds: Double
    public var crf: Double
    /// The trial nearest the chosen CRF: its mean and lowest PSNR against the input.
    public var trialMeanPSNR: Double?
    public var trialLowestPSNR: Double?
    /// Every trial: its CRF, mean and lowest PSNR, and its bytes over the bytes it replaces.
    public var trials: [(crf: Double, meanPSNR: Double, lowestPSNR: Double, byteRatio: Double?)]
    /// The targets were out of reach: more quality would pass twice the bytes replaced (`.bytes`),
    /// or need a CRF the codec's profile refuses (`.floor`).
    public var stoppedAtByteBound: Bool
    public var stoppedAtLowestCRF: Bool

    init(span: Int, startSeconds: Double, endSeconds: Double, choice: SpanQuality.Choice) {
        self.span = span
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        crf = choice.crf
        trialMeanPSNR = choice.nearestTrial?.meanPSNR
        trialLowestPSNR = choice.nearestTrial?.lowestPSNR
        stoppedAtByteBound = choice.limit == .bytes
        stoppedAtLowestCRF = choice.limit == .floor
        trials = choice.trials.map { ($0.crf, $0.meanPSNR, $0.lowestPSNR, $0.byteRatio) }
    }

    public static func == (a: SpanQualityReport, b: SpanQualityReport) -> Bool {
        a.span == b.span && a.startSeconds == b.startSeconds && a.endSeconds == b.endSeconds && a.crf == b.crf
            && a.stoppedAtByteBound == b.stoppedAtByteBound && a.stoppedAtLowestCRF == b.stoppedAtLowestCRF
            && a.trials.map(\.crf) == b.trials.map(\.crf) && a.trials.map(\.meanPSNR) == b.trials.map(\.meanPSNR)
            && a.trials.map(\.lowestPSNR) == b.trials.map(\.lowestPSNR) && a.trials.map(\.byteRatio) == b.trials.map(\.byteRatio)
    }

    /// "span 2 (4.00–6.97 s): CRF 18.5, trial 47.1 dB mean, 44.0 dB lowest" and, when the targets
    /// were out of reach, why the search stopped.
    public var summary: String {
        var line = "span \(span) (\(format(startSeconds))–\(format(endSeconds)) s): CRF \(String(format: "%g", crf))"
        let tried = trials.map { trial in
            "CRF \(String(format: "%g", trial.crf)): \(format(trial.meanPSNR, digits: 1))/\(format(trial.lowestPSNR, digits: 1)) dB"
                + (trial.byteRatio.map { ", \(format($0)) × the bytes" } ?? "")
        }
        if !tried.isEmpty { line += " (trials, mean/lowest against the input: " + tried.joined(separator: "; ") + ")" }
        if stoppedAtByteBound {
            line += "; the best quality reachable within twice the bytes it replaces"
        } else if stoppedAtLowestCRF {
            line += "; the best quality reachable: the lowest CRF the input's profile allows"
        }
        return line
    }

    private func format(_ value: Double, digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
}
