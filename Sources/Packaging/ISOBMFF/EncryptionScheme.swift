/// A Common Encryption protection scheme (ISO/IEC 23001-7 §10).
///
/// - `cenc`: AES-128 in counter mode. Audio is encrypted whole; H.264 by subsample (NAL header and slice header
///   clear, the protected part a multiple of 16 bytes as CMAF asks, every other NAL unit clear). Widevine and
///   PlayReady's usual scheme, DASH's default.
/// - `cbcs`: AES-128-CBC with a constant IV, H.264 slice data by the 1:9 pattern (one 16-byte block encrypted, nine
///   clear, from the first byte after the slice header; a partial block at the end clear; the chain restarted with
///   the constant IV at every subsample); audio whole-block full-sample (every whole block, the chain through the
///   sample). FairPlay's scheme, and the one a single copy for HLS and DASH uses.
public enum EncryptionScheme: String, Sendable, Hashable, CaseIterable {
    case cenc
    case cbcs

    /// The scheme type in `schm`, and the name `ContentProtection@value` and CPIX use.
    public var schemeType: FourCC { FourCC(rawValue) }

    init?(schemeType: FourCC) {
        switch schemeType {
        case "cenc": self = .cenc
        case "cbcs": self = .cbcs
        default: return nil
        }
    }

    /// Bytes of each sample's IV in `senc`: 16 for `cenc` (see `SampleIVs` for why not 8), 0 for `cbcs` (constant IV).
    var perSampleIVSize: Int { self == .cenc ? 16 : 0 }

    /// The pattern of encrypted and skipped blocks for a kind of track (`tenc` version 1 carries it).
    func pattern(for kind: TrackKind) -> (crypt: Int, skip: Int) {
        self == .cbcs && kind == .video ? (1, 9) : (0, 0)
    }

    /// Whether protected ranges are cut to whole 16-byte blocks, the misaligned bytes left clear in front (CMAF
    /// §8.2.3.2.2 for `cenc`: "BytesOfProtectedData SHALL be a multiple of 16 bytes").
    var alignsProtectedRanges: Bool { self == .cenc }
}
