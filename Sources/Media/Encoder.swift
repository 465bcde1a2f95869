internal import CFFmpeg

/// An owned encoding `AVCodecContext`.
package final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>
    let file: String

    /// Creates (but does not open) an encoder; the caller fills in the context, then calls `open`.
    init(codecName: String, file: String) throws {
        self.file = file
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw EncoderError(encoder: codecName, file: file, problem: .unavailable)
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceError.memory("creating an encoder") }
        self.codec = codec
        context = ctx
    }

    /// An opened video encoder set up as `configuration` says.
    package convenience init(_ configuration: VideoEncoderConfiguration, file: String) throws {
        try self.init(codecName: configuration.encoderName, file: file)
        let c = context
        c.pointee.pix_fmt = configuration.pixelFormat.av
        c.pointee.width = Int32(configuration.width)
        c.pointee.height = Int32(configuration.height)
        c.pointee.sample_aspect_ratio = configuration.sampleAspect.av
        c.pointee.time_base = configuration.timeBase.av
        if let rate = configuration.frameRate { c.pointee.framerate = rate.av }
        c.pointee.color_primaries = configuration.color.primaries
        c.pointee.color_trc = configuration.color.transfer
        c.pointee.colorspace = configuration.color.matrix
        c.pointee.color_range = configuration.color.range
        c.pointee.chroma_sample_location = configuration.color.chromaLocation
        c.pointee.thread_count = Int32(X264Determinism.threads(configuration.threads, encoderName: configuration.encoderName,
                                                               maxRate: configuration.maxRate))
        c.pointee.bit_rate = Int64(configuration.bitRate ?? 0)
        if let maxRate = configuration.maxRate { c.pointee.rc_max_rate = Int64(maxRate) }
        if let bufferSize = configuration.bufferSize { c.pointee.rc_buffer_size = Int32(clamping: bufferSize) }
        if let gopSize = configuration.gopSize { c.pointee.gop_size = Int32(clamping: gopSize) }
        if let interval = configuration.minKeyframeInterval { c.pointee.keyint_min = Int32(clamping: interval) }
        if let profile = configuration.profileNumber { c.pointee.profile = Int32(clamping: profile) }
        if configuration.globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        if let order = configuration.fieldOrder.av {
            c.pointee.flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME
            c.pointee.field_order = order
        }
        try open(options: X264Determinism.options(configuration.options, encoderName: configuration.encoderName, width: configuration.width))
        reorderDelay = Int(c.pointee.has_b_frames)
        // libx265 leaves has_b_frames at 0 (FFmpeg 5.1) though its stream reorders (2 pictures with
        // its default B-pyramid): the global header's SPS says how many (sps_max_num_reorder_pics),
        // and FFmpeg's own HEVC decoder reads it from there when opened on it.
        if reorderDelay == 0, codec.pointee.id == AV_CODEC_ID_HEVC, !extradata.isEmpty {
            reorderDelay = try Decoder(decodingOutputOf: self, file: file).reorderDelay
        }
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    package var name: String { String(cString: codec.pointee.name) }

    package var timeBase: Rational { Rational(context.pointee.time_base) }
    /// Pictures the encoder may output before it is shown (B-frame reordering, `has_b_frames`, or
    /// for libx265 its parameter sets'), set when a video encoder opens.
    package private(set) var reorderDelay = 0
    var pixelFormat: PixelFormat { PixelFormat(context.pointee.pix_fmt) }
    var width: Int { Int(context.pointee.width) }
    var height: Int { Int(context.pointee.height) }

    /// The codec's global header (H.264/HEVC parameter sets in Annex B form) when opened with one.
    package var extradata: [UInt8] {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }

    /// Pixel formats the encoder named `name` accepts (empty when it does not say).
    package static func supportedPixelFormats(ofEncoderNamed name: String) throws -> [PixelFormat] {
        guard let codec = avcodec_find_encoder_by_name(name) else { throw EncoderError(encoder: name, problem: .unavailable) }
        guard var p = codec.pointee.pix_fmts else { return [] }
        var formats: [PixelFormat] = []
        while p.pointee != AV_PIX_FMT_NONE {
            formats.append(PixelFormat(p.pointee))
            p += 1
        }
        return formats
    }

    func open(options: [String: String]) throws {
        var dict: OpaquePointer?
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        let code = avcodec_open2(context, codec, &dict)
        var leftover: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let e = av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            leftover.append(String(cString: e.pointee.key))
            entry = e
        }
        av_dict_free(&dict)
        // EAGAIN here is pthread_create's: the encoder's threads could not start.
        // x264 says only "external library" when its threads cannot start: ask the system.
        if code == AVErrorCode.tryAgain || (code < 0 && !SecondThreadWork<Void>.canStartThread()) {
            throw ResourceError(.threads, "for the \(name) encoder of \(file)")
        }
        try check(code) { EncoderError(encoder: name, file: file, problem: .openFailed, code: $0) }
        if !leftover.isEmpty {
            throw EncoderError(encoder: name, file: file, problem: .optionsNotTaken(leftover))
        }
    }

    /// Sends a frame, or nil to drain.
    package func send(_ frame: Frame?) throws {
        let code = avcodec_send_frame(context, frame?.pointer)
        if code != AVErrorCode.endOfFile { try check(code, OutputError.call("encoding with \(name)", file: file)) }
    }

    package func receive(into packet: Packet) throws -> CodecStep {
        let code = avcodec_receive_packet(context, packet.pointer)
        if code == AVErrorCode.tryAgain { return .needsInput }
        if code == AVErrorCode.endOfFile { return .endOfStream }
        try check(code, OutputError.call("encoding with \(name)", file: file))
        return .produced
    }

    /// Writes every packet the encoder has ready to `sink`, using `packet` as scratch space.
    package func writePackets(to sink: PacketSink, using packet: Packet) throws {
        while try receive(into: packet) == .produced {
            try sink.write(packet, timeBase: timeBase)
            packet.unref()
        }
    }
}

