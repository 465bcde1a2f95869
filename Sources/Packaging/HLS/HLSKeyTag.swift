/// An `EXT-X-KEY` tag (RFC 8216 §4.3.2.4; `SAMPLE-AES-CTR` from its successor draft): how the segments after it in a
/// media playlist are encrypted and where a player gets the key.
///
/// What the packager writes, and why:
/// - `--encrypt aes-128`: `METHOD=AES-128,URI="…"` with an `IV` for derived IVs, no `KEYFORMAT` (RFC 8216's
///   "identity": the URI answers the 16 key bytes) — what every HLS player (hls.js, video.js, Safari, ffmpeg) plays.
/// - `cbcs`: `METHOD=SAMPLE-AES`, `cenc`: `METHOD=SAMPLE-AES-CTR`, each with `KEYFORMAT="org.w3.clearkey"`,
///   `KEYFORMATVERSIONS="1"` and the Clear Key licence URL as URI: the only key system a browser has without a DRM
///   vendor (hls.js maps this KEYFORMAT to EME's `org.w3.clearkey`; the key IDs come from the initialization
///   segment's `pssh`), and a vendor's own tags are added beside it from a CPIX document's `HLSSignalingData`
///   (FairPlay's `com.apple.streamingkeydelivery` with its `skd://` URI, Widevine's `urn:uuid:edef8ba9-…` with its
///   `pssh` as a data URI) — the key service knows its system's conventions better than a packager.
/// All of these need `EXT-X-VERSION` 5 or more (`minimumVersion`); videowm's media playlists are version 6.
public struct HLSKeyTag: Equatable, Sendable {
    public enum Method: String, Sendable {
        case none = "NONE"
        case aes128 = "AES-128"
        case sampleAES = "SAMPLE-AES"
        case sampleAESCTR = "SAMPLE-AES-CTR"
    }

    public var method: Method
    public var uri: String?
    public var iv: [UInt8]?
    public var keyFormat: String?
    public var keyFormatVersions: String?

    public init(method: Method, uri: String? = nil, iv: [UInt8]? = nil, keyFormat: String? = nil, keyFormatVersions: String? = nil) {
        precondition(iv == nil || iv?.count == 16, "an EXT-X-KEY IV has 16 bytes")
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
    }

    /// AES-128 whole-segment encryption with the key at `uri` (an IV when the segment's is not its sequence number).
    public static func aes128(uri: String, iv: [UInt8]? = nil) -> HLSKeyTag {
        HLSKeyTag(method: .aes128, uri: uri, iv: iv)
    }

    /// Common Encryption for browsers through W3C Clear Key: the licence at `licenceURI` answers a JSON Web Key set.
    public static func clearKey(scheme: EncryptionScheme, licenceURI: String) -> HLSKeyTag {
        HLSKeyTag(method: scheme == .cbcs ? .sampleAES : .sampleAESCTR, uri: licenceURI, keyFormat: "org.w3.clearkey", keyFormatVersions: "1")
    }

    /// Common Encryption with the key itself at `uri` (RFC 8216's identity key format), as Apple's players take
    /// SAMPLE-AES without FairPlay.
    public static func identity(scheme: EncryptionScheme, uri: String) -> HLSKeyTag {
        HLSKeyTag(method: scheme == .cbcs ? .sampleAES : .sampleAESCTR, uri: uri)
    }

    /// The lowest `EXT-X-VERSION` that allows the tag (RFC 8216 §7).
    public var minimumVersion: Int {
        if method == .sampleAES || method == .sampleAESCTR || keyFormat != nil || keyFormatVersions != nil { return 5 }
        return iv != nil ? 2 : 1
    }

    /// `#EXT-X-KEY:…`, attributes in RFC 8216's order; quoted strings may not hold `"` or a line break (precondition:
    /// URIs are made by the caller).
    public var line: String { "#EXT-X-KEY:" + attributes }

    /// The same key as `#EXT-X-SESSION-KEY:…`, for a multivariant playlist (players may start licensing early).
    public var sessionKeyLine: String {
        precondition(method != .none, "a session key is a key")
        return "#EXT-X-SESSION-KEY:" + attributes
    }

    private var attributes: String {
        var parts = ["METHOD=\(method.rawValue)"]
        if let uri { parts.append("URI=\(Self.quoted(uri))") }
        if let iv { parts.append("IV=0x\(Hex.string(iv).uppercased())") }
        if let keyFormat { parts.append("KEYFORMAT=\(Self.quoted(keyFormat))") }
        if let keyFormatVersions { parts.append("KEYFORMATVERSIONS=\(Self.quoted(keyFormatVersions))") }
        return parts.joined(separator: ",")
    }

    private static func quoted(_ text: String) -> String {
        precondition(!text.contains("\"") && !text.contains("\n") && !text.contains("\r"), "an HLS quoted string holds no quote or line break")
        return "\"\(text)\""
    }
}
