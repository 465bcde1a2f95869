/// The encoder options that make re-encoded spans fit between the input's own packets.
///
/// Same codec, profile and level as the input; a decode delay (B-frame reordering) no deeper than the
/// input's, so the input's decode timestamps can be reused; an IDR at each span's start (forced per
/// frame) and keyframes as often as the input's; H.264 headers on their own SPS/PPS id and independent
/// of the content (`stitchable`), so one sample entry can list them next to the input's.
struct SpliceEncoderSettings: Equatable {
    /// What is known of the input's video stream.
    struct Input: Equatable {
        /// A codec smart rendering splices (`VideoCodec.isSpliceable`).
        var codec: VideoCodec
        /// FFmpeg's profile name for the stream ("High", "Main 10", …), nil when unknown.
        var profileName: String?
        /// `level_idc` (H.264: 31 for 3.1; HEVC: 93 for 3.1, i.e. 30 × level), nil when unknown.
        var level: Int?
        /// Pictures of reordering delay (FFmpeg's `video_delay` / `has_b_frames`).
        var reorderDelay: Int
        /// Frames between keyframes in the input (its longest GOP), at least 1.
        var gopFrames: Int
        /// The replaced packets' own bit rate, bits per second.
        var matchedBitRate: Int

        init(codec: VideoCodec, profileName: String?, level: Int?, reorderDelay: Int, gopFrames: Int, matchedBitRate: Int) {
            self.codec = codec
            self.profileName = profileName
            self.level = level
            self.reorderDelay = reorderDelay
            self.gopFrames = gopFrames
            self.matchedBitRate = matchedBitRate
        }
    }

    var encoderName: String
    /// The encoder's private options (`avcodec_open2`'s dictionary).
    var options: [String: String]
    /// Bit rate, VBV maximum rate and buffer for the codec context; nil with a CRF.
    var bitRate: Int?
    var maxRate: Int?
    var bufferSize: Int?

    /// - Parameters:
    ///   - crf, bitRate: the user's `--crf`/`--bitrate`; without either the span matches the input:
    ///     its quality when `matchedCRF` is given (`SpanQuality`), else its rate.
    ///   - spsID: H.264's parameter-set id for the re-encoded spans, one the input does not use.
    ///   - matchedCRF, spanSeconds: the CRF a quality trial chose, and the span's length, for the
    ///     decoder-buffer cap of `SpanQuality.cap` (at most twice the bytes replaced).
    init(input: Input, crf: Int?, bitRate userBitRate: Int?, preset: String?, spsID: Int = 1,
         matchedCRF: Double? = nil, spanSeconds: Double = 1) {
        var options: [String: String] = [:]
        if let preset { options[input.codec == .vp9 ? "cpu-used" : "preset"] = preset }
        let keyint = max(input.gopFrames, 1)
        switch input.codec {
        case .h264:
            encoderName = "libx264"
            if let profile = Self.x264Profile(input.profileName) { options["profile"] = profile }
            var params = ["stitchable=1", "sps-id=\(spsID)", "keyint=\(keyint)", "min-keyint=\(min(keyint, 25))"]
            params.append(contentsOf: Self.bFrameParameters(delay: input.reorderDelay, pyramidKey: "b-pyramid", pyramidOn: "normal", pyramidOff: "none"))
            if let level = input.level { params.append("level=\(level / 10).\(level % 10)") }
            options["x264-params"] = params.joined(separator: ":")
            options["forced-idr"] = "1"
        case .hevc:
            encoderName = "libx265"
            if let profile = Self.x265Profile(input.profileName) { options["profile"] = profile }
            var params = ["log-level=error", "open-gop=0", "keyint=\(keyint)", "min-keyint=\(min(keyint, 25))"]
            params.append(contentsOf: Self.bFrameParameters(delay: input.reorderDelay, pyramidKey: "b-pyramid", pyramidOn: "1", pyramidOff: "0"))
            if let level = input.level { params.append("level-idc=\(level / 3)") }
            options["x265-params"] = params.joined(separator: ":")
            options["forced-idr"] = "1"
        case .vp9, .av1:
            precondition(input.codec == .vp9, "AV1 is rendered in full, never spliced")
            encoderName = "libvpx-vp9"
            options["deadline"] = "good"
            options["row-mt"] = "1"
            if options["cpu-used"] == nil { options["cpu-used"] = "4" }
            options["g"] = String(keyint)
        }
        if crf == nil, userBitRate == nil, let matchedCRF {
            // The input's quality, with a decoder buffer keeping the span within twice its bytes.
            // libvpx takes whole CRFs; x264 and x265 fractional ones.
            options["crf"] = input.codec == .vp9 || matchedCRF == matchedCRF.rounded() ? String(Int(matchedCRF.rounded())) : String(matchedCRF)
            let cap = SpanQuality.cap(replacedBitRate: input.matchedBitRate, seconds: spanSeconds)
            if input.codec == .vp9 {
                // libvpx's constrained quality: the CRF, at most the bit rate given.
                bitRate = cap.maxRate
                maxRate = nil
                bufferSize = nil
            } else {
                bitRate = nil
                maxRate = cap.maxRate
                bufferSize = cap.bufferSize
            }
        } else if let crf, userBitRate == nil {
            options["crf"] = String(crf)
            if input.codec == .vp9 { bitRate = 0 } else { bitRate = nil }
            maxRate = nil
            bufferSize = nil
        } else {
            let rate = max(userBitRate ?? input.matchedBitRate, 10_000)
            bitRate = rate
            // VBV around the target so a short span cannot drift far from it.
            maxRate = rate * 3 / 2
            bufferSize = rate * 2
        }
        // The span declares the input's level, so its decoder buffer keeps to that level's limits:
        // twice a hard span's rate can pass them (x264 then writes a stream breaking its own level).
        if let limits = Self.levelLimits(of: input) {
            maxRate = maxRate.map { min($0, limits.maxBitRate) }
            bufferSize = bufferSize.map { min($0, limits.maxBufferSize) }
            if input.codec != .vp9, let rate = bitRate { bitRate = min(rate, limits.maxBitRate) }
        }
        self.options = options
    }

