/// The delivery controls of a video encode: `--gop`, `--maxrate`/`--bufsize`, `--profile`,
/// `--level`, `--tune`. Checked against the codec (and, once the input is known, against the
/// picture) so that a combination an encoder cannot honour is a usage error (64) naming the
/// option, never a silently different stream.
///
/// What each encoder here can do (FFmpeg 5.1, x264 164, x265 3.5, libvpx 1.12, SVT-AV1 1.4):
/// - keyframes by time: forced per frame for x264, x265 (as IDR), libvpx; SVT-AV1 1.4 ignores
///   forced keyframes through FFmpeg 5.1, so av1 takes `--gop` only as a frame count;
/// - a decoder-buffer (VBV) cap on CRF: x264 and x265 only; libvpx and SVT-AV1 have no such
///   model, so `--maxrate` on vp9/av1 is refused rather than approximated;
/// - levels: x264 writes any level asked for and only warns when the picture breaks it, so
///   the H.264/HEVC limits are checked here (`CodecLevelLimits`); VP9 levels are libvpx's
///   target level; SVT-AV1 sets its level itself.
public struct EncoderControls: Sendable, Equatable {
    /// `--gop`: keyframes every N frames or seconds; nil: the encoder's own placement.
    public var gop: KeyframeInterval?
    /// Bits per second and bits: the VBV's fill rate and size.
    public var maxRate: Int?
    /// `--bufsize`, in bits.
    public var bufferSize: Int?
    /// `--profile`, as given ("high", "main10", "0").
    public var profile: String?
    /// `--level`, as given ("4.1").
    public var level: String?
    /// `--tune`, as given ("film").
    public var tune: String?

    /// Controls, each nil when not asked for.
    public init(gop: KeyframeInterval? = nil, maxRate: Int? = nil, bufferSize: Int? = nil,
                profile: String? = nil, level: String? = nil, tune: String? = nil) {
        self.gop = gop
        self.maxRate = maxRate
        self.bufferSize = bufferSize
        self.profile = profile
        self.level = level
        self.tune = tune
    }

    /// Profiles by codec, each with the pictures it can carry.
    static func profiles(for codec: VideoCodec) -> [(name: String, maxBitDepth: Int, chroma: Set<ChromaSubsampling>)] {
        switch codec {
        case .h264:
            [("baseline", 8, [.s420]), ("main", 8, [.s420]), ("high", 8, [.s420]), ("high10", 10, [.s420]),
             ("high422", 10, [.s420, .s422]), ("high444", 10, [.s420, .s422, .s444])]
        case .hevc:
            [("main", 8, [.s420]), ("main10", 10, [.s420]), ("main12", 12, [.s420]), ("main422-10", 10, [.s420, .s422]),
             ("main422-12", 12, [.s420, .s422]), ("main444-8", 8, [.s420, .s422, .s444]), ("main444-10", 10, [.s420, .s422, .s444]),
             ("main444-12", 12, [.s420, .s422, .s444])]
        case .vp9:
            [("0", 8, [.s420]), ("1", 8, [.s422, .s444]), ("2", 12, [.s420]), ("3", 12, [.s422, .s444])]
        case .av1:
            // SVT-AV1 1.4 encodes 4:2:0 only: the Main profile.
            [("main", 10, [.s420])]
        }
    }

    static func tunes(for codec: VideoCodec) -> [String] {
        switch codec {
        case .h264: ["film", "animation", "grain", "stillimage", "psnr", "ssim", "fastdecode", "zerolatency"]
        case .hevc: ["psnr", "ssim", "grain", "zerolatency", "fastdecode", "animation"]
        case .vp9: ["psnr", "ssim", "screen", "film"]
        case .av1: ["vq", "psnr"]
        }
    }

