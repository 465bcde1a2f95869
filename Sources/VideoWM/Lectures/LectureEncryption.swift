import Foundation
import Packaging

/// How a served lecture's media segments are encrypted (`lecture.json`'s `"encryption"`): HLS
/// AES-128 (RFC 8216 §4.3.2.4), each media segment encrypted whole with the lecture's key, the
/// key itself served only to a student holding a token for the lecture.
///
/// A server lists a segment before making it, so an IV cannot come from the segment's bytes as it
/// does for `batch --encrypt aes-128`: it is derived from the key and the file's name
/// (`AES128Segments.IVSource.named`), the server's path for it, which holds the lecture's
/// revision and, for a student's own segment, the student. One name is one content, so no two
/// different segments ever share an IV under a key, and a file made twice (by another process,
/// after an eviction) is encrypted to the same bytes. Initialization segments and captions stay
/// clear: they hold no picture, and players fetch the key only for the segments after a key tag.
public struct LectureEncryption: Sendable {
    public enum Scheme: String, Sendable, CaseIterable {
        case aes128 = "aes-128"
    }

    public let scheme: Scheme
    /// The key file, as `lecture.json` names it resolved (for messages).
    public let keyFile: String
    private let key: ContentKey

    /// Reads `keyFile` (one `KID:KEY` line, or a CPIX document whose first key is used): a file
    /// neither group nor others may read, as the token key's.
    public init(scheme: Scheme, keyFile: String) throws(ContentKeyFileError) {
        self.scheme = scheme
        self.keyFile = keyFile
        key = try ContentKeySet.read(fromFile: keyFile).keys[0]
    }

    /// The 16 bytes a player fetches from the key URL (RFC 8216's identity key format).
    public var keyBytes: [UInt8] { key.withUnsafeBytes { Array($0) } }

    /// What changes when the key does (for the lecture's revision, so a new key makes new URLs and
    /// no player mixes files of two keys): a keyed digest, not the key.
    var fingerprint: [UInt8] {
        Array("encryption \(scheme.rawValue) ".utf8) + key.keyID.bytes
            + ((try? AES128Segments.iv(key: key, name: "videowm lecture revision")) ?? [])
    }

    /// Whether a resource is encrypted: media segments (a student's own, shared, a variant's) are;
    /// initialization segments and captions are not.
    public static func encrypts(_ resource: Resource) -> Bool {
        switch resource.file {
        case .segment, .variant: true
        case .initialization, .captions: false
        }
    }

    /// The file's bytes as served: encrypted with the IV its `name` gives.
    public func encrypt(_ bytes: [UInt8], name: String) throws -> [UInt8] {
        try AES128Segments.encrypt(bytes, key: key, iv: .named(name)).bytes
    }

    /// The clear bytes of a file `encrypt(_:name:)` made (for tests and tools).
    public func decrypt(_ bytes: [UInt8], name: String) throws -> [UInt8] {
        try AES128Segments.decrypt(bytes, key: key, iv: AES128Segments.iv(key: key, name: name))
    }

    /// The `EXT-X-KEY` line before the segment called `name` in a media playlist: the key at
    /// `keyURI`, the segment's IV stated.
    public func keyTag(keyURI: String, name: String) throws -> String {
        HLSKeyTag.aes128(uri: keyURI, iv: try AES128Segments.iv(key: key, name: name)).line
    }
}

extension LectureEncryption {
    /// `lecture.json`'s `"encryption": { "scheme": "aes-128", "keyFile": "…" }`, read: the key
    /// file resolved from the lecture's folder and read; any problem is the lecture's (not served).
    static func read(_ value: Any, folder: String, lectureFile: String) throws(LectureProblem) -> LectureEncryption {
        func problem(_ text: String) -> LectureProblem { LectureProblem(file: lectureFile, problem: "encryption" + text) }
        guard let fields = value as? [String: Any] else { throw problem(" must be an object { \"scheme\": \"aes-128\", \"keyFile\": \"…\" }") }
        if let unknown = fields.keys.sorted().first(where: { !["scheme", "keyFile"].contains($0) }) {
            throw problem(": unknown field '\(unknown)' (known: keyFile, scheme)")
        }
        guard let name = fields["scheme"] as? String else { throw problem(".scheme is missing (\"aes-128\")") }
        guard let scheme = Scheme(rawValue: name) else {
            let later = ["cenc", "cbcs"].contains(name) ? " (serve encrypts with aes-128 so far; cenc and cbcs are transcode's and batch's --encrypt)" : ""
            throw problem(".scheme must be \"aes-128\", got \"\(name)\"\(later)")
        }
        guard let file = fields["keyFile"] as? String, !file.isEmpty else { throw problem(".keyFile must name the key file (KID:KEY, chmod 600)") }
        let path = file.hasPrefix("/") ? file : (folder as NSString).appendingPathComponent(file)
        do {
            return try LectureEncryption(scheme: scheme, keyFile: path)
        } catch {
            throw problem(".keyFile: \(error)")
        }
    }
}
