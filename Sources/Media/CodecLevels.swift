/// H.264 and HEVC levels: the picture-size, sample-rate, bit-rate and buffer limits a stream
/// declaring that level must keep (H.264 Table A-1; HEVC Table A.8, Main tier).
///
/// x264 only warns when a picture exceeds the `--level` asked for and writes a stream that
/// declares a level it breaks; x265 refuses to open. Checking here first gives one clear
/// usage error (64) naming the limit, for both.
public struct CodecLevelLimits: Sendable, Equatable {
    /// The level as written ("4.1").
    public let name: String
    /// Largest picture, in luma samples.
    public let maxPictureSamples: Int
    /// Largest luma sample rate (picture samples × frames per second).
    public let maxSampleRate: Int
    /// Largest bit rate and coded picture buffer, in bits (per second) at this level, for
    /// the profile the stream is encoded with (`profileFactor` applied).
    public let maxBitRate: Int
    /// Largest coded picture buffer, in bits, for that profile.
    public let maxBufferSize: Int
    /// H.264 counts in 16×16 macroblocks: the size is checked in whole macroblocks.
    let macroblockUnits: Bool

    /// The limits of `level` for `codec`, nil when the codec has no such level here.
    /// `highBitRateFactor` scales H.264's bit-rate and buffer limits by profile: 1.25 for
    /// High, 3 for High 10, 4 for High 4:2:2 and 4:4:4 (Table A-2); 1 otherwise.
    public static func limits(codec: VideoCodec, level: String, highBitRateFactor: Double = 1) -> CodecLevelLimits? {
        switch codec {
        case .h264:
            guard let row = h264.first(where: { $0.name == level || $0.aliases.contains(level) }) else { return nil }
            // Macroblocks → samples: 256 per macroblock.
            return CodecLevelLimits(name: row.name, maxPictureSamples: row.maxFrameMacroblocks * 256,
                                    maxSampleRate: row.maxMacroblocksPerSecond * 256,
                                    maxBitRate: Int(Double(row.maxKilobits * 1000) * highBitRateFactor),
                                    maxBufferSize: Int(Double(row.maxBufferKilobits * 1000) * highBitRateFactor),
                                    macroblockUnits: true)
        case .hevc:
            guard let row = hevc.first(where: { $0.name == level || $0.aliases.contains(level) }) else { return nil }
            return CodecLevelLimits(name: row.name, maxPictureSamples: row.maxPictureSamples, maxSampleRate: row.maxSampleRate,
                                    maxBitRate: row.maxKilobits * 1000, maxBufferSize: row.maxBufferKilobits * 1000,
                                    macroblockUnits: false)
        case .vp9, .av1:
            return nil
        }
    }

    /// The level names `codec` takes, for error messages and help.
    public static func names(for codec: VideoCodec) -> [String] {
        switch codec {
        case .h264: h264.map(\.name)
        case .hevc: hevc.map(\.name)
        case .vp9: vp9Levels
        case .av1: []
        }
    }

    /// VP9's levels (libvpx's target level): libvpx keeps to them itself, so only the name is checked.
    static let vp9Levels = ["1", "1.1", "2", "2.1", "3", "3.1", "4", "4.1", "5", "5.1", "5.2", "6", "6.1", "6.2"]

