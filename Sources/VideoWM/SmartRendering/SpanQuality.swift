import Foundation

/// The quality a re-encoded span aims at: close to transparent against the input's own pictures
/// (docs/design/smart-rendering.md, section 6), found by a trial encode of the span's first pictures.
///
/// Why a trial: the PSNR a re-encode reaches against the input at a given quantiser depends on the
/// content. Measured with x264 on two real clips whose H.264 slices average the same quantiser
/// (26.1 and 26.5): the 640×272 bikes clip reaches 47.3 dB at CRF 22, the 176×144 carphone clip
/// only 42.4 dB at CRF 20 and needs CRF 14 for 46 dB. So the input's quantisers (its slice QPs,
/// read without decoding) only pick the first CRF to try; the trial measures, and the CRF is
/// corrected from what it measured.
enum SpanQuality {
    /// What the trial aims at, in dB against the input: above the targets the spans must meet
    /// (45 dB on average, 42 dB for every picture), since the trial sees only a span's first pictures.
    static let trialMeanPSNR = 46.5
    static let trialFloorPSNR = 43.5
    /// Pictures of a span encoded in a trial: the span's IDR and the P and B pictures after it.
    static let trialPictures = 12
    /// At most this many bytes per byte replaced: the decoder-buffer cap of a quality-matched span.
    static let byteCap = 2.0

    /// dB per CRF step seen on real clips (x264: 0.39 on bikes, 0.71 on carphone); a correction
    /// towards more quality uses the gentle slope, so it takes the larger step.
    static let gentleSlope = 0.45

    /// x264 and x265 double a picture's bytes about every 6 CRF steps down (their rate-control
    /// rule of thumb; measured 5.2–7.5 on the trial pictures of the smart-rendering clips): the
    /// estimate of where a span would reach the byte cap until a second trial measures it.
    static let stepsPerDoubling = 6.0

    /// The CRF range a span may take: the encoder's scale, above any CRF that would ask for a mode
    /// the input's profile refuses. x264 encodes 8-bit video losslessly below CRF 1 (its constant
    /// quantiser is the CRF truncated, and quantiser 0 is its lossless mode), which only High 4:4:4
    /// Predictive carries: under any other profile `avcodec_open2` fails ("high profile doesn't
    /// support lossless"). At higher bit depths x264's scale starts below 0, so 0 is not lossless.
    static func crfRange(_ codec: VideoCodec, profileName: String? = nil, bitDepth: Int = 8) -> ClosedRange<Double> {
        switch codec {
        case .h264: bitDepth == 8 && profileName != "High 4:4:4 Predictive" ? 1...51 : 0...51
        case .hevc: 0...51  // x265 is lossless only when asked (`lossless=1`), never at a CRF
        case .vp9, .av1: 0...63
        }
    }

    /// The first CRF to try: for H.264 a few steps under the input's mean slice quantiser (x264's
    /// CRF lands its P pictures near the CRF, its B pictures some steps above, as the input's are);
    /// elsewhere a value that is transparent on most content.
    static func initialCRF(codec: VideoCodec, meanQuantiser: Double?) -> Double {
        switch codec {
        case .h264: min(max((meanQuantiser ?? 25) - 5, 0), 51)
        case .hevc: 22
        case .vp9: 28
        case .av1: 30
        }
    }

    /// What a trial at `crf` measured: the mean and the lowest PSNR of its pictures, and their
    /// bytes against the bytes of the input's packets for the same pictures (nil when unknown).
    struct Measurement: Equatable {
        var crf: Double
        var meanPSNR: Double
        var lowestPSNR: Double
        var byteRatio: Double?

        init(crf: Double, psnr: [Double], byteRatio: Double? = nil) {
            self.crf = crf
            meanPSNR = psnr.isEmpty ? 99 : psnr.reduce(0, +) / Double(psnr.count)
            lowestPSNR = psnr.min() ?? 99
            self.byteRatio = byteRatio
        }

        init(crf: Double, meanPSNR: Double, lowestPSNR: Double, byteRatio: Double? = nil) {
            self.crf = crf
            self.meanPSNR = meanPSNR
            self.lowestPSNR = lowestPSNR
            self.byteRatio = byteRatio
        }

        /// dB above the targets (negative: below), by the tighter of the two.
        var margin: Double { min(meanPSNR - SpanQuality.trialMeanPSNR, lowestPSNR - SpanQuality.trialFloorPSNR) }
    }

    /// The CRF to use after one trial: a shortfall turned into CRF steps down. A trial above its
    /// targets keeps the first CRF: the span's later pictures may be harder than its first 12 (on
    /// bikes a trial of the calm first second raised the CRF to where the rest of the span fell to
    /// 41 dB), and the first CRF is already set from the input's own quantisers.
    static func corrected(_ m: Measurement, range: ClosedRange<Double>) -> Double {
        m.margin < 0 ? rounded(m.crf + m.margin / gentleSlope, range) : m.crf
    }

