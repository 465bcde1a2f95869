import Foundation
import VideoWM

/// A student's access to one lecture, as the platform signed it: a JSON Web Token (RFC 7519)
/// in JWS compact form, HMAC-SHA256 (`alg: HS256`) only, with the claims `lecture` (the
/// lecture's folder name), `vars` (the student's variables, strings, at least one), `exp` and
/// optionally `nbf` (seconds since the epoch). Other claims are ignored.
public struct AccessToken: Sendable, Equatable {
    public let lecture: String
    public let variables: [String: String]
    public let expires: Double
    public let notBefore: Double?
}

/// Why a token was refused (logged, never shown with the token itself).
public enum TokenRejection: String, Error, Sendable {
    case missing = "no token"
    case malformed = "not a JWS compact token"
    case algorithm = "algorithm other than HS256"
    case criticalExtension = "critical header extension"
    case signature = "signature does not match"
    case claims = "claims missing or of the wrong type"
    case noVariables = "no variables"
    case expired = "expired"
    case notYetValid = "not yet valid"
    case otherLecture = "issued for another lecture"
}

/// Checks tokens against the platform's token key.
public struct TokenVerifier: Sendable {
    private let key: SecretKey

    public init(key: SecretKey) {
        self.key = key
    }

    private struct Header: Decodable {
        let alg: String
        let crit: [String]?
    }

    private struct Claims: Decodable {
        let lecture: String
        let vars: [String: String]
        let exp: Double
        let nbf: Double?
    }

    /// The token's claims, if its signature is the key's, it is in its validity window at
    /// `now`, and it was issued for `lecture`.
    public func verify(_ token: String, for lecture: String, now: Double = Date().timeIntervalSince1970) -> Result<AccessToken, TokenRejection> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else { return .failure(.malformed) }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { return .failure(.malformed) }
        // Exactly HS256: `none`, the RSA and ECDSA families and the other HMAC sizes are refused
        // before any key is used, so no algorithm confusion can make the token key a public key.
        guard header.alg == "HS256" else { return .failure(.algorithm) }
        // RFC 7515 §4.1.11: an extension the recipient does not understand makes the token invalid.
        guard header.crit == nil else { return .failure(.criticalExtension) }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard let expected = TokenCrypto.hmacSHA256(key: key, message: signingInput),
              TokenCrypto.constantTimeEqual(expected, signature) else { return .failure(.signature) }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(payloadBytes)), claims.exp.isFinite,
              claims.nbf?.isFinite ?? true else { return .failure(.claims) }
        guard !claims.vars.isEmpty else { return .failure(.noVariables) }
        guard now < claims.exp else { return .failure(.expired) }
        if let nbf = claims.nbf, now < nbf { return .failure(.notYetValid) }
        guard claims.lecture == lecture else { return .failure(.otherLecture) }
        return .success(AccessToken(lecture: claims.lecture, variables: claims.vars, expires: claims.exp, notBefore: claims.nbf))
    }

    /// A short, stable name for a student's variables, used in their URLs and cache paths: 32
    /// hex digits of an HMAC under the token key, so it says nothing of the variables to
    /// anyone without the key, and the same variables always get the same name (a renewed
    /// token keeps the student's cached segments).
    /// Nil only when libcrypto cannot allocate.
    public func studentName(for variables: [String: String]) -> String? {
        var message = Array("videowm-serve student\u{0}".utf8)
        for (name, value) in variables.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            for field in [name, value] {
                let bytes = Array(field.utf8)
                message += withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
            }
        }
        return TokenCrypto.hmacSHA256(key: key, message: message).map { Hex.string($0.prefix(16)) }
    }
}
