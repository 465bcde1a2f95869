import Foundation
import Testing
@testable import VideoWM

/// The arithmetic of quality-matched spans (docs/design/smart-rendering.md, section 6): the first CRF tried,
/// its correction from what a trial measured, and the decoder-buffer cap.
@Suite("span quality")
struct SpanQualityTests {
    @Test func theFirstCRFComesFromTheInputsQuantisers() {
        #expect(SpanQuality.initialCRF(codec: .h264, meanQuantiser: 26.1) == 26.1 - 5)
        #expect(SpanQuality.initialCRF(codec: .h264, meanQuantiser: 2) == 0)
        #expect(SpanQuality.initialCRF(codec: .h264, meanQuantiser: nil) == 20)
        #expect(SpanQuality.crfRange(.vp9) == 0...63 && SpanQuality.crfRange(.hevc) == 0...51)
    }

    @Test func aTrialBelowTargetLowersTheCRFByTheGentleSlopeOneAboveKeepsIt() {
        // 2 dB short on the floor (41.5 against 43.5): 2 / 0.45 = 4.44 steps down, to a quarter step.
        let short = SpanQuality.Measurement(crf: 21, meanPSNR: 47, lowestPSNR: 41.5)
        #expect(short.margin == -2)
        #expect(SpanQuality.corrected(short, range: 0...51) == 16.5)
        // 1.5 dB to spare on both: the first CRF stays (the span's later pictures may be harder).
        let spare = SpanQuality.Measurement(crf: 18, meanPSNR: 48, lowestPSNR: 45)
        #expect(SpanQuality.corrected(spare, range: 0...51) == 18)
        #expect(SpanQuality.corrected(SpanQuality.Measurement(crf: 1, meanPSNR: 30, lowestPSNR: 30), range: 0...51) == 0)
    }

    @Test func twoTrialsGiveTheSlopeBetweenThem() {
        // 2 dB of margin gained over 4 CRF steps (0.5 dB a step); the second trial is 0.5 dB short: one step down from it.
        let a = SpanQuality.Measurement(crf: 20, meanPSNR: 44, lowestPSNR: 42.5)
        let b = SpanQuality.Measurement(crf: 16, meanPSNR: 46, lowestPSNR: 44)
        #expect(a.margin == -2.5 && b.margin == -0.5)
        #expect(SpanQuality.refined(a, b, range: 0...51) == 15)
        // A slope flatter than real clips show is taken as 0.3 dB a step: 2.3 / 0.3 = 7.67 steps down from 16.
        let flat = SpanQuality.Measurement(crf: 16, meanPSNR: 44.2, lowestPSNR: 43)
        #expect(SpanQuality.refined(a, flat, range: 0...51) == 8.25)
        // An overshoot comes back up, but never above the first CRF.
        let over = SpanQuality.Measurement(crf: 12, meanPSNR: 52, lowestPSNR: 50)
        #expect(SpanQuality.refined(a, over, range: 0...51) <= 20)
    }

    @Test func theCapKeepsASpanWithinTwiceItsBytes() {
        for seconds in [0.5, 2.0, 3.0, 10.0] {
            let rate = 1_000_000
            let cap = SpanQuality.cap(replacedBitRate: rate, seconds: seconds)
            // What a decoder buffer lets through at most: the rate over the span plus its initial fill.
            let most = Double(cap.maxRate) * seconds + 0.9 * Double(cap.bufferSize)
            #expect(most <= 2 * Double(rate) * seconds + 1, "\(seconds) s: \(cap)")
            #expect(cap.maxRate > rate && cap.bufferSize >= rate / 4, "\(seconds) s: \(cap)")
        }
    }

