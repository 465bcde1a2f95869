internal import CFFmpeg
import Foundation

/// What an output path asks for, parsed once: its kind (one media file or an HLS presentation),
/// the container its bytes are written in and what that container can hold. Every layer gets
/// this value; none looks at the path's extension or at an FFmpeg muxer name again.
///
/// DASH (`.mpd`) is an HLS presentation with an MPD beside it: the same CMAF segments, written
/// by the same writer (with its temporary-then-rename guarantee), described by both manifests.
public struct OutputTarget: Sendable, Equatable {
    /// What is written at the path.
    public enum Kind: Sendable, Equatable {
        /// One media file, in the container its extension names.
        case file
        /// An HLS media playlist (`.m3u8`) and its fMP4 segments.
        case hlsPresentation
        /// One file of an HLS presentation made alone (`--only-segment`): what the presentation
        /// of the same input, marks and options has at that place, byte for byte.
        case hlsPart(PresentationPart)
    }

    /// The path as given (the file, or the playlist).
    public let path: String
    /// A file, a presentation, or one file of a presentation.
    public let kind: Kind
    /// The container the bytes are written in: the file's, or fragmented MP4 for HLS segments.
    package let container: Container
    /// A presentation's DASH manifest (MPD), written beside its HLS playlist over the same
    /// segment files: an `.mpd` path, or `--dash`. nil: HLS alone.
    public let dashManifest: String?

    /// Reads `path`: `.m3u8` is an HLS presentation, `.mpd` a DASH presentation (its segments and
    /// HLS playlist at the same path with `.m3u8`, `path` then naming that playlist), any other
    /// extension names the file's container (refused when FFmpeg knows none by it). With `part`,
    /// the path is that one file of a presentation, whatever its name.
    public init(path: String, part: PresentationPart? = nil) throws(RequestError) {
        if let part {
            self.init(kind: .hlsPart(part), path: path, container: .fragmentedMP4)
            return
        }
        switch (path as NSString).pathExtension.lowercased() {
        case "m3u8":
            self.init(kind: .hlsPresentation, path: path, container: .fragmentedMP4)
        case "mpd":
            self.init(kind: .hlsPresentation, path: (path as NSString).deletingPathExtension + ".m3u8", container: .fragmentedMP4,
                      dashManifest: path)
        default:
            guard let container = Container(forExtensionOf: path) else {
                throw RequestError(subject: path, problem: "unknown output format (use an extension such as .mp4, .mov, .mkv or .webm)")
            }
            self.init(kind: .file, path: path, container: container)
        }
    }

    /// The same kind of output at another path (a batch row's, from its template's): a DASH
    /// presentation's MPD and playlist there, whichever of the two `path` names.
    public func relocated(to path: String) -> OutputTarget {
        guard dashManifest != nil else { return OutputTarget(kind: kind, path: path, container: container) }
        let stem = (path as NSString).deletingPathExtension
        return OutputTarget(kind: kind, path: stem + ".m3u8", container: container, dashManifest: stem + ".mpd")
    }

    /// The presentation with its MPD beside its playlist (`--dash`): the playlist's path with
    /// `.mpd`. Only a presentation has one (the caller refuses `--dash` for anything else).
    public func withDASHManifest() -> OutputTarget {
        precondition(kind == .hlsPresentation, "only a whole presentation has a DASH manifest")
        return OutputTarget(kind: kind, path: path, container: container, dashManifest: (path as NSString).deletingPathExtension + ".mpd")
    }

    package init(kind: Kind, path: String, container: Container, dashManifest: String? = nil) {
        self.kind = kind
        self.path = path
        self.container = container
        self.dashManifest = dashManifest
    }

    /// An HLS presentation, or one file of one: segments carry video and audio only.
    package var isPresentation: Bool {
        switch kind {
        case .file: false
        case .hlsPresentation, .hlsPart: true
        }
    }

    /// One MP4 file (`.mp4`, `.m4v`): what a presentation's fragments can be joined into (a
    /// variant lecture's row, `FragmentedMP4File`).
    package var isMP4File: Bool { kind == .file && (container.muxerName == "mp4" || container.muxerName == "ipod") }

    /// ".webm": how messages name the kind of file ("a .webm file cannot hold h264 video").
    public var fileType: String { "." + (path as NSString).pathExtension }
}

