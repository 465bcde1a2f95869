import Foundation

/// The quality a re-encoded span aims at: close to transparent against the input's own pictures
/// (docs/smart-rendering.md, section 6), found by a trial encode of the span's first pictures.
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

    /// The CRF range of each encoder.
    static func crfRange(_ codec: VideoCodec) -> ClosedRange<Double> {
        codec == .vp9 || codec == .av1 ? 0...63 : 0...51
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

    /// What a trial at `crf` measured: the mean and the lowest PSNR of its pictures.
    struct Measurement: Equatable {
        var crf: Double
        var meanPSNR: Double
        var lowestPSNR: Double

        init(crf: Double, psnr: [Double]) {
            self.crf = crf
            meanPSNR = psnr.isEmpty ? 99 : psnr.reduce(0, +) / Double(psnr.count)
            lowestPSNR = psnr.min() ?? 99
        }

        init(crf: Double, meanPSNR: Double, lowestPSNR: Double) {
            self.crf = crf
            self.meanPSNR = meanPSNR
            self.lowestPSNR = lowestPSNR
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

    /// The CRF after two trials (`a` the first): the slope between them (bounded to what real clips
    /// show), applied from the nearer-to-target one, never above the first CRF.
    static func refined(_ a: Measurement, _ b: Measurement, range: ClosedRange<Double>) -> Double {
        guard a.crf != b.crf else { return corrected(b, range: range) }
        let slope = min(max((a.margin - b.margin) / (b.crf - a.crf), 0.3), 1.0)
        let base = abs(a.margin) < abs(b.margin) ? a : b
        return min(rounded(base.crf + base.margin / slope, range), a.crf)
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
    /// trial when the correction was large.
    /// - Parameter configuration: the span encoder's configuration at a given CRF.
    static func chooseCRF(pictures: [(frame: Frame, pts: Int64)], initial: Double, range: ClosedRange<Double>, file: String,
                          configuration: (Double) -> VideoEncoderConfiguration) throws -> (crf: Double, trials: [SpanQuality.Measurement]) {
        let first = SpanQuality.Measurement(crf: initial, psnr: try psnr(pictures, configuration(initial), file: file))
        let second = SpanQuality.corrected(first, range: range)
        guard abs(second - initial) >= 1.5 else { return (second, [first]) }
        let again = SpanQuality.Measurement(crf: second, psnr: try psnr(pictures, configuration(second), file: file))
        return (SpanQuality.refined(first, again, range: range), [first, again])
    }

    /// Each picture's PSNR after encoding all of them with `configuration` and decoding the result.
    static func psnr(_ pictures: [(frame: Frame, pts: Int64)], _ configuration: VideoEncoderConfiguration, file: String) throws -> [Double] {
        var byTimestamp: [Int64: Frame] = [:]
        for picture in pictures { byTimestamp[picture.pts] = picture.frame }
        let encoder = try Encoder(configuration, file: file)
        let decoder = try Decoder(decodingOutputOf: encoder, file: file)
        let input = try Frame(), packet = try Packet(), decoded = try Frame()
        var results: [Double] = []
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
        return results
    }
}
