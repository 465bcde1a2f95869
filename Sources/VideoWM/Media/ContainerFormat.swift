import CFFmpeg

/// The container an output's file name chooses (FFmpeg's guess from the extension), asked
/// what it can hold before anything is opened.
struct ContainerFormat {
    /// FFmpeg's name of the muxer ("mp4", "webm", "image2").
    let name: String
    private let format: UnsafePointer<AVOutputFormat>

    /// nil when no muxer goes by the file's extension.
    init?(forOutput path: String) {
        guard let format = av_guess_format(nil, path, nil) else { return nil }
        self.format = format
        name = String(cString: format.pointee.name)
    }

    enum Answer { case yes, no, notSaid }

    /// Whether the container can hold what the named encoder makes. Some muxers (GIF) do not
    /// say, and `notSaid` leaves the decision to the caller.
    func holds(outputOf encoderName: String) -> Answer {
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else { return .no }
        return Self.answer(of: format, holding: encoder.pointee.id)
    }

    /// Whether what the named encoder makes is the container's own default video codec.
    func isDefaultVideo(ofEncoder encoderName: String) -> Bool {
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else { return false }
        return format.pointee.video_codec == encoder.pointee.id
    }

    /// The muxer's own answer, or, for FFmpeg's MPEG-TS muxer, which has no codec list, the
    /// codecs it gives a stream type of their own (`transportStreamCodecs`).
    static func answer(of format: UnsafePointer<AVOutputFormat>, holding codec: AVCodecID) -> Answer {
        switch avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL) {
        case 1: return .yes
        case 0: return .no
        default:
            guard String(cString: format.pointee.name) == "mpegts" else { return .notSaid }
            return transportStreamCodecs.contains(codec.rawValue) ? .yes : .no
        }
    }

    /// The codecs FFmpeg 5.1's MPEG-TS muxer writes with a stream type readers recognise
    /// (`get_dvb_stream_type` in mpegtsenc.c); anything else it muxes as "private data" that
    /// a reader does not recognise (FLAC, VP9, text subtitles), which is as good as lost. AAC
    /// from an MP4 or MKV (raw frames with an AudioSpecificConfig) gets its ADTS headers from
    /// the muxer, as broadcast and HLS-TS streams carry it; H.264 and HEVC are turned into
    /// Annex B by the muxer's own bitstream filters. (A .m2ts name makes the muxer use Blu-ray's
    /// shorter list, where AAC is private data too; re-encoding it would not change that.)
    private static let transportStreamCodecs: Set<UInt32> = Set([
        AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4, AV_CODEC_ID_H264, AV_CODEC_ID_HEVC,
        AV_CODEC_ID_CAVS, AV_CODEC_ID_DIRAC, AV_CODEC_ID_VC1,
        AV_CODEC_ID_MP2, AV_CODEC_ID_MP3, AV_CODEC_ID_AAC, AV_CODEC_ID_AAC_LATM, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3,
        AV_CODEC_ID_DTS, AV_CODEC_ID_TRUEHD, AV_CODEC_ID_OPUS,
        AV_CODEC_ID_DVB_SUBTITLE, AV_CODEC_ID_DVB_TELETEXT, AV_CODEC_ID_SMPTE_KLV, AV_CODEC_ID_TIMED_ID3,
    ].map(\.rawValue))
}
