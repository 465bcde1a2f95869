/// How the video is re-encoded: the `--codec`, `--crf`, `--preset`, `--bitrate` and
/// `--threads` options, and the delivery controls (`--gop`, `--maxrate`/`--bufsize`,
/// `--profile`, `--level`, `--tune`) in `controls`.
public struct EncodeSettings: Sendable, Equatable {
    /// `--audio`: `copy` (re-encoded only where the container cannot hold the input's audio), `aac`, `opus`, or `none`.
    public enum AudioMode: String, Sendable, CaseIterable { case copy, aac, opus, none }

    /// nil: the container's usual codec (h264, or vp9 for .webm outputs).
    public var codec: VideoCodec?
    /// Constant quality, lower is better (x264/x265 0…51, VP9/AV1 0…63); nil: the codec's default.
    public var crf: Int?
    /// The encoder's speed preset (`veryfast`; VP9 and AV1 a speed number); nil: its default.
    public var preset: String?
    /// Target video bit rate in bits per second.
    public var bitRate: Int?
    /// What happens to the audio.
    public var audio: AudioMode
    /// Codec threads; 0 lets FFmpeg choose, as the ffmpeg tool does.
    public var threads: Int
    /// Keyframe interval, decoder-buffer cap, profile, level and tune.
    public var controls: EncoderControls
    /// The output picture's size (`--scale`, `--width`, `--height`, `--max-size`); nil keeps the input's.
    public var scale: ScaleRequest? = nil
    /// The output's container tags set with `--set-metadata` (title, comment, copyright),
    /// replacing the input's.
    public var tags: [String: String] = [:]
    /// Whether `scale` may enlarge the picture (`--upscale`); without it a larger request keeps the input's size.
    public var upscale = false
    /// B-frames x264 or x265 may put between reference pictures, at most; nil: the preset's
    /// (3 for x264's medium). A lecture with a variant layer asks for none (`forVariantLecture`).
    public var bFrames: Int? = nil

    /// Settings whose every unset value is the codec's default.
    public init(codec: VideoCodec? = nil, crf: Int? = nil, preset: String? = nil, bitRate: Int? = nil,
                audio: AudioMode = .copy, threads: Int = 0, controls: EncoderControls = EncoderControls()) {
        self.codec = codec
        self.crf = crf
        self.preset = preset
        self.bitRate = bitRate
        self.audio = audio
        self.threads = threads
        self.controls = controls
    }

    /// Why the input's own video packets cannot be what these settings ask for (a packet copy
    /// keeps the input's size, keyframes, rate and profile): the one place that decides it, for
    /// a clean batch row, smart rendering's copied GOPs and an HLS row's shared segments alike.
    /// Nil when a copy honours every option.
    var whyCopiesCannotHonour: String? {
        if scale != nil { return "a size option asks for another picture size than the input's" }
        let options = [(controls.gop != nil, "--gop"), (controls.maxRate != nil, "--maxrate"), (controls.bufferSize != nil, "--bufsize"),
                       (controls.profile != nil, "--profile"), (controls.level != nil, "--level"), (controls.tune != nil, "--tune")]
        return options.first(where: \.0).map { "\($0.1) asks for what the copied GOPs, the input's own, cannot change" }
    }

    /// Whether the video must be re-encoded even where nothing is marked (see `whyCopiesCannotHonour`).
    var copyCannotHonour: Bool { whyCopiesCannotHonour != nil }

    /// The codec the video of `target` is encoded with: `--codec`, else its container's usual one.
    public func videoCodec(for target: OutputTarget) -> VideoCodec {
        codec ?? target.container.defaultVideoCodec
    }

    /// These settings for a lecture with a variant layer (docs/design/variant-marks.md §6), whose every
    /// segment is re-encoded, as a student's own segments and as the shared variants: without
    /// B-frames. A student's own segments then cost what the spans of a batch without the layer
    /// cost (smart rendering's spans are encoded without B-frames, to splice between the input's
    /// GOPs), so the layer adds nothing to a row's encoding: x264 with B-frames took 1.22 × the
    /// CPU of a row's own seconds, without them 0.99 × (issue 29's measurement). The shared
    /// variants, encoded once for the class, grow by what B-frames would have saved.
    public var forVariantLecture: EncodeSettings {
        var settings = self
        if settings.bFrames == nil { settings.bFrames = 0 }
        return settings
    }

    /// Private options for the encoder (`avcodec_open2`'s dictionary), with the controls'
    /// own (`changes`) merged in: their parameters join the encoder's parameter string.
    func encoderOptions(for codec: VideoCodec, changes: EncoderOptionChanges) -> [String: String] {
        var options: [String: String] = [:]
        var parameters: [String] = []
        switch codec {
        case .h264, .hevc:
            if bitRate == nil { options["crf"] = String(crf ?? codec.defaultCRF) }
            if let preset { options["preset"] = preset }
            if codec == .hevc { parameters.append("log-level=error") }
            if let bFrames { parameters.append("bframes=\(bFrames)") }
        case .vp9:
            if bitRate == nil { options["crf"] = String(crf ?? codec.defaultCRF) }
            options["row-mt"] = "1"
            options["deadline"] = "good"
            options["cpu-used"] = preset ?? "4"
        case .av1:
            if bitRate == nil { options["crf"] = String(crf ?? codec.defaultCRF) }
            options["preset"] = preset ?? "8"
        }
        options.merge(changes.privateOptions) { _, control in control }
        parameters += changes.parameters
        if !parameters.isEmpty, let key = codec.parameterOption { options[key] = parameters.joined(separator: ":") }
        return options
    }
}

extension VideoCodec {
    /// The private option that takes `key=value:key=value` parameters of the encoder library.
    var parameterOption: String? {
        switch self {
        case .h264: "x264-params"
        case .hevc: "x265-params"
        case .vp9: nil
        case .av1: "svtav1-params"
        }
    }

    /// Quality when neither --crf nor --bitrate is given (each encoder's own usual default).
    var defaultCRF: Int {
        switch self {
        case .h264: 23
        case .hevc: 28
        case .vp9: 32
        case .av1: 35
        }
    }
}