    /// The checks that need only the codec and the other options (run before any file is opened).
    public func validate(for codec: VideoCodec, bitRate: Int?) throws(RequestError) {
        if case .duration = gop, codec == .av1 {
            throw RequestError(subject: "--gop", problem: "the av1 encoder here (SVT-AV1 1.4) cannot place keyframes at times; give a frame count (--gop 60)")
        }
        switch (maxRate, bufferSize) {
        case (nil, nil): break
        case (_?, nil): throw RequestError(subject: "--maxrate", problem: "needs --bufsize (the decoder buffer, e.g. twice the rate)")
        case (nil, _?): throw RequestError(subject: "--bufsize", problem: "needs --maxrate")
        case (let rate?, _?):
            guard codec == .h264 || codec == .hevc else {
                throw RequestError(subject: "--maxrate", problem: "a decoder-buffer cap needs h264 or hevc; the \(codec.rawValue) encoder has no buffer model")
            }
            if let bitRate, bitRate > rate {
                throw RequestError(subject: "--bitrate", problem: "\(bitRate) bit/s is above --maxrate \(rate) bit/s")
            }
        }
        if let profile, !Self.profiles(for: codec).contains(where: { $0.name == profile }) {
            throw RequestError(subject: "--profile", problem: "\(codec.rawValue) takes \(Self.profiles(for: codec).map(\.name).joined(separator: ", ")); got '\(profile)'")
        }
        if let tune, !Self.tunes(for: codec).contains(tune) {
            throw RequestError(subject: "--tune", problem: "\(codec.rawValue) takes \(Self.tunes(for: codec).joined(separator: ", ")); got '\(tune)'")
        }
        if let level {
            let names = CodecLevelLimits.names(for: codec)
            guard !names.isEmpty else {
                throw RequestError(subject: "--level", problem: "the av1 encoder here (SVT-AV1 1.4) sets its level itself")
            }
            guard CodecLevelLimits.limits(codec: codec, level: level) != nil || (codec == .vp9 && names.contains(level)) else {
                throw RequestError(subject: "--level", problem: "\(codec.rawValue) takes \(names.joined(separator: ", ")); got '\(level)'")
            }
        }
    }

    /// The checks that need the picture the encoder will get: its sample format, size and rate.
    public func validate(for codec: VideoCodec, picture: EncodedPicture) throws(RequestError) {
        if let profile, let entry = Self.profiles(for: codec).first(where: { $0.name == profile }),
           picture.bitDepth > entry.maxBitDepth || !entry.chroma.contains(picture.chroma) {
            throw RequestError(subject: "--profile", problem: "\(codec.rawValue) profile \(profile) cannot carry this video (\(picture.bitDepth)-bit \(picture.chroma.rawValue))")
        }
        guard let level, let limits = CodecLevelLimits.limits(codec: codec, level: level, highBitRateFactor: h264BitRateFactor(picture)) else { return }
        if let problem = limits.problem(width: picture.width, height: picture.height, framesPerSecond: picture.framesPerSecond) {
            throw RequestError(subject: "--level", problem: problem)
        }
        if let maxRate, maxRate > limits.maxBitRate {
            throw RequestError(subject: "--maxrate", problem: "\(maxRate) bit/s is above level \(limits.name)'s \(limits.maxBitRate) bit/s")
        }
        if let bufferSize, bufferSize > limits.maxBufferSize {
            throw RequestError(subject: "--bufsize", problem: "\(bufferSize) bits is above level \(limits.name)'s \(limits.maxBufferSize) bits")
        }
    }

    /// H.264's profile factor for bit-rate limits (Table A-2): the profile asked for, else the
    /// one x264 picks for this picture.
    private func h264BitRateFactor(_ picture: EncodedPicture) -> Double {
        let name = profile ?? (picture.chroma != .s420 ? "high444" : picture.bitDepth > 8 ? "high10" : "high")
        switch name {
        case "high": return 1.25
        case "high10": return 3
        case "high422", "high444": return 4
        default: return 1
        }
    }
}

/// What the encoder will be given: enough to check a profile and a level.
public struct EncodedPicture: Sendable, Equatable {
    /// The encoded width in pixels.
    public var width: Int
    /// The encoded height in pixels.
    public var height: Int
    /// Bits per sample (8, 10, 12).
    public var bitDepth: Int
    /// Its chroma subsampling.
    public var chroma: ChromaSubsampling
    /// The stream's nominal (highest) frame rate.
    public var framesPerSecond: Double

    /// A picture as the encoder will get it.
    public init(width: Int, height: Int, bitDepth: Int, chroma: ChromaSubsampling, framesPerSecond: Double) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.chroma = chroma
        self.framesPerSecond = framesPerSecond
    }
}

