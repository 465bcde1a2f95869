import Foundation
import VideoWM

/// A student's access to one lecture, as the platform signed it: a JSON Web Token (RFC 7519)
/// in JWS compact form, HMAC-SHA256 (`alg: HS256`) only, with the claims `lecture` (the
/// lecture's folder name), `vars` (the student's variables, strings, at least one), `exp` and
/// optionally `nbf` (seconds since the epoch), `jti` and `sub` (what a revocation names). Other
/// claims are ignored.
public struct AccessToken: Sendable, Equatable {
    public let lecture: String
    public let variables: [String: String]
    public let expires: Double
    public let notBefore: Double?
    /// RFC 7519's token id and subject, when the token has them.
    public let tokenID: String?
    public let subject: String?
    /// The JOSE header's `kid`: which key signed it.
    public let keyID: String?
}

/// Why a token was refused (counted by reason; never shown with the token itself).
public enum TokenRejection: String, Error, Sendable, CaseIterable {
    case missing = "no token"
    case malformed = "not a JWS compact token"
    case algorithm = "algorithm other than HS256"
    case criticalExtension = "critical header extension"
    case unknownKey = "no key with the token's kid"
    case keyNotNamed = "no kid, and the key file holds several keys"
    case signature = "signature does not match"
    case claims = "claims missing or of the wrong type"
    case noVariables = "no variables"
    case expired = "expired"
    case notYetValid = "not yet valid"
    case otherLecture = "issued for another lecture"
    case revoked = "revoked"
    /// libcrypto could not allocate: the token may be fine (answered 503, not 403).
    case noMemory = "out of memory"

    /// A label for /metrics (the case's name).
    public var label: String { String(describing: self) }
}

/// Checks tokens against the platform's token keys, with a leeway for clocks that disagree.
public struct TokenVerifier: Sendable {
    public let keys: TokenKeySet
    /// Seconds by which `exp` may have passed and `nbf` not yet come (RFC 7519 §4.1.4: "a few
    /// minutes at most"; `--token-leeway`).
    public let leewaySeconds: Double
    /// 60 s: more than the clock skew of machines kept by NTP, far less than a token's life.
    public static let defaultLeewaySeconds = 60.0

    public init(keys: TokenKeySet, leewaySeconds: Double = TokenVerifier.defaultLeewaySeconds) {
        self.keys = keys
        self.leewaySeconds = leewaySeconds
    }

    public init(key: SecretKey, leewaySeconds: Double = TokenVerifier.defaultLeewaySeconds) {
        self.init(keys: TokenKeySet(singleKey: key), leewaySeconds: leewaySeconds)
    }

    private struct Header: Decodable {
        let alg: String
        let crit: [String]?
        let kid: String?
    }

    private struct Claims: Decodable {
        let lecture: String
        let vars: [String: String]
        let exp: Double
        let nbf: Double?
        let jti: String?
        let sub: String?
    }

    /// The token's claims and the key that signed it, if its signature is a key's, it is in its
    /// validity window at `now` (give or take the leeway), and it was issued for `lecture`.
    public func verify(_ token: String, for lecture: String, now: Double = Date().timeIntervalSince1970) -> Result<(AccessToken, SecretKey), TokenRejection> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else { return .failure(.malformed) }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { return .failure(.malformed) }
        // Exactly HS256: `none`, the RSA and ECDSA families and the other HMAC sizes are refused
        // before any key is used, so no algorithm confusion can make the token key a public key.
        guard header.alg == "HS256" else { return .failure(.algorithm) }
        // RFC 7515 §4.1.11: an extension the recipient does not understand makes the token invalid.
        guard header.crit == nil else { return .failure(.criticalExtension) }
        let key: SecretKey
        switch keys.key(named: header.kid) {
        case .success(let found): key = found
        case .failure(let rejection): return .failure(rejection)
        }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard let expected = try? HMACSHA256.authenticationCode(for: signingInput, key: key) else { return .failure(.noMemory) }
        guard ConstantTime.equal(expected, signature) else { return .failure(.signature) }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(payloadBytes)), claims.exp.isFinite,
              claims.nbf?.isFinite ?? true else { return .failure(.claims) }
        guard !claims.vars.isEmpty else { return .failure(.noVariables) }
        guard now < claims.exp + leewaySeconds else { return .failure(.expired) }
        if let nbf = claims.nbf, now + leewaySeconds < nbf { return .failure(.notYetValid) }
        guard claims.lecture == lecture else { return .failure(.otherLecture) }
        let access = AccessToken(lecture: claims.lecture, variables: claims.vars, expires: claims.exp, notBefore: claims.nbf,
                                 tokenID: claims.jti, subject: claims.sub, keyID: header.kid)
        return .success((access, key))
    }
}

/// A short, stable name for a student's variables, used in their URLs and cache paths: 32 hex
/// digits of an HMAC, so it says nothing of the variables to anyone without the key, and the
/// same variables always get the same name (a renewed token keeps the student's cached segments).
public struct StudentNames: Sendable {
    private let key: SecretKey

    public init(key: SecretKey) { self.key = key }

    /// Names keyed by a key derived from the marks' key: they outlive every rotation of the token keys.
    public init(derivedFrom markKey: SecretKey) throws {
        key = SecretKey(bytes: try HMACSHA256.authenticationCode(for: Array("videowm-serve student names".utf8), key: markKey))
    }

    /// Nil only when libcrypto cannot allocate.
    public func name(for variables: [String: String]) -> String? {
        var message = Array("videowm-serve student\u{0}".utf8)
        for (name, value) in variables.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            for field in [name, value] {
                let bytes = Array(field.utf8)
                message += withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
            }
        }
        return (try? HMACSHA256.authenticationCode(for: message, key: key)).map { Hex.string($0.prefix(16)) }
    }
}
