import Foundation

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