/// What a send/receive call pair reports: a result, a request for more input, or the end.
package enum CodecStep {
    case produced
    case needsInput
    case endOfStream
}

/// How a video encoder is set up: a value, so the decisions (pixel format, size, colour)
/// are made and tested apart from FFmpeg's structs.
package struct VideoEncoderConfiguration: Equatable {
    /// FFmpeg's encoder name ("libx264").
    package var encoderName: String
    package var pixelFormat: PixelFormat
    package var width: Int
    package var height: Int
    var sampleAspect: Rational
    var timeBase: Rational
    var frameRate: Rational?
    var color: ColorDescription
    /// Codec threads; 0 lets FFmpeg choose.
    var threads: Int
    /// Target bit rate in bits per second; nil for constant quality.
    package var bitRate: Int?
    /// The decoder buffer (VBV) model: its fill rate in bits per second and its size in bits; nil leaves it off.
    package var maxRate: Int? = nil
    package var bufferSize: Int? = nil
    /// The container wants codec headers out of band (MP4, Matroska…).
    var globalHeader: Bool
    /// The encoder's private options (`crf`, `preset`…).
    package var options: [String: String]
    /// Frames between keyframes (`gop_size`) and at least between them (`keyint_min`); nil: the encoder's.
    var gopSize: Int? = nil
    var minKeyframeInterval: Int? = nil
    /// `AVCodecContext.profile` for encoders that take a number (libvpx); nil: the encoder's.
    var profileNumber: Int? = nil
    /// Keyframes placed by presentation time: the frame path asks for one on each frame a
    /// `KeyframeSchedule` of this interval picks (`Frame.requestKeyframe`); nil: none forced.
    package var forcedKeyframes: KeyframeInterval? = nil
    /// Interlaced coding with this field order (each frame's own `top_field_first` tells
    /// the encoder which field comes first); progressive otherwise.
    package var fieldOrder: FieldOrder = .progressive

    /// The memberwise initializer, spelt out so VideoWM can call it.
    package init(encoderName: String, pixelFormat: PixelFormat, width: Int, height: Int, sampleAspect: Rational,
                 timeBase: Rational, frameRate: Rational? = nil, color: ColorDescription, threads: Int,
                 bitRate: Int? = nil, maxRate: Int? = nil, bufferSize: Int? = nil, globalHeader: Bool,
                 options: [String: String], gopSize: Int? = nil, minKeyframeInterval: Int? = nil,
                 profileNumber: Int? = nil, forcedKeyframes: KeyframeInterval? = nil,
                 fieldOrder: FieldOrder = .progressive) {
        self.encoderName = encoderName
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.sampleAspect = sampleAspect
        self.timeBase = timeBase
        self.frameRate = frameRate
        self.color = color
        self.threads = threads
        self.bitRate = bitRate
        self.maxRate = maxRate
        self.bufferSize = bufferSize
        self.globalHeader = globalHeader
        self.options = options
        self.gopSize = gopSize
        self.minKeyframeInterval = minKeyframeInterval
        self.profileNumber = profileNumber
        self.forcedKeyframes = forcedKeyframes
        self.fieldOrder = fieldOrder
    }

    /// Encoders that code interlaced pictures (field or MBAFF coding) from interlaced frames.
    package static let interlacedEncoders: Set<String> = ["libx264", "mpeg2video"]
}
