import Foundation
import VideoWM
import Testing
@testable import ServeAccess

@Suite("serve: tokens")
struct TokenTests {
    let keyBytes = Array("a token key of at least thirty-two bytes, for tests".utf8)
    var key: SecretKey { SecretKey(bytes: keyBytes) }

    /// A token made here (header and claims as given), signed with HMAC-SHA256 under `key`.
    func token(header: String = #"{"alg":"HS256","typ":"JWT"}"#, claims: String, key: [UInt8]? = nil) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try! HMACSHA256.authenticationCode(for: Array(input.utf8), key: SecretKey(bytes: key ?? keyBytes)))
    }

    @Test func theRFC7515ExampleSignatureVerifies() {
        // RFC 7515 A.1: an HS256 JWS whose claims are not a lecture's: past the signature, refused for its claims.
        let key = Base64URL.decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")!
        let token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(TokenVerifier(key: SecretKey(bytes: key)).verify(token, for: "intro").rejection == .claims)
        #expect(TokenVerifier(key: self.key).verify(token, for: "intro").rejection == .signature)
    }

    @Test func acceptsAGoodToken() throws {
        let now = 1_800_000_000.0
        let good = token(claims: #"{"lecture":"intro","vars":{"email":"ada@example.com","name":"Ada"},"exp":1800000600,"nbf":1799999000,"iat":1}"#)
        let access = try TokenVerifier(key: key).verify(good, for: "intro", now: now).get().0
        #expect(access.variables == ["email": "ada@example.com", "name": "Ada"])
        #expect(access.expires == 1_800_000_600)
    }

    @Test func refusesEveryWayATokenCanBeWrong() {
        let verifier = TokenVerifier(key: key, leewaySeconds: 0)
        let now = 1_800_000_000.0
        let claims = #"{"lecture":"intro","vars":{"email":"ada@example.com"},"exp":1800000600}"#
        let good = token(claims: claims)
        let parts = good.split(separator: ".").map(String.init)
        let changedPayload = parts[0] + "." + Base64URL.encode(Array(claims.replacingOccurrences(of: "ada", with: "eve").utf8)) + "." + parts[2]
        let cases: [(String, TokenRejection)] = [
            (Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + ".", .algorithm),
            (token(header: #"{"alg":"RS256"}"#, claims: claims), .algorithm),
            (token(header: #"{"alg":"HS512"}"#, claims: claims), .algorithm),
            (token(header: #"{"alg":"hs256"}"#, claims: claims), .algorithm),
            (token(header: #"{"alg":"HS256","crit":["exp"]}"#, claims: claims), .criticalExtension),
            (changedPayload, .signature),
            (token(claims: claims, key: Array("another key of at least thirty-two bytes!".utf8)), .signature),
            (token(claims: #"{"lecture":"intro","vars":{"email":"a"},"exp":1799999999}"#), .expired),
            (token(claims: #"{"lecture":"intro","vars":{"email":"a"},"exp":1800000000}"#), .expired),
            (token(claims: #"{"lecture":"intro","vars":{"email":"a"},"exp":1800000600,"nbf":1800000001}"#), .notYetValid),
            (token(claims: #"{"lecture":"other","vars":{"email":"a"},"exp":1800000600}"#), .otherLecture),
            (token(claims: #"{"lecture":"intro","vars":{},"exp":1800000600}"#), .noVariables),
            (token(claims: #"{"lecture":"intro","exp":1800000600}"#), .claims),
            (token(claims: #"{"lecture":"intro","vars":{"n":1},"exp":1800000600}"#), .claims),
            (token(claims: #"{"lecture":"intro","vars":{"email":"a"},"exp":"1800000600"}"#), .claims),
            (token(claims: #"{"lecture":"intro","vars":{"email":"a"}}"#), .claims),
            (parts[0] + "." + parts[1], .malformed),
            (good + "=", .malformed),
            (parts[0] + "." + parts[1] + "." + parts[2] + ".x", .malformed),
            ("", .malformed),
        ]
        for (text, reason) in cases {
            #expect(verifier.verify(text, for: "intro", now: now).rejection == reason, "\(text)")
        }
    }

    @Test func studentNamesAreStableAndKeyed() throws {
        let names = StudentNames(key: key)
        let name = names.name(for: ["email": "ada@example.com", "name": "Ada"])
        #expect(name?.count == 32)
        #expect(name == names.name(for: ["name": "Ada", "email": "ada@example.com"]))
        #expect(name != names.name(for: ["email": "ada@example.com", "name": "Ad"]))
        #expect(name != names.name(for: ["email": "ada@example.comname", "": "Ada"]))
        #expect(name != StudentNames(key: SecretKey(bytes: Array("another key of at least thirty-two bytes!".utf8))).name(for: ["email": "ada@example.com", "name": "Ada"]))
        #expect(name != (try StudentNames(derivedFrom: key)).name(for: ["email": "ada@example.com", "name": "Ada"]))
    }

    @Test func base64URLRoundTripsAndRefusesOtherAlphabets() {
        for length in 0..<20 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("YQ==") == nil)
        #expect(Base64URL.decode("YR") == nil)  // stray bits
        #expect(Base64URL.decode("Y") == nil)
    }
}

extension Result where Failure == TokenRejection {
    /// Why the token was refused, or nil when it passed.
    var rejection: TokenRejection? {
        if case .failure(let reason) = self { return reason }
        return nil
    }
}
