import Foundation
import Packaging

/// The encryption of a presentation's CMAF files as they are published, before each is named by
/// its content: Common Encryption (ISO/IEC 23001-7, `cenc` or `cbcs`: each rendition's
/// initialization segment protected once, `tenc` and `pssh`, then every media segment of it
/// encrypted with that state, Packaging's `CommonEncryption`), or HLS AES-128 (each media segment
/// encrypted whole, `AES128Segments`; the initialization segment clear). The IVs are derived from
/// the segment and the key, so a segment made twice is encrypted to the same bytes and stays one
/// shared file; playlists and captions pass as they are. The content key never reaches a file:
/// the HLS playlists name a licence or key URI (`EXT-X-KEY`), the MPD its `ContentProtection`.
///
/// One per write of copies (`Lecture.write`), shared by every folder of it; safe across threads.
public final class SegmentProtection: @unchecked Sendable {
    /// The Common Encryption scheme; nil for HLS AES-128.
    public let scheme: EncryptionScheme?
    public let keys: ContentKeySet
    /// Where a browser's W3C Clear Key CDM asks for its licence (the MPD's `dashif:Laurl`, the HLS
    /// key tag's URI); nil: the HLS tag names the key by its ID (`skd://KID`).
    public let licenceURL: String?
    /// HLS AES-128's key URI (`EXT-X-KEY` URI); nil for Common Encryption.
    public let keyURI: String?
    private let encryption: CommonEncryption?
    private let lock = NSLock()
    private var protected: [String: ProtectedInitialization] = [:]
    /// HLS AES-128: each encrypted segment's IV, by its content name.
    private var ivs: [String: [UInt8]] = [:]

    /// - Parameters:
    ///   - scheme: `cenc` (AES-CTR) or `cbcs` (AES-CBC with the 1:9 pattern).
    ///   - keys: the content keys (a KID:KEY file or a CPIX document), read by the caller.
    ///   - licenceURL: the Clear Key licence's URL written into the manifests, or nil.
    public init(scheme: EncryptionScheme, keys: ContentKeySet, licenceURL: String?) {
        self.scheme = scheme
        self.keys = keys
        self.licenceURL = licenceURL
        keyURI = nil
        encryption = CommonEncryption(scheme: scheme, keys: keys)
    }

    /// HLS AES-128: media segments encrypted whole with the first key, `keyURI` the URI where
    /// players fetch its 16 bytes (served to signed-in students by the platform; never written here).
    /// - Parameters:
    ///   - keys: the content key file's keys; the first is used.
    ///   - keyURI: the key's URI as the media playlists name it.
    public init(aes128 keys: ContentKeySet, keyURI: String) {
        scheme = nil
        self.keys = keys
        licenceURL = nil
        self.keyURI = keyURI
        encryption = nil
    }

    /// The bytes to publish for a file of rendition `id`: an initialization segment protected (and
    /// remembered for the rendition's segments), a media segment encrypted, anything else as it is.
    func protect(_ bytes: [UInt8], rendition id: String, kind: LadderFolder.FileKind) throws -> [UInt8] {
        guard let encryption else {
            guard kind == .segment else { return bytes }
            let encrypted = try AES128Segments.encrypt(bytes, key: keys.keys[0], iv: .derived)
            lock.withLock { ivs[ContentName.of(encrypted.bytes)] = encrypted.iv }
            return encrypted.bytes
        }
        switch kind {
        case .initialization:
            let made = try encryption.protect(initialization: bytes)
            lock.withLock { protected[id] = made }
            return made.initialization
        case .segment:
            guard let state = lock.withLock({ protected[id] }) else {
                preconditionFailure("rendition \(id)'s initialization segment is published before its media segments")
            }
            return try state.encrypt(segment: bytes)
        case .captions, .playlist:
            return bytes
        }
    }

    /// The `EXT-X-KEY` line a media playlist of encrypted segments carries, before its `EXT-X-MAP`.
    var hlsKeyTag: String {
        let keyID = keys.keys[0].keyID
        guard let scheme else { preconditionFailure("AES-128 tags each segment (tagged(mediaPlaylist:))") }
        let tag = licenceURL.map { HLSKeyTag.clearKey(scheme: scheme, licenceURI: $0) }
            ?? HLSKeyTag.identity(scheme: scheme, uri: "skd://" + keyID.hex)
        return tag.line
    }

    /// A media playlist's text with the key tag before its initialization section (playlists of
    /// captions, which have none, as they are).
    func tagged(mediaPlaylist text: String) -> String {
        if let keyURI { return taggedSegments(mediaPlaylist: text, keyURI: keyURI) }
        guard let map = text.range(of: "#EXT-X-MAP:") else { return text }
        return text.replacingCharacters(in: map.lowerBound..<map.lowerBound, with: hlsKeyTag + "\n")
    }

    /// HLS AES-128: each `.m4s` segment's `EXTINF` preceded by its key tag with the segment's IV
    /// (derived, so stated); caption segments stay clear and untagged.
    private func taggedSegments(mediaPlaylist text: String, keyURI: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var n = 0
        while n < lines.count {
            let line = lines[n]
            if !line.hasPrefix("#"), line.hasSuffix(".m4s"), n > 0, lines[n - 1].hasPrefix("#EXTINF:") {
                let stem = (line as NSString).lastPathComponent.dropLast(4)
                let hash = String(stem.split(separator: "-").last ?? stem)
                guard let iv = lock.withLock({ ivs[hash] }) else { preconditionFailure("segment \(line) was listed but not encrypted") }
                lines.insert(HLSKeyTag.aes128(uri: keyURI, iv: iv).line, at: n - 1)
                n += 1
            }
            n += 1
        }
        return lines.joined(separator: "\n")
    }
}
