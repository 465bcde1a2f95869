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

    /// Whether the container can hold what the named encoder makes. Some muxers (MPEG-TS,
    /// GIF) do not say, and `notSaid` leaves the decision to the caller.
    func holds(outputOf encoderName: String) -> Answer {
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else { return .no }
        switch avformat_query_codec(format, encoder.pointee.id, FF_COMPLIANCE_NORMAL) {
        case 1: return .yes
        case 0: return .no
        default: return .notSaid
        }
    }

    /// Whether what the named encoder makes is the container's own default video codec.
    func isDefaultVideo(ofEncoder encoderName: String) -> Bool {
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else { return false }
        return format.pointee.video_codec == encoder.pointee.id
    }
}
