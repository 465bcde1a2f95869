internal import CFFmpeg

/// The video codecs this tool encodes (`--codec`) and reasons about: the one codec enum of the
/// pipeline. Smart rendering splices three of them (`isSpliceable`), H.264 and HEVC carry NAL
/// units (`nalUnitType(ofHeaderByte:)`), and each names its FFmpeg encoder and codec id.
public enum VideoCodec: String, Sendable, CaseIterable {
    /// H.264 (x264), HEVC (x265), VP9 (libvpx) or AV1 (SVT-AV1).
    case h264, hevc, vp9, av1

    /// The codec of an input stream, nil when it is none of these.
    package init?(_ id: CodecID) {
        switch id {
        case .h264: self = .h264
        case .hevc: self = .hevc
        case .vp9: self = .vp9
        case .av1: self = .av1
        default: return nil
        }
    }

    package var codecID: CodecID {
        switch self {
        case .h264: .h264
        case .hevc: .hevc
        case .vp9: .vp9
        case .av1: .av1
        }
    }

    /// The FFmpeg encoder used for this codec.
    package var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .vp9: "libvpx-vp9"
        case .av1: "libsvtav1"
        }
    }

    /// Smart rendering splices this codec's GOPs (docs/design/smart-rendering.md: AV1 is rendered in full).
    package var isSpliceable: Bool { self != .av1 }

    /// Whether pictures are made of NAL units (H.264, HEVC), which carry parameter sets and types.
    package var usesNALUnits: Bool { self == .h264 || self == .hevc }

    /// The type field of the NAL unit header starting with `first`; nil for codecs without NAL units.
    package func nalUnitType(ofHeaderByte first: UInt8) -> Int? {
        switch self {
        case .h264: Int(first & 0x1F)
        case .hevc: Int(first >> 1) & 0x3F
        case .vp9, .av1: nil
        }
    }
}
