import Foundation
import Packaging

/// Common Encryption (ISO/IEC 23001-7, `cenc` or `cbcs`) of a presentation's CMAF files as they
/// are published: each rendition's initialization segment protected once (`tenc`, `pssh`), then
/// every media segment of it encrypted with that state (Packaging's `CommonEncryption`), before
/// the file is named by its content. The IVs are derived from the segment and the key, so a
/// segment made twice is encrypted to the same bytes and stays one shared file; playlists and
/// captions pass as they are. The content key never reaches a file: the HLS playlists name a
/// licence (`EXT-X-KEY`), the MPD its `ContentProtection`.
///
/// One per write of copies (`Lecture.write`), shared by every folder of it; safe across threads.
public final class SegmentProtection: @unchecked Sendable {
    public let scheme: EncryptionScheme
    public let keys: ContentKeySet
    /// Where a browser's W3C Clear Key CDM asks for its licence (the MPD's `dashif:Laurl`, the HLS
    /// key tag's URI); nil: the HLS tag names the key by its ID (`skd://KID`).
    public let licenceURL: String?
    private let encryption: CommonEncryption
    private let lock = NSLock()
    private var protected: [String: ProtectedInitialization] = [:]

    /// - Parameters:
    ///   - scheme: `cenc` (AES-CTR) or `cbcs` (AES-CBC with the 1:9 pattern).
    ///   - keys: the content keys (a KID:KEY file or a CPIX document), read by the caller.
    ///   - licenceURL: the Clear Key licence's URL written into the manifests, or nil.
    public init(scheme: EncryptionScheme, keys: ContentKeySet, licenceURL: String?) {
        self.scheme = scheme
        self.keys = keys
        self.licenceURL = licenceURL
        encryption = CommonEncryption(scheme: scheme, keys: keys)
    }

    /// The bytes to publish for a file of rendition `id`: an initialization segment protected (and
    /// remembered for the rendition's segments), a media segment encrypted, anything else as it is.
    func protect(_ bytes: [UInt8], rendition id: String, kind: LadderFolder.FileKind) throws -> [UInt8] {
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
        let tag = licenceURL.map { HLSKeyTag.clearKey(scheme: scheme, licenceURI: $0) }
            ?? HLSKeyTag.identity(scheme: scheme, uri: "skd://" + keyID.hex)
        return tag.line
    }

    /// A media playlist's text with the key tag before its initialization section (playlists of
    /// captions, which have none, as they are).
    func tagged(mediaPlaylist text: String) -> String {
        guard let map = text.range(of: "#EXT-X-MAP:") else { return text }
        return text.replacingCharacters(in: map.lowerBound..<map.lowerBound, with: hlsKeyTag + "\n")
    }
}