    /// Whether a correction to `crf` after `m` would go below the range's floor (x264's lossless mode).
    static func wouldPassFloor(_ m: Measurement, range: ClosedRange<Double>) -> Bool {
        m.margin < 0 && m.crf + m.margin / gentleSlope < range.lowerBound
    }

    /// The CRF after two trials (`a` the first): the slope between them (bounded to what real clips
    /// show), applied from the nearer-to-target one, never above the first CRF.
    static func refined(_ a: Measurement, _ b: Measurement, range: ClosedRange<Double>) -> Double {
        guard a.crf != b.crf else { return corrected(b, range: range) }
        let slope = min(max((a.margin - b.margin) / (b.crf - a.crf), 0.3), 1.0)
        let base = abs(a.margin) < abs(b.margin) ? a : b
        return min(rounded(base.crf + base.margin / slope, range), a.crf)
    }

    /// The lowest CRF whose pictures stay within `byteCap` × the bytes they replace, estimated from
    /// the trials' byte ratios: from one trial at `stepsPerDoubling`, from two at the slope they
    /// measured (bounded to 3…12 steps a doubling). Nil when no trial knows its bytes. Lower CRFs
    /// would only be cut back by the decoder buffer, with the quality going where the buffer
    /// starves rather than where the encoder chose.
    static func byteBoundCRF(_ trials: [Measurement], range: ClosedRange<Double>) -> Double? {
        let known = trials.filter { ($0.byteRatio ?? 0) > 0 }
        guard let nearest = known.min(by: { abs(log2($0.byteRatio! / byteCap)) < abs(log2($1.byteRatio! / byteCap)) }) else { return nil }
        var steps = stepsPerDoubling
        if known.count >= 2, let a = known.first, let b = known.last, a.crf != b.crf, a.byteRatio! != b.byteRatio! {
            steps = min(max((b.crf - a.crf) / log2(a.byteRatio! / b.byteRatio!), 3), 12)
        }
        let crf = nearest.crf + steps * log2(nearest.byteRatio! / byteCap)
        return (crf * 4).rounded(.up) / 4
    }

    /// Why the search stopped where it did.
    enum Limit: Equatable, Sendable {
        /// The targets were met (or the first CRF kept).
        case none
        /// More quality would take more than `byteCap` × the bytes replaced.
        case bytes
        /// The lowest CRF the codec and profile allow (`crfRange`).
        case floor
    }

    /// The CRF a span is encoded at, the trials that chose it, and what stopped the search.
    struct Choice: Equatable {
        var crf: Double
        var trials: [Measurement]
        var limit: Limit

        /// The trial's quality nearest the chosen CRF: what `-v` reports when the targets were out of reach.
        var nearestTrial: Measurement? { trials.min { abs($0.crf - crf) < abs($1.crf - crf) } }
    }

    /// `crf` kept inside what the trials allow: not below the byte bound's CRF nor the range's floor.
    static func bounded(_ crf: Double, trials: [Measurement], range: ClosedRange<Double>) -> Choice {
        var chosen = min(max(crf, range.lowerBound), range.upperBound), limit = Limit.none
        if crf < range.lowerBound { limit = .floor }
        if let bound = byteBoundCRF(trials, range: range), chosen < bound {
            chosen = min(bound, trials.map(\.crf).max() ?? bound, range.upperBound)
            limit = .bytes
        }
        return Choice(crf: chosen, trials: trials, limit: limit)
    }

    /// To a quarter step: x264 and x265 take fractional CRFs, and a quarter is below what can be seen.
    private static func rounded(_ crf: Double, _ range: ClosedRange<Double>) -> Double {
        min(max((crf * 4).rounded(.down) / 4, range.lowerBound), range.upperBound)
    }

    /// The decoder-buffer model that keeps a span at most `byteCap` × the bytes it replaces
    /// (`replacedBitRate` over `seconds`): a buffer of half the span (at most 2 s) of the replaced
    /// rate, and a maximum rate leaving room for the buffer's initial fill (x264 starts it 90% full).
    static func cap(replacedBitRate: Int, seconds: Double) -> (maxRate: Int, bufferSize: Int) {
        let rate = Double(max(replacedBitRate, 10_000)), duration = max(seconds, 0.1)
        let buffer = rate * min(duration, 4) / 2
        let maxRate = byteCap * rate - 0.9 * buffer / duration
        return (Int(maxRate), Int(buffer))
    }
}

