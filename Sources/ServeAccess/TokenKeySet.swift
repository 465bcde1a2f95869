import Foundation
import VideoWM

/// The keys tokens may be signed with, read from `--token-key-file`: the file's bytes as one
/// key (at least 32 bytes, RFC 7518 §3.2), or a JSON Web Key Set (RFC 7517 §5) of HMAC keys —
/// `{"keys": [{"kty": "oct", "kid": "2026-12", "alg": "HS256", "k": "…"}]}`, as PyJWT and every
/// JWT library write it — so a platform rotates keys by adding the new one, signing with it,
/// and retiring the old one, each step a SIGHUP away.
///
/// The file is a key file: owner-only, as `SecretKey.read` checks. Keys the set holds for other
/// algorithms (`kty` other than `oct`, an `alg` other than HS256, a `use` other than `sig`) are
/// left out, as RFC 7517 §5 asks of a reader; a set with no usable key, an HS256 key shorter
/// than 32 bytes, or several usable keys without distinct `kid`s is refused.
public struct TokenKeySet: Sendable {
    public enum Format: Sendable, Equatable {
        /// The file's bytes are the key (one key, no id).
        case rawBytes
        /// A JWK Set (or a single JWK).
        case jwkSet
    }

    /// One key and the id tokens name it by (nil: a raw key, or a set's only key without `kid`).
    public struct Key: Sendable {
        public let id: String?
        public let secret: SecretKey
    }

    public let file: String
    public let format: Format
    public let keys: [Key]

    /// The ids of the keys (for the log: ids name keys, they are not secret).
    public var ids: [String] { keys.map { $0.id ?? "(no kid)" } }

    public init(singleKey secret: SecretKey, file: String = "") {
        self.file = file
        format = .rawBytes
        keys = [Key(id: nil, secret: secret)]
    }

    /// Reads `path`. A file that is a JSON object is a JWK Set (or one JWK) and must be a valid
    /// one; anything else is a raw key — unless `expecting` is `.jwkSet` (the file held a set
    /// before), so a set half-written when the server re-reads it is refused rather than taken
    /// for a raw key.
    public static func read(fromFile path: String, expecting: Format? = nil) throws -> TokenKeySet {
        let contents = try SecretKey.read(fromFile: path, byteCounts: 1...(1 << 20))
        let json = contents.withUnsafeBytes { bytes -> Any? in
            guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(bytes))
        }
        if let json {
            guard let object = json as? [String: Any] else { throw TokenKeyFileError(file: path, problem: "is JSON but not a JWK Set object") }
            return TokenKeySet(file: path, format: .jwkSet, keys: try jwkSetKeys(object, file: path))
        }
        if expecting == .jwkSet { throw TokenKeyFileError(file: path, problem: "is no longer a JSON Web Key Set (not valid JSON)") }
        guard (32...4096).contains(contents.count) else { throw KeyFileError(file: path, problem: .wrongSize(bytes: contents.count, expected: 32...4096)) }
        return TokenKeySet(file: path, format: .rawBytes, keys: [Key(id: nil, secret: contents)])
    }

    private init(file: String, format: Format, keys: [Key]) {
        self.file = file
        self.format = format
        self.keys = keys
    }

    /// The usable keys of a JWK Set (`{"keys": [...]}`) or of one JWK (`{"kty": ...}`).
    static func jwkSetKeys(_ object: [String: Any], file: String) throws -> [Key] {
        let entries: [(path: String, value: Any)]
        if let list = object["keys"] {
            guard let list = list as? [Any] else { throw TokenKeyFileError(file: file, problem: "\"keys\" is not a list") }
            entries = list.enumerated().map { ("keys[\($0.offset)]", $0.element) }
        } else if object["kty"] != nil {
            entries = [("the key", object)]
        } else {
            throw TokenKeyFileError(file: file, problem: "is a JSON object without \"keys\" (a JWK Set is {\"keys\": [...]})")
        }
        var keys: [Key] = []
        for (path, value) in entries {
            guard let jwk = value as? [String: Any] else { throw TokenKeyFileError(file: file, problem: "\(path) is not an object") }
            func text(_ name: String) throws -> String? {
                guard let field = jwk[name] else { return nil }
                guard let string = field as? String else { throw TokenKeyFileError(file: file, problem: "\(path).\(name) is not a string") }
                return string
            }
            // RFC 7517 §5: keys of a type or for a use this reader does not take are skipped.
            guard try text("kty") == "oct", try text("alg").map({ $0 == "HS256" }) ?? true, try text("use").map({ $0 == "sig" }) ?? true else { continue }
            if let operations = jwk["key_ops"] as? [String], !operations.contains("verify") { continue }
            let id = try text("kid")
            guard let encoded = try text("k"), let secret = Base64URL.decode(encoded) else {
                throw TokenKeyFileError(file: file, problem: "\(path).k is missing or not base64url")
            }
            guard secret.count >= 32 else {
                throw TokenKeyFileError(file: file, problem: "\(path)\(id.map { " (kid \"\($0)\")" } ?? ""): \(secret.count) bytes; an HS256 key has at least 32 (RFC 7518 §3.2)")
            }
            keys.append(Key(id: id, secret: SecretKey(bytes: secret, file: file)))
        }
        guard !keys.isEmpty else { throw TokenKeyFileError(file: file, problem: "holds no HS256 key (kty \"oct\")") }
        if keys.count > 1 {
            guard keys.allSatisfy({ $0.id != nil }) else { throw TokenKeyFileError(file: file, problem: "holds several keys: each needs a \"kid\"") }
            var seen: Set<String> = []
            for key in keys {
                guard let id = key.id, seen.insert(id).inserted else { throw TokenKeyFileError(file: file, problem: "has two keys with kid \"\(key.id ?? "")\"") }
            }
        }
        return keys
    }

    /// The key a token's `kid` names: with one key, that key whatever the token names (a raw key
    /// has no id to compare) unless both name one and they differ; with several, the one with that id.
    func key(named id: String?) -> Result<SecretKey, TokenRejection> {
        if keys.count == 1 {
            let only = keys[0]
            if let id, let own = only.id, id != own { return .failure(.unknownKey) }
            return .success(only.secret)
        }
        guard let id else { return .failure(.keyNotNamed) }
        guard let key = keys.first(where: { $0.id == id }) else { return .failure(.unknownKey) }
        return .success(key.secret)
    }
}

/// `--token-key-file` holds something that is not a key or a JWK Set of HS256 keys (exit 64).
public struct TokenKeyFileError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let problem: String
    public var description: String { "\(file): \(problem)" }
}
