import Foundation

/// What becomes of one input stream other than the video in an output: the stream
/// mapping decisions, made from the container's abilities and `--audio` before anything is
/// opened, apart from doing them.
enum StreamRoute: Equatable {
    /// Copied packet for packet.
    case copy
    /// Audio decoded and encoded again with this FFmpeg encoder; `notice` when it was not asked for.
    case reencodeAudio(encoder: String, notice: Bool)
    /// Text subtitles converted to the text format this encoder writes.
    case convertSubtitles(encoder: String)
    /// Left out: `--audio none` (silently), or the container cannot hold it (said).
    case drop(notice: Bool)

    /// The route for `stream` into `target`.
    static func route(for stream: InputStream, into target: OutputTarget, audio mode: EncodeSettings.AudioMode) -> StreamRoute {
        let container = target.container
        // HLS segments carry video and audio; subtitles would need a WebVTT rendition of their own.
        let presentation = target.isPresentation
        let accepted = container.canHold(stream.codec) && (!presentation || stream.mediaType == .audio)
        switch stream.mediaType {
        case .audio:
            switch mode {
            case .none: return .drop(notice: false)
            case .aac: return .reencodeAudio(encoder: "aac", notice: false)
            case .opus: return .reencodeAudio(encoder: "libopus", notice: false)
            case .copy:
                if accepted { return .copy }
                return .reencodeAudio(encoder: container.defaultAudioEncoder, notice: true)
            }
        case .subtitle where !accepted && stream.codec.isTextSubtitle && !presentation:
            if let encoder = container.textSubtitleEncoder, container.canHold(outputOfEncoderNamed: encoder) {
                return .convertSubtitles(encoder: encoder)
            }
            return .drop(notice: true)
        default:
            return accepted ? .copy : .drop(notice: true)
        }
    }
}

/// The muxer's options for an output: MP4 and MOV get their index at the front, and the
/// video track keeps the input's clock, so every timestamp (and edit list) is stored exactly.
func muxerOptions(for muxer: Muxer, videoTimeBase timeBase: Rational) -> [String: String] {
    guard muxer.container.family == .mp4 else { return [:] }
    // HLS: one fragment per segment, cut on request; the moov written with the first fragment
    // (so its edit lists keep B-frame delay and audio priming, and the first picture shows at
    // 0); data offsets counted from each moof, so a segment's bytes do not depend on where it
    // sits in the stream; no trailing index (a presentation ends with its last segment).
    var options = ["movflags": muxer.writesFragmentsInMemory ? "+frag_custom+delay_moov+default_base_moof+skip_trailer" : "+faststart"]
    if timeBase.numerator == 1 && timeBase.denominator > 0 && timeBase.denominator <= 1_000_000 {
        options["video_track_timescale"] = String(timeBase.denominator)
        // Edit lists (a start offset, B-frame delay) count in the movie timescale: the same clock keeps them exact.
        options["movie_timescale"] = String(timeBase.denominator)
    }
    return options
}
