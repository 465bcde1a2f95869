import Foundation

/// What becomes of one input stream other than the video in an output: the stream
/// mapping decisions, made from the container's abilities and `--audio`, apart from doing them.
enum StreamRoute: Equatable {
    /// Copied packet for packet.
    case copy
    /// Audio decoded and encoded again with this FFmpeg encoder; `notice` when it was not asked for.
    case reencodeAudio(encoder: String, notice: Bool)
    /// Text subtitles converted to the text format this encoder writes.
    case convertSubtitles(encoder: String)
    /// Left out: `--audio none` (silently), or the container cannot hold it (said).
    case drop(notice: Bool)

    /// The route for `stream` into `muxer`'s container.
    static func route(for stream: InputStream, into muxer: Muxer, audio mode: EncodeSettings.AudioMode) -> StreamRoute {
        // HLS segments carry video and audio; subtitles would need a WebVTT rendition of their own.
        let accepted = muxer.accepts(stream.codec) && (!muxer.writesFragmentsInMemory || stream.mediaType == .audio)
        switch stream.mediaType {
        case .audio:
            switch mode {
            case .none: return .drop(notice: false)
            case .aac: return .reencodeAudio(encoder: "aac", notice: false)
            case .opus: return .reencodeAudio(encoder: "libopus", notice: false)
            case .copy:
                if accepted { return .copy }
                // The container's usual audio: Opus for WebM, AAC for the others.
                return .reencodeAudio(encoder: muxer.formatName == "webm" ? "libopus" : "aac", notice: true)
            }
        case .subtitle where !accepted && stream.codec.isTextSubtitle && !muxer.writesFragmentsInMemory:
            if let encoder = textSubtitleEncoder(for: muxer), muxer.accepts(encoderNamed: encoder) { return .convertSubtitles(encoder: encoder) }
            return .drop(notice: true)
        default:
            return accepted ? .copy : .drop(notice: true)
        }
    }

    /// The encoder that turns text subtitles into what `muxer`'s container holds, if any.
    static func textSubtitleEncoder(for muxer: Muxer) -> String? {
        if muxer.isMP4Family { return "mov_text" }
        if muxer.formatName == "webm" { return "webvtt" }
        return nil
    }
}

/// The muxer's options for an output: MP4 and MOV get their index at the front, and the
/// video track keeps the input's clock, so every timestamp (and edit list) is stored exactly.
func muxerOptions(for muxer: Muxer, videoTimeBase timeBase: Rational) -> [String: String] {
    guard muxer.isMP4Family else { return [:] }
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