/// How `EncoderControls` reach one encoder: codec-context fields, private options, and
/// `key=value` entries for the encoder's own parameter string (`x264-params`, `x265-params`,
/// `svtav1-params`, joined with `:` after any the caller already sets).
public struct EncoderOptionChanges: Sendable, Equatable {
    /// `AVCodecContext.gop_size`.
    public var gopSize: Int32?
    /// `AVCodecContext.keyint_min`.
    public var minKeyframeInterval: Int32?
    /// `AVCodecContext.rc_max_rate`, bits per second.
    public var maxRate: Int64?
    /// `AVCodecContext.rc_buffer_size`, bits.
    public var bufferSize: Int32?
    /// `AVCodecContext.profile` for encoders that take a number (libvpx).
    public var profileNumber: Int32?
    /// The encoder's private options (`profile`, `tune`, `level`…).
    public var privateOptions: [String: String] = [:]
    /// `key=value` entries for the encoder's own parameter string.
    public var parameters: [String] = []
    /// Whether frames must be marked as keyframes by a `KeyframeSchedule` before encoding.
    public var forcesKeyframes = false
}

extension EncoderControls {
    /// A keyframe interval in frames large enough never to fire between forced keyframes:
    /// x264's and libvpx's own maximum interval, switched off.
    static let unboundedInterval: Int32 = 1 << 20

    /// How these controls reach `codec`'s encoder.
    public func changes(for codec: VideoCodec) -> EncoderOptionChanges {
        var c = EncoderOptionChanges()
        c.maxRate = maxRate.map(Int64.init)
        c.bufferSize = bufferSize.map { Int32(clamping: $0) }
        switch (codec, gop) {
        case (_, nil):
            break
        case (.h264, .frames(let n)):
            c.parameters += ["keyint=\(n)", "min-keyint=\(n)", "scenecut=0"]
        case (.h264, .duration):
            c.parameters += ["keyint=infinite", "scenecut=0"]
            c.forcesKeyframes = true
        case (.hevc, .frames(let n)):
            c.parameters += ["keyint=\(n)", "min-keyint=\(n)", "scenecut=0", "open-gop=0"]
        case (.hevc, .duration):
            // Forced I frames would be CRA pictures in x265's open GOPs; segments need IDR.
            c.parameters += ["keyint=-1", "scenecut=0", "open-gop=0"]
            c.privateOptions["forced-idr"] = "1"
            c.forcesKeyframes = true
        case (.vp9, .frames(let n)):
            c.gopSize = Int32(n)
            c.minKeyframeInterval = Int32(n)
        case (.vp9, .duration):
            c.gopSize = Self.unboundedInterval
            c.minKeyframeInterval = Self.unboundedInterval
            c.forcesKeyframes = true
        case (.av1, .frames(let n)):
            c.gopSize = Int32(n)
            c.parameters += ["scd=0"]
        case (.av1, .duration):
            preconditionFailure("refused by validate(for:bitRate:)")
        }
        if case .frames(let n) = gop, codec == .h264 || codec == .hevc {
            c.gopSize = Int32(n)
            c.minKeyframeInterval = Int32(n)
        }
        if let profile {
            switch codec {
            case .h264, .hevc: c.privateOptions["profile"] = profile
            case .vp9: c.profileNumber = Int32(profile)
            case .av1: break  // Main is SVT-AV1's only profile here
            }
        }
        if let level {
            switch codec {
            case .h264: c.privateOptions["level"] = CodecLevelLimits.limits(codec: .h264, level: level)?.name ?? level
            case .hevc: c.parameters.append("level-idc=\(CodecLevelLimits.limits(codec: .hevc, level: level)?.name ?? level)")
            case .vp9: c.privateOptions["level"] = level
            case .av1: break
            }
        }
        if let tune {
            switch codec {
            case .h264, .hevc: c.privateOptions["tune"] = tune
            case .vp9 where tune == "screen" || tune == "film": c.privateOptions["tune-content"] = tune
            case .vp9: c.privateOptions["tune"] = tune
            case .av1: c.parameters.append("tune=\(tune == "vq" ? 0 : 1)")
            }
        }
        return c
    }
}