/// One file of an HLS presentation, by the name its lecture gives it (`--only-segment`): `K` or
/// `init` for a presentation of one rendition, `RENDITION/FILE` for any file of any presentation
/// ("720p/3.m4s", "subs-en/0.vtt"), `playlist.m3u8` or `RENDITION.m3u8` for a playlist. What it
/// names is the lecture's to say (`Lecture.resource(named:)`).
public struct PresentationPart: Sendable, Equatable, CustomStringConvertible {
    public let name: String

    public init(name: String) {
        self.name = name
    }

    public var description: String { name }
}

/// A muxer's container and the questions the pipeline asks of it, answered in this one place:
/// whether it can hold a codec, its family's habits (MP4's index and edit lists, Matroska's
/// negative times, MPEG-TS's in-band parameter sets), its usual audio and subtitle formats.
package struct Container: Sendable, Equatable {
    /// The families whose muxers share options and behaviour.
    package enum Family: Sendable, Equatable {
        /// MP4, MOV and their relatives (`ipod`, `3gp`, …): one muxer, movenc.
        case mp4
        case matroska
        case webm
        case mpegts
        case other
    }

    /// FFmpeg's name of the muxer ("mp4", "webm", "image2"): how `Muxer` opens it.
    let muxerName: String
    package let family: Family

    /// The container FFmpeg's muxer for `path`'s extension writes; nil when there is none.
    init?(forExtensionOf path: String) {
        guard let format = av_guess_format(nil, path, nil) else { return nil }
        self.init(muxerName: String(cString: format.pointee.name))
    }

    private init(muxerName: String) {
        self.muxerName = muxerName
        switch muxerName {
        case "mp4", "mov", "ipod", "3gp", "3g2", "psp", "ismv", "f4v": family = .mp4
        case "matroska": family = .matroska
        case "webm": family = .webm
        case "mpegts": family = .mpegts
        default: family = .other
        }
    }

    /// The segments of an HLS presentation.
    package static let fragmentedMP4 = Container(muxerName: "mp4")

    /// FFmpeg's description of the muxer; every name here is one FFmpeg gave, so it is found.
    var format: UnsafePointer<AVOutputFormat> {
        guard let format = av_guess_format(muxerName, nil, nil) else { preconditionFailure("FFmpeg lost its \(muxerName) muxer") }
        return format
    }

    /// Whether the container can hold a stream of `codec`: the muxer says so; or, for FFmpeg's
    /// MPEG-TS muxer, which has no codec list, the codec is one it gives a stream type of its own
    /// (`transportStreamCodecs`); or, for another muxer that does not say (GIF), it is the
    /// muxer's own default. FFmpeg 5.1's MP4 muxer lists FLAC but refuses it at write time as
    /// experimental.
    package func canHold(_ codec: CodecID) -> Bool {
        if codec == .flac && family == .mp4 { return false }
        switch avformat_query_codec(format, codec.av, FF_COMPLIANCE_NORMAL) {
        case 1: return true
        case 0: return false
        default:
            if family == .mpegts { return Self.transportStreamCodecs.contains(codec.av.rawValue) }
            let f = format.pointee
            return codec.av != AV_CODEC_ID_NONE && [f.video_codec, f.audio_codec, f.subtitle_codec].contains(codec.av)
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

    /// Whether the container can hold what the encoder named `name` makes.
    package func canHold(outputOfEncoderNamed name: String) -> Bool {
        guard let encoder = avcodec_find_encoder_by_name(name) else { return false }
        return canHold(CodecID(encoder.pointee.id))
    }

    /// The video codec an output gets without `--codec`: VP9 for WebM, else H.264.
    package var defaultVideoCodec: VideoCodec { family == .webm ? .vp9 : .h264 }

    /// The encoder for audio the container cannot hold as it is: Opus for WebM, AAC for the others.
    package var defaultAudioEncoder: String { family == .webm ? "libopus" : "aac" }

    /// The encoder that turns text subtitles into what the container holds, if it needs one.
    package var textSubtitleEncoder: String? {
        switch family {
        case .mp4: "mov_text"
        case .webm: "webvtt"
        case .matroska, .mpegts, .other: nil
        }
    }

    /// Codec headers go out of band (MP4, Matroska): encoders are opened with a global header.
    package var needsGlobalHeader: Bool { format.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// H.264/HEVC are stored Annex B with their parameter sets in band (MPEG-TS).
    package var storesAnnexB: Bool { family == .mpegts }

    /// Smart rendering's splices were checked in these (docs/design/smart-rendering.md).
    package var isSpliceable: Bool {
        switch family {
        case .mp4: muxerName == "mp4" || muxerName == "mov"
        case .matroska, .webm, .mpegts: true
        case .other: false
        }
    }
}
