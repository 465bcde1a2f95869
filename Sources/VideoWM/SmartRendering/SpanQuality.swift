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
        let known = trials.compactMap { trial in trial.byteRatio.flatMap { $0 > 0 ? (crf: trial.crf, ratio: $0) : nil } }
        guard let nearest = known.min(by: { abs(log2($0.ratio / byteCap)) < abs(log2($1.ratio / byteCap)) }) else { return nil }
        var steps = stepsPerDoubling
        if known.count >= 2, let a = known.first, let b = known.last, a.crf != b.crf, a.ratio != b.ratio {
            steps = min(max((b.crf - a.crf) / log2(a.ratio / b.ratio), 3), 12)
        }
        let crf = nearest.crf + steps * log2(nearest.ratio / byteCap)
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