    @Test func qualityMatchedSettingsAreACappedCRFAndTheUsersRateStillWins() {
        let input = SpliceEncoderSettings.Input(codec: .h264, profileName: "High", level: 31, reorderDelay: 2, gopFrames: 60,
                                                matchedBitRate: 2_000_000)
        let matched = SpliceEncoderSettings(input: input, crf: nil, bitRate: nil, preset: nil, matchedCRF: 19.25, spanSeconds: 2)
        #expect(matched.options["crf"] == "19.25" && matched.bitRate == nil)
        #expect(matched.maxRate == SpanQuality.cap(replacedBitRate: 2_000_000, seconds: 2).maxRate && matched.bufferSize != nil)
        let whole = SpliceEncoderSettings(input: input, crf: nil, bitRate: nil, preset: nil, matchedCRF: 19, spanSeconds: 2)
        #expect(whole.options["crf"] == "19")
        let user = SpliceEncoderSettings(input: input, crf: 30, bitRate: nil, preset: nil, matchedCRF: 19, spanSeconds: 2)
        #expect(user.options["crf"] == "30" && user.maxRate == nil)
        let rate = SpliceEncoderSettings(input: input, crf: nil, bitRate: 500_000, preset: nil, matchedCRF: 19, spanSeconds: 2)
        #expect(rate.options["crf"] == nil && rate.bitRate == 500_000)
        var vp9 = input
        vp9.codec = .vp9
        let constrained = SpliceEncoderSettings(input: vp9, crf: nil, bitRate: nil, preset: nil, matchedCRF: 30.6, spanSeconds: 2)
        #expect(constrained.options["crf"] == "31" && constrained.bitRate != nil && constrained.maxRate == nil)
    }

    /// Issue 44: x264 encodes 8-bit video losslessly below CRF 1, which only High 4:4:4 Predictive
    /// carries; a span's CRF never goes there.
    @Test func noCRFAsksForAModeTheProfileRefuses() {
        #expect(SpanQuality.crfRange(.h264, profileName: "High", bitDepth: 8) == 1...51)
        #expect(SpanQuality.crfRange(.h264, profileName: "Main", bitDepth: 8).lowerBound == 1)
        #expect(SpanQuality.crfRange(.h264, profileName: "High 4:4:4 Predictive", bitDepth: 8).lowerBound == 0)
        // x264's 10-bit scale starts at −12: CRF 0 is not lossless there.
        #expect(SpanQuality.crfRange(.h264, profileName: "High 10", bitDepth: 10).lowerBound == 0)
        #expect(SpanQuality.crfRange(.hevc) == 0...51)
        // A trial 16 dB short (cellular automata at the input's quantiser): the correction is held at the floor.
        let hopeless = SpanQuality.Measurement(crf: 28, meanPSNR: 30.1, lowestPSNR: 29.8)
        let range = SpanQuality.crfRange(.h264, profileName: "High")
        #expect(SpanQuality.corrected(hopeless, range: range) == 1)
        #expect(SpanQuality.bounded(-3, trials: [hopeless], range: range) == .init(crf: 1, trials: [hopeless], limit: .floor))
    }

    /// The search stops where the trials say a span's bytes would pass twice the bytes replaced.
    @Test func theSearchStopsAtTheByteBound() {
        // One trial at CRF 28 wrote 0.5 × the bytes: 2 × is two doublings away, 12 steps at 6 a doubling.
        let first = SpanQuality.Measurement(crf: 28, meanPSNR: 30, lowestPSNR: 29, byteRatio: 0.5)
        #expect(SpanQuality.byteBoundCRF([first], range: 1...51) == 16)
        let held = SpanQuality.bounded(4, trials: [first], range: 1...51)
        #expect(held.crf == 16 && held.limit == .bytes)
        // A CRF above the bound is kept as it is.
        #expect(SpanQuality.bounded(20, trials: [first], range: 1...51) == .init(crf: 20, trials: [first], limit: .none))
        // Two trials measure the slope: 0.5 × at 28 and 1 × at 20 is 8 steps a doubling, so 2 × at 12.
        let second = SpanQuality.Measurement(crf: 20, meanPSNR: 36, lowestPSNR: 35, byteRatio: 1)
        #expect(SpanQuality.byteBoundCRF([first, second], range: 1...51) == 12)
        // Bytes that barely grow (cellular automata: 0.70 × at 28.4, 0.97 × at 19.5) are read at 12 steps a doubling at most.
        let flat = [SpanQuality.Measurement(crf: 28.375, meanPSNR: 30.1, lowestPSNR: 29.8, byteRatio: 0.70),
                    SpanQuality.Measurement(crf: 19.5, meanPSNR: 37.4, lowestPSNR: 36.6, byteRatio: 0.97)]
        let bound = SpanQuality.byteBoundCRF(flat, range: 1...51)!
        #expect(abs(bound - (19.5 + 12 * log2(0.97 / 2))) <= 0.25)
        // A trial that does not know its bytes (no replaced packets measured) sets no bound.
        #expect(SpanQuality.byteBoundCRF([SpanQuality.Measurement(crf: 20, meanPSNR: 40, lowestPSNR: 38)], range: 1...51) == nil)
    }
}
