import Foundation

/// What each encoder takes, checked before any file is opened, so a value the encoder would
/// refuse is a usage error naming the option ("--crf: libx264 takes 0 to 51, got 60"), not
/// the library's own line plus "opening the encoder failed" after the input was read; and
/// an output container that cannot hold the codec is refused naming both, not at write time.
extension EncodeSettings {
    /// The lowest `--bitrate` taken: below 1 kbit/s no encoder makes a watchable picture.
    public static let minimumBitRate = 1000

    /// Checks the settings for a video written to `target` (its container and, without --codec,
    /// the codec), the delivery controls included (`EncoderControls`); an HLS presentation's
    /// segments are fragmented MP4.
    public func validate(for target: OutputTarget) throws(RequestError) {
        let codec = videoCodec(for: target)
        if let crf, !codec.crfRange.contains(crf) {
            throw RequestError(subject: "--crf", problem: "\(codec.encoderName) takes \(codec.crfRange.lowerBound) to \(codec.crfRange.upperBound), got \(crf)")
        }
        if let preset, !codec.takesPreset(preset) {
            throw RequestError(subject: "--preset", problem: "\(codec.encoderName) takes \(codec.presetDescription), got '\(preset)'")
        }
        if let bitRate, bitRate < Self.minimumBitRate {
            throw RequestError(subject: "--bitrate", problem: "\(bitRate) bits per second is below the minimum of 1k; give a rate such as 2500k or 3M")
        }
        try codec.checkContainer(of: target)
        try controls.validate(for: codec, bitRate: bitRate)
    }
}

extension VideoCodec {
    /// `--crf` values the encoder takes (x264 and x265: 0–51; libvpx-vp9 and SVT-AV1: 0–63).
    var crfRange: ClosedRange<Int> {
        switch self {
        case .h264, .hevc: 0...51
        case .vp9, .av1: 0...63
        }
    }

    /// x264's and x265's preset names, fastest first.
    static let x26xPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    /// libvpx's `cpu-used` and SVT-AV1's preset are numbers: higher is faster.
    var numericPresetRange: ClosedRange<Int>? {
        switch self {
        case .h264, .hevc: nil
        case .vp9: 0...8
        case .av1: 0...13
        }
    }

    func takesPreset(_ preset: String) -> Bool {
        if let range = numericPresetRange { return Int(preset).map(range.contains) ?? false }
        return Self.x26xPresets.contains(preset)
    }

    var presetDescription: String {
        if let range = numericPresetRange { return "a speed from \(range.lowerBound) (slowest) to \(range.upperBound) (fastest)" }
        return Self.x26xPresets.joined(separator: ", ")
    }

    /// Refuses an output whose container cannot hold this codec (H.264 in WebM, any video in
    /// a .png or .gif), naming the codecs it can hold instead.
    func checkContainer(of target: OutputTarget) throws(RequestError) {
        guard !target.container.canHold(codecID) else { return }
        let output = target.path, ext = target.fileType
        let alternatives = VideoCodec.allCases.filter { target.container.canHold($0.codecID) }
        let advice = alternatives.isEmpty
            ? "a \(ext) file holds no video this tool encodes; use .mp4, .mkv, .mov or .webm (stills: stamp or thumbnail)"
            : "use --codec \(alternatives.map(\.rawValue).joined(separator: " or ")), or an .mp4 or .mkv output"
        throw RequestError(subject: output, problem: "a \(ext) file cannot hold \(rawValue) video (--codec \(rawValue)); \(advice)")
    }
}
