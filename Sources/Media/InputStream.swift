internal import CFFmpeg
import Overlay

/// One stream of an opened input file, with what the pipeline reads of it. Holds the file,
/// whose demuxer owns the stream.
package struct InputStream {
    package let file: InputFile
    let pointer: UnsafeMutablePointer<AVStream>

    package var index: Int { Int(pointer.pointee.index) }
    package var mediaType: MediaType { MediaType(pointer.pointee.codecpar.pointee.codec_type) }
    package var codec: CodecID { CodecID(pointer.pointee.codecpar.pointee.codec_id) }
    package var timeBase: Rational { Rational(pointer.pointee.time_base) }
    /// A picture attached to an audio file or video (album art), not a video.
    var isCoverArt: Bool { pointer.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 }

    /// The stream's own duration in its time base, when the file gives it.
    package var duration: Int64? {
        let d = pointer.pointee.duration
        return d > 0 && d != vwm_nopts_value() ? d : nil
    }

    package var language: String? {
        av_dict_get(pointer.pointee.metadata, "language", nil, 0).map { String(cString: $0.pointee.value) }
    }

    package var averageFrameRate: Rational { Rational(pointer.pointee.avg_frame_rate) }
    package var sampleRate: Int { Int(pointer.pointee.codecpar.pointee.sample_rate) }
    package var channelCount: Int { Int(pointer.pointee.codecpar.pointee.ch_layout.nb_channels) }

    /// The rotation players apply to the stream (its display matrix), in clockwise quarter turns.
    package var displayRotation: DisplayRotation {
        var size: Int = 0
        guard let data = av_stream_get_side_data(pointer, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return .upright }
        let counterclockwise = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard counterclockwise.isFinite else { return .upright }
        return DisplayRotation(clockwiseQuarterTurns: Int((-counterclockwise / 90).rounded()))
    }

    /// The codec's out-of-band header: an avcC/hvcC record (MP4, Matroska), Annex B parameter
    /// sets (MPEG-TS), or nothing.
    package var extradata: [UInt8] {
        let par = pointer.pointee.codecpar.pointee
        guard let data = par.extradata, par.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(par.extradata_size)))
    }

    /// FFmpeg's name for the stream's profile ("High", "Main 10"), nil when unknown.
    package var profileName: String? {
        let par = pointer.pointee.codecpar.pointee
        guard par.profile >= 0, let name = avcodec_profile_name(par.codec_id, par.profile) else { return nil }
        return String(cString: name)
    }

    /// The codec's level number (H.264: 31 for 3.1; HEVC: 93 for 3.1), nil when unknown.
    package var level: Int? {
        let level = Int(pointer.pointee.codecpar.pointee.level)
        return level > 0 ? level : nil
    }

    /// Pictures of reordering delay: how many frames a decoder holds back (B-frames).
    package var reorderDelay: Int { Int(pointer.pointee.codecpar.pointee.video_delay) }

    /// The pictures are coded as fields (interlaced), as far as the demuxer and a first decode tell.
    package var isInterlaced: Bool {
        let order = pointer.pointee.codecpar.pointee.field_order
        return order != AV_FIELD_UNKNOWN && order != AV_FIELD_PROGRESSIVE
    }

    /// The video as an encoder set up to replace it needs to know it.
    package var video: VideoStreamDescription {
        let par = pointer.pointee.codecpar.pointee
        return VideoStreamDescription(
            width: Int(par.width), height: Int(par.height), pixelFormat: PixelFormat(AVPixelFormat(rawValue: par.format)),
            codecSampleAspect: Rational(par.sample_aspect_ratio), streamSampleAspect: Rational(pointer.pointee.sample_aspect_ratio),
            timeBase: timeBase, averageFrameRate: averageFrameRate, realFrameRate: Rational(pointer.pointee.r_frame_rate),
            color: ColorDescription(primaries: par.color_primaries, transfer: par.color_trc, matrix: par.color_space, range: par.color_range,
                                    chromaLocation: par.chroma_location),
            rotation: displayRotation, fieldOrder: FieldOrder(par.field_order),
            // VP9 and VP8 keep alpha beside the picture (Matroska's BlockAdditions, "alpha_mode"),
            // which FFmpeg's own decoders do not read: the pixel format then says nothing of it.
            hasAlpha: PixelFormat(AVPixelFormat(rawValue: par.format)).hasAlpha || tag("alpha_mode") == "1")
    }
}