/// Encodes a span's first pictures at a CRF, decodes what came out and compares it with them.
enum SpanQualityTrial {
    /// The CRF for a span whose first pictures are `pictures` (the input's, unmarked, in the encoder's
    /// format, with their timestamps in its time base): one trial at `initial`, corrected; a second
    /// trial when the correction was large. Every CRF tried and chosen stays inside `range` and
    /// within the byte bound the trials measure (`SpanQuality.bounded`): on content no re-encode
    /// matches short of lossless (cellular automata, confetti, sensor noise) the answer is the best
    /// quality reachable within twice the bytes, and the choice says so.
    /// - Parameters:
    ///   - replacedBytes: the bytes of the input's packets for these pictures (0 when unknown).
    ///   - configuration: the span encoder's configuration at a given CRF.
    static func chooseCRF(pictures: [(frame: Frame, pts: Int64)], replacedBytes: Int, initial: Double, range: ClosedRange<Double>,
                          file: String, configuration: (Double) -> VideoEncoderConfiguration) throws -> SpanQuality.Choice {
        func trial(_ crf: Double) throws -> SpanQuality.Measurement {
            let result = try measure(pictures, configuration(crf), file: file)
            return SpanQuality.Measurement(crf: crf, psnr: result.psnr,
                                           byteRatio: replacedBytes > 0 ? Double(result.bytes) / Double(replacedBytes) : nil)
        }
        let start = min(max(initial, range.lowerBound), range.upperBound)
        let first = try trial(start)
        let next = SpanQuality.bounded(SpanQuality.corrected(first, range: range), trials: [first], range: range)
        guard abs(next.crf - start) >= 1.5 else {
            return next.limit == .none && SpanQuality.wouldPassFloor(first, range: range) ? SpanQuality.Choice(crf: next.crf, trials: [first], limit: .floor) : next
        }
        let again = try trial(next.crf)
        let trials = [first, again]
        var choice = SpanQuality.bounded(SpanQuality.refined(first, again, range: range), trials: trials, range: range)
        if choice.limit == .none, again.margin < 0, choice.crf == range.lowerBound { choice.limit = .floor }
        return choice
    }

    /// Each picture's PSNR after encoding all of them with `configuration` and decoding the result.
    static func psnr(_ pictures: [(frame: Frame, pts: Int64)], _ configuration: VideoEncoderConfiguration, file: String) throws -> [Double] {
        try measure(pictures, configuration, file: file).psnr
    }

    /// Each picture's PSNR after encoding all of them with `configuration` and decoding the result,
    /// and the bytes the encoder wrote for them.
    static func measure(_ pictures: [(frame: Frame, pts: Int64)], _ configuration: VideoEncoderConfiguration,
                        file: String) throws -> (psnr: [Double], bytes: Int) {
        var byTimestamp: [Int64: Frame] = [:]
        for picture in pictures { byTimestamp[picture.pts] = picture.frame }
        let encoder = try Encoder(configuration, file: file)
        let decoder = try Decoder(decodingOutputOf: encoder, file: file)
        let input = try Frame(), packet = try Packet(), decoded = try Frame()
        var results: [Double] = []
        var bytes = 0
        func drainDecoder() throws {
            while case .frame = try decoder.receive(into: decoded) {
                defer { decoded.unref() }
                guard let pts = decoded.presentationTimestamp, let original = byTimestamp[pts],
                      let difference = PictureDifference(original, decoded) else { continue }
                results.append(difference.psnr)
            }
        }
        func drainEncoder() throws {
            while try encoder.receive(into: packet) == .produced {
                defer { packet.unref() }
                bytes += packet.size
                _ = try decoder.send(packet)
                try drainDecoder()
            }
        }
        for (n, picture) in pictures.enumerated() {
            try input.reference(picture.frame, file: file)
            input.presentationTimestamp = picture.pts
            input.clearPictureType()
            if n == 0 { input.requestKeyframe() }
            try encoder.send(input)
            input.unref()
            try drainEncoder()
        }
        try encoder.send(nil)
        try drainEncoder()
        _ = try decoder.send(nil)
        try drainDecoder()
        return (results, bytes)
    }
}

/// How one quality-matched span was encoded: what `-v` says for each span of a smart render.
public struct SpanQualityReport: Sendable, Equatable {
    /// 1-based, in the order of the video.
    public var span: Int
    /// Seconds from the first picture of its first and last replaced pictures.
    public var startSeconds: Double
    /// Seconds of its last replaced picture.
    public var endSeconds: Double
    /// The CRF the span was encoded at.
    public var crf: Double
    /// The trial nearest the chosen CRF: its mean and lowest PSNR against the input.
    public var trialMeanPSNR: Double?
    /// That trial's lowest PSNR, in dB.
    public var trialLowestPSNR: Double?
    /// Every trial: its CRF, mean and lowest PSNR, and its bytes over the bytes it replaces.
    public var trials: [(crf: Double, meanPSNR: Double, lowestPSNR: Double, byteRatio: Double?)]
    /// The targets were out of reach: more quality would pass twice the bytes replaced (`.bytes`),
    /// or need a CRF the codec's profile refuses (`.floor`).
    public var stoppedAtByteBound: Bool
    /// More quality would need a CRF the codec's profile refuses.
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