    /// Why a `width`×`height` picture at `framesPerSecond` does not fit this level; nil when it does.
    public func problem(width: Int, height: Int, framesPerSecond: Double) -> String? {
        let unit = macroblockUnits ? 16 : 1
        let columns = (width + unit - 1) / unit, rows = (height + unit - 1) / unit
        let samples = columns * rows * unit * unit
        // Neither side may exceed √(8 × the largest picture): no 1×N pictures at a level.
        let longestSide = Int((8 * Double(maxPictureSamples)).squareRoot())
        if samples > maxPictureSamples || max(width, height) > longestSide {
            return "\(width)×\(height) is larger than level \(name) allows (\(maxPictureSamples) luma samples, sides up to \(longestSide))"
        }
        let rate = Double(samples) * framesPerSecond
        if rate > Double(maxSampleRate) {
            let fastest = Double(maxSampleRate) / Double(samples)
            return "\(width)×\(height) at \(Self.format(framesPerSecond)) frames per second is more than level \(name) allows (at most \(Self.format(fastest)) at this size)"
        }
        return nil
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private struct H264Row {
        let name: String, aliases: [String], maxMacroblocksPerSecond: Int, maxFrameMacroblocks: Int, maxKilobits: Int, maxBufferKilobits: Int
    }

    private struct HEVCRow {
        let name: String, aliases: [String], maxPictureSamples: Int, maxSampleRate: Int, maxKilobits: Int, maxBufferKilobits: Int
    }

    // H.264 Table A-1: MaxMBPS, MaxFS, MaxBR (kbit/s, Baseline/Main), MaxCPB (kbit).
    private static let h264: [H264Row] = [
        .init(name: "1", aliases: ["1.0", "10"], maxMacroblocksPerSecond: 1485, maxFrameMacroblocks: 99, maxKilobits: 64, maxBufferKilobits: 175),
        .init(name: "1b", aliases: ["9"], maxMacroblocksPerSecond: 1485, maxFrameMacroblocks: 99, maxKilobits: 128, maxBufferKilobits: 350),
        .init(name: "1.1", aliases: ["11"], maxMacroblocksPerSecond: 3000, maxFrameMacroblocks: 396, maxKilobits: 192, maxBufferKilobits: 500),
        .init(name: "1.2", aliases: ["12"], maxMacroblocksPerSecond: 6000, maxFrameMacroblocks: 396, maxKilobits: 384, maxBufferKilobits: 1000),
        .init(name: "1.3", aliases: ["13"], maxMacroblocksPerSecond: 11880, maxFrameMacroblocks: 396, maxKilobits: 768, maxBufferKilobits: 2000),
        .init(name: "2", aliases: ["2.0", "20"], maxMacroblocksPerSecond: 11880, maxFrameMacroblocks: 396, maxKilobits: 2000, maxBufferKilobits: 2000),
        .init(name: "2.1", aliases: ["21"], maxMacroblocksPerSecond: 19800, maxFrameMacroblocks: 792, maxKilobits: 4000, maxBufferKilobits: 4000),
        .init(name: "2.2", aliases: ["22"], maxMacroblocksPerSecond: 20250, maxFrameMacroblocks: 1620, maxKilobits: 4000, maxBufferKilobits: 4000),
        .init(name: "3", aliases: ["3.0", "30"], maxMacroblocksPerSecond: 40500, maxFrameMacroblocks: 1620, maxKilobits: 10000, maxBufferKilobits: 10000),
        .init(name: "3.1", aliases: ["31"], maxMacroblocksPerSecond: 108000, maxFrameMacroblocks: 3600, maxKilobits: 14000, maxBufferKilobits: 14000),
        .init(name: "3.2", aliases: ["32"], maxMacroblocksPerSecond: 216000, maxFrameMacroblocks: 5120, maxKilobits: 20000, maxBufferKilobits: 20000),
        .init(name: "4", aliases: ["4.0", "40"], maxMacroblocksPerSecond: 245760, maxFrameMacroblocks: 8192, maxKilobits: 20000, maxBufferKilobits: 25000),
        .init(name: "4.1", aliases: ["41"], maxMacroblocksPerSecond: 245760, maxFrameMacroblocks: 8192, maxKilobits: 50000, maxBufferKilobits: 62500),
        .init(name: "4.2", aliases: ["42"], maxMacroblocksPerSecond: 522240, maxFrameMacroblocks: 8704, maxKilobits: 50000, maxBufferKilobits: 62500),
        .init(name: "5", aliases: ["5.0", "50"], maxMacroblocksPerSecond: 589824, maxFrameMacroblocks: 22080, maxKilobits: 135000, maxBufferKilobits: 135000),
        .init(name: "5.1", aliases: ["51"], maxMacroblocksPerSecond: 983040, maxFrameMacroblocks: 36864, maxKilobits: 240000, maxBufferKilobits: 240000),
        .init(name: "5.2", aliases: ["52"], maxMacroblocksPerSecond: 2073600, maxFrameMacroblocks: 36864, maxKilobits: 240000, maxBufferKilobits: 240000),
        .init(name: "6", aliases: ["6.0", "60"], maxMacroblocksPerSecond: 4177920, maxFrameMacroblocks: 139264, maxKilobits: 240000, maxBufferKilobits: 240000),
        .init(name: "6.1", aliases: ["61"], maxMacroblocksPerSecond: 8355840, maxFrameMacroblocks: 139264, maxKilobits: 480000, maxBufferKilobits: 480000),
        .init(name: "6.2", aliases: ["62"], maxMacroblocksPerSecond: 16711680, maxFrameMacroblocks: 139264, maxKilobits: 800000, maxBufferKilobits: 800000),
    ]

    // HEVC Table A.8, Main tier: MaxLumaPs, MaxLumaSr (Table A.9), MaxBR (kbit/s), MaxCPB (kbit).
    private static let hevc: [HEVCRow] = [
        .init(name: "1", aliases: ["1.0"], maxPictureSamples: 36864, maxSampleRate: 552960, maxKilobits: 128, maxBufferKilobits: 350),
        .init(name: "2", aliases: ["2.0"], maxPictureSamples: 122880, maxSampleRate: 3686400, maxKilobits: 1500, maxBufferKilobits: 1500),
        .init(name: "2.1", aliases: [], maxPictureSamples: 245760, maxSampleRate: 7372800, maxKilobits: 3000, maxBufferKilobits: 3000),
        .init(name: "3", aliases: ["3.0"], maxPictureSamples: 552960, maxSampleRate: 16588800, maxKilobits: 6000, maxBufferKilobits: 6000),
        .init(name: "3.1", aliases: [], maxPictureSamples: 983040, maxSampleRate: 33177600, maxKilobits: 10000, maxBufferKilobits: 10000),
        .init(name: "4", aliases: ["4.0"], maxPictureSamples: 2228224, maxSampleRate: 66846720, maxKilobits: 12000, maxBufferKilobits: 12000),
        .init(name: "4.1", aliases: [], maxPictureSamples: 2228224, maxSampleRate: 133693440, maxKilobits: 20000, maxBufferKilobits: 20000),
        .init(name: "5", aliases: ["5.0"], maxPictureSamples: 8912896, maxSampleRate: 267386880, maxKilobits: 25000, maxBufferKilobits: 25000),
        .init(name: "5.1", aliases: [], maxPictureSamples: 8912896, maxSampleRate: 534773760, maxKilobits: 40000, maxBufferKilobits: 40000),
        .init(name: "5.2", aliases: [], maxPictureSamples: 8912896, maxSampleRate: 1069547520, maxKilobits: 60000, maxBufferKilobits: 60000),
        .init(name: "6", aliases: ["6.0"], maxPictureSamples: 35651584, maxSampleRate: 1069547520, maxKilobits: 60000, maxBufferKilobits: 60000),
        .init(name: "6.1", aliases: [], maxPictureSamples: 35651584, maxSampleRate: 2139095040, maxKilobits: 120000, maxBufferKilobits: 120000),
        .init(name: "6.2", aliases: [], maxPictureSamples: 35651584, maxSampleRate: 4278190080, maxKilobits: 240000, maxBufferKilobits: 240000),
    ]
}