/// The order of an interlaced video's fields, as its codec or container declares it.
package enum FieldOrder: Equatable, Sendable {
    case progressive
    /// Not declared.
    case unknown
    /// Interlaced: which field is shown first, and which is coded first (FFmpeg's `AVFieldOrder`
    /// in Swift values, so the type can leave Media).
    case interlaced(topFieldFirst: Bool, topFieldCodedFirst: Bool)

    init(_ order: AVFieldOrder) {
        switch order {
        case AV_FIELD_PROGRESSIVE: self = .progressive
        // TT and BT show the top field first; BB and TB the bottom one. TT and TB code the top field first.
        case AV_FIELD_TT: self = .interlaced(topFieldFirst: true, topFieldCodedFirst: true)
        case AV_FIELD_BT: self = .interlaced(topFieldFirst: true, topFieldCodedFirst: false)
        case AV_FIELD_BB: self = .interlaced(topFieldFirst: false, topFieldCodedFirst: false)
        case AV_FIELD_TB: self = .interlaced(topFieldFirst: false, topFieldCodedFirst: true)
        default: self = .unknown
        }
    }

    /// FFmpeg's value for an interlaced order; nil otherwise.
    var av: AVFieldOrder? {
        guard case .interlaced(let topShown, let topCoded) = self else { return nil }
        switch (topShown, topCoded) {
        case (true, true): return AV_FIELD_TT
        case (true, false): return AV_FIELD_BT
        case (false, false): return AV_FIELD_BB
        case (false, true): return AV_FIELD_TB
        }
    }

    package var isInterlaced: Bool {
        if case .interlaced = self { return true }
        return false
    }

    /// "top field first" or "bottom field first"; nil when not interlaced.
    package var name: String? {
        guard case .interlaced(let top, _) = self else { return nil }
        return top ? "top field first" : "bottom field first"
    }
}

/// What a video stream holds: everything an encoder replacing it is set up from.
package struct VideoStreamDescription: Equatable {
    package var width: Int
    package var height: Int
    package var pixelFormat: PixelFormat
    /// The codec's sample aspect ratio (0/1 when it does not say).
    package var codecSampleAspect: Rational
    /// The container's, used when the codec does not say.
    var streamSampleAspect: Rational
    package var timeBase: Rational
    var averageFrameRate: Rational
    var realFrameRate: Rational
    package var color: ColorDescription
    package var rotation: DisplayRotation
    package var fieldOrder: FieldOrder = .progressive
    /// The stream carries transparency (an alpha pixel format, or VP8/VP9 alpha beside it).
    package var hasAlpha = false

    /// The stored pixels' shape; square when unknown.
    package var pixelAspect: PixelAspect {
        let sar = codecSampleAspect.numerator > 0 ? codecSampleAspect : streamSampleAspect
        return PixelAspect(numerator: Int(sar.numerator), denominator: Int(sar.denominator))
    }

    /// The frame rate to declare: the average, else the container's base rate; nil when neither is known.
    package var frameRate: Rational? {
        let rate = averageFrameRate.numerator > 0 ? averageFrameRate : realFrameRate
        return rate.isValid ? rate : nil
    }
}

/// A stream's kind (FFmpeg's `AVMediaType`).
package enum MediaType: Equatable {
    case video, audio, subtitle, data, attachment, unknown

    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
        default: self = .unknown
        }
    }

    /// FFmpeg's name ("video", "audio"…).
    package var name: String {
        switch self {
        case .video: "video"
        case .audio: "audio"
        case .subtitle: "subtitle"
        case .data: "data"
        case .attachment: "attachment"
        case .unknown: "unknown"
        }
    }
}

/// A codec (FFmpeg's `AVCodecID`).
package struct CodecID: Equatable, Sendable {
    let av: AVCodecID

    init(_ av: AVCodecID) { self.av = av }

    static let flac = CodecID(AV_CODEC_ID_FLAC)
    package static let h264 = CodecID(AV_CODEC_ID_H264)
    static let hevc = CodecID(AV_CODEC_ID_HEVC)
    static let vp9 = CodecID(AV_CODEC_ID_VP9)
    static let av1 = CodecID(AV_CODEC_ID_AV1)
    static let aac = CodecID(AV_CODEC_ID_AAC)
    static let opus = CodecID(AV_CODEC_ID_OPUS)

    /// FFmpeg's name ("h264", "subrip").
    package var name: String { String(cString: avcodec_get_name(av)) }

    /// Subtitles made of text (so they can be re-encoded as another text format), not bitmaps.
    package var isTextSubtitle: Bool {
        guard let descriptor = avcodec_descriptor_get(av) else { return false }
        return descriptor.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0
    }
}