    /// The bit-rate and buffer limits of the level the input declares, for its profile (H.264
    /// Table A-2's factor: 1.25 for High, 3 for High 10, 4 for High 4:2:2 and 4:4:4); nil when unknown.
    static func levelLimits(of input: Input) -> CodecLevelLimits? {
        guard let level = input.level, level > 0 else { return nil }
        switch input.codec {
        case .h264:
            let factor: Double = switch input.profileName {
            case "High": 1.25
            case "High 10", "High 10 Intra": 3
            case "High 4:2:2", "High 4:2:2 Intra", "High 4:4:4 Predictive", "High 4:4:4 Intra": 4
            default: 1
            }
            return CodecLevelLimits.limits(codec: .h264, level: String(level), highBitRateFactor: factor)
        case .hevc:
            // general_level_idc is 30 × the level: 93 is 3.1.
            let name = level % 30 == 0 ? String(level / 30) : "\(level / 30).\(level % 30 / 3)"
            return CodecLevelLimits.limits(codec: .hevc, level: name)
        case .vp9, .av1:
            return nil
        }
    }

    /// x264/x265 B-frame settings whose decode delay is at most the input's: none → 0, without pyramid → 1.
    private static func bFrameParameters(delay: Int, pyramidKey: String, pyramidOn: String, pyramidOff: String) -> [String] {
        switch delay {
        case ...0: ["bframes=0"]
        case 1: ["bframes=3", "\(pyramidKey)=\(pyramidOff)"]
        default: ["bframes=3", "\(pyramidKey)=\(pyramidOn)"]
        }
    }

    private static func x264Profile(_ name: String?) -> String? {
        switch name {
        case "Constrained Baseline", "Baseline": "baseline"
        case "Main": "main"
        case "High": "high"
        case "High 10": "high10"
        case "High 4:2:2": "high422"
        case "High 4:4:4 Predictive": "high444"
        default: nil
        }
    }

    private static func x265Profile(_ name: String?) -> String? {
        switch name {
        case "Main": "main"
        case "Main 10": "main10"
        case "Main Still Picture": "mainstillpicture"
        case "Rext": nil  // x265 picks the range-extension profile from the pixel format
        default: nil
        }
    }
}
