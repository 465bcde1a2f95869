import Foundation
import TestSupport
import Testing
import VideoWM
@testable import ServeAccess

/// Token keys by kid from JWK Sets that PyJWT writes, the clock leeway, revocation lists, and
/// re-reading both files while tokens are checked.
@Suite("serve: access control")
struct AccessControlTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "videowm-access-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// Runs a Python script (PyJWT available) and returns its output lines.
    func python(_ script: String) throws -> [String] {
        try ChildProcess.run("/usr/bin/env", ["python3", "-c", script]).text.split(separator: "\n").map(String.init)
    }

    /// A JWK Set written by PyJWT (`HMACAlgorithm.to_jwk`), kid and alg added as a platform does,
    /// owner-only; each key is `kid` repeated to 40 bytes.
    func writeKeySet(_ kids: [String], to name: String = "keys.json") throws -> String {
        let path = folder + "/" + name
        _ = try python("""
        import json, os
        from jwt.algorithms import HMACAlgorithm
        keys = []
        for kid in \(kids):
            jwk = json.loads(HMACAlgorithm.to_jwk((kid * 40)[:40].encode()))
            jwk.update({"kid": kid, "alg": "HS256", "use": "sig"})
            keys.append(jwk)
        fd = os.open('\(path).new', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, json.dumps({"keys": keys}).encode())
        os.close(fd)
        os.rename('\(path).new', '\(path)')
        """)
        return path
    }

    /// A token signed by PyJWT with the key of `kid` (nil: no kid header) and these claims.
    func token(kid: String?, keyOf owner: String? = nil, claims: String = "'exp': now + 600") throws -> String {
        let key = ((owner ?? kid ?? "") + String(repeating: owner ?? kid ?? "", count: 40)).prefix(40)
        let headers = kid.map { ", headers={'kid': '\($0)'}" } ?? ""
        return try python("""
        import jwt, time
        now = int(time.time())
        print(jwt.encode({'lecture': 'intro', 'vars': {'email': 'ada@example.com'}, \(claims)}, b'\(key)', algorithm='HS256'\(headers)))
        """)[0]
    }

    func rejection(_ control: AccessControl, _ token: String) -> TokenRejection? {
        if case .failure(let reason) = control.admit(token, to: "intro") { return reason }
        return nil
    }

    @Test func tokensChooseTheirKeyByKid() throws {
        let control = try AccessControl(keys: TokenKeySet.read(fromFile: try writeKeySet(["2026-11", "2026-12"])))
        #expect(control.keyIDs == ["2026-11", "2026-12"])
        #expect(rejection(control, try token(kid: "2026-11")) == nil)
        #expect(rejection(control, try token(kid: "2026-12")) == nil)
        #expect(rejection(control, try token(kid: "2027-01")) == .unknownKey)
        #expect(rejection(control, try token(kid: nil, keyOf: "2026-11")) == .keyNotNamed)
        // A kid naming one key and a signature made with the other: the signature is checked against the kid's.
        #expect(rejection(control, try token(kid: "2026-11", keyOf: "2026-12")) == .signature)
        // One key in the set: a token without kid uses it; a token naming another kid is refused.
        let single = try AccessControl(keys: TokenKeySet.read(fromFile: try writeKeySet(["only-key"], to: "one.json")))
        #expect(rejection(single, try token(kid: nil, keyOf: "only-key")) == nil)
        #expect(rejection(single, try token(kid: "other", keyOf: "only-key")) == .unknownKey)
        // The students' names do not depend on which key signed (with names keyed apart from the token keys).
        let names = try StudentNames(derivedFrom: SecretKey(bytes: [UInt8](repeating: 9, count: 32)))
        let keyed = try AccessControl(keys: TokenKeySet.read(fromFile: folder + "/keys.json"), studentNames: names)
        let first = try keyed.admit(try token(kid: "2026-11"), to: "intro").get().student
        #expect(first == (try keyed.admit(try token(kid: "2026-12"), to: "intro").get().student))
    }

    @Test func aRawKeyFileStillWorks() throws {
        let path = folder + "/raw.key"
        try Data("the platform's token key, thirty-two bytes or more".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let keys = try TokenKeySet.read(fromFile: path)
        #expect(keys.format == .rawBytes && keys.keys.count == 1)
        let control = try AccessControl(keys: keys)
        let key = "the platform's token key, thirty-two bytes or more"
        let signed = try python("""
        import jwt, time
        now = int(time.time())
        print(jwt.encode({'lecture': 'intro', 'vars': {'email': 'a'}, 'exp': now + 60}, b"\(key)", algorithm='HS256'))
        print(jwt.encode({'lecture': 'intro', 'vars': {'email': 'a'}, 'exp': now + 60}, b"\(key)", algorithm='HS256', headers={'kid': 'any'}))
        """)
        #expect(signed.allSatisfy { rejection(control, $0) == nil })
    }

    @Test func refusesKeyFilesThatAreNotUsableSets() throws {
        func refused(_ json: String, mode: mode_t = 0o600) -> String? {
            let path = folder + "/bad-\(UUID().uuidString).json"
            FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
            chmod(path, mode)
            do {
                _ = try TokenKeySet.read(fromFile: path)
                return nil
            } catch {
                return "\(error)"
            }
        }
        let k = Base64URL.encode([UInt8](repeating: 1, count: 32))
        let short = Base64URL.encode([UInt8](repeating: 1, count: 16))
        #expect(refused(#"{"keys": [{"kty": "oct", "kid": "a", "k": "\#(k)"}]}"#) == nil)
        #expect(refused(#"{"kty": "oct", "k": "\#(k)"}"#) == nil)  // one JWK alone
        #expect(refused(#"{"keys": [{"kty": "oct", "kid": "a", "k": "\#(short)"}]}"#)?.contains("16 bytes") == true)
        #expect(refused(#"{"keys": [{"kty": "oct", "kid": "a", "k": "\#(k)"}, {"kty": "oct", "kid": "a", "k": "\#(k)"}]}"#)?.contains("two keys with kid") == true)
        #expect(refused(#"{"keys": [{"kty": "oct", "kid": "a", "k": "\#(k)"}, {"kty": "oct", "k": "\#(k)"}]}"#)?.contains("each needs a \"kid\"") == true)
        #expect(refused(#"{"keys": [{"kty": "RSA", "kid": "r", "n": "x", "e": "AQAB"}]}"#)?.contains("no HS256 key") == true)
        #expect(refused(#"{"keys": [{"kty": "oct", "kid": "a", "alg": "HS512", "k": "\#(k)"}]}"#)?.contains("no HS256 key") == true)
        #expect(refused(#"{"keys": [{"kty": "oct", "kid": "a", "k": "not base64url!"}]}"#)?.contains("keys[0].k") == true)
        #expect(refused(#"{"keys": {"kty": "oct"}}"#)?.contains("not a list") == true)
        #expect(refused(#"{"keys": [{"kty": "oct", "kid": "a", "k": "\#(k)"}]}"#, mode: 0o644)?.contains("chmod 600") == true)
        // Keys for other algorithms beside an HS256 key are left out, not refused (RFC 7517 §5).
        let mixed = folder + "/mixed.json"
        FileManager.default.createFile(atPath: mixed, contents: Data(#"{"keys": [{"kty": "RSA", "kid": "r", "n": "x", "e": "AQAB"}, {"kty": "oct", "kid": "h", "k": "\#(k)"}]}"#.utf8))
        chmod(mixed, 0o600)
        #expect(try TokenKeySet.read(fromFile: mixed).ids == ["h"])
    }

    @Test func theLeewayForgivesClocksThatDisagreeAndNoMore() throws {
        let control = try AccessControl(keys: TokenKeySet.read(fromFile: try writeKeySet(["k"])))
        #expect(TokenVerifier.defaultLeewaySeconds == 60)
        #expect(rejection(control, try token(kid: "k", claims: "'exp': now + 600, 'nbf': now + 5")) == nil)
        #expect(rejection(control, try token(kid: "k", claims: "'exp': now - 30")) == nil)
        #expect(rejection(control, try token(kid: "k", claims: "'exp': now - 300")) == .expired)
        #expect(rejection(control, try token(kid: "k", claims: "'exp': now + 600, 'nbf': now + 300")) == .notYetValid)
        let strict = try AccessControl(keys: TokenKeySet.read(fromFile: folder + "/keys.json"), leewaySeconds: 0)
        #expect(rejection(strict, try token(kid: "k", claims: "'exp': now + 600, 'nbf': now + 5")) == .notYetValid)
        #expect(rejection(strict, try token(kid: "k", claims: "'exp': now - 30")) == .expired)
    }

    @Test func revocationListsNameTokensAndSubjects() throws {
        let list = try RevocationList(parsing: "# closed accounts\nsub ada@example.com\n\njti 7f3a-1\r\n  jti   with spaces inside  \n", file: "r.txt")
        #expect(list.subjects == ["ada@example.com"])
        #expect(list.tokenIDs == ["7f3a-1", "with spaces inside"])
        func access(jti: String?, sub: String?) -> AccessToken {
            AccessToken(lecture: "intro", variables: ["email": "x"], expires: 0, notBefore: nil, tokenID: jti, subject: sub, keyID: nil)
        }
        #expect(list.revokes(access(jti: "7f3a-1", sub: nil)))
        #expect(list.revokes(access(jti: nil, sub: "ada@example.com")))
        #expect(!list.revokes(access(jti: "7f3a-2", sub: "bob@example.com")))
        #expect(!list.revokes(access(jti: nil, sub: nil)))
        #expect(throws: RevocationListError.self) { try RevocationList(parsing: "jti a\nuser bob\n", file: "r.txt") }
        do {
            _ = try RevocationList(parsing: "jti a\nsub\n", file: "r.txt")
            Issue.record("a line without an id was taken")
        } catch {
            #expect(error.description == "r.txt, line 2: \"sub\" names no id")
        }
    }

    @Test func reReadsKeepWhatIsInForceWhenAFileNoLongerReads() throws {
        let keyFile = try writeKeySet(["old-1", "old-2"])
        let revocations = folder + "/revoked.txt"
        try Data("# none yet\n".utf8).write(to: URL(fileURLWithPath: revocations))
        let control = try AccessControl(keys: TokenKeySet.read(fromFile: keyFile), revocationsFile: revocations)
        let old = try token(kid: "old-1")
        // Rotated: the new pair replaces the old one.
        _ = try writeKeySet(["new-1", "new-2"])
        guard case .reloaded(let line) = control.reloadKeys() else { Issue.record("not reloaded"); return }
        #expect(line.contains("new-1, new-2") && !line.contains("k\""))
        #expect(rejection(control, old) == .unknownKey)
        let new = try token(kid: "new-2", claims: "'exp': now + 600, 'jti': 'token-7', 'sub': 'student-9'")
        #expect(rejection(control, new) == nil)
        // Half-written: still the new pair in force; one line says why.
        try Data(#"{"keys": [{"kty": "oct", "#.utf8).write(to: URL(fileURLWithPath: keyFile))
        guard case .kept(let why) = control.reloadKeys() else { Issue.record("a broken key file replaced the keys"); return }
        #expect(why.contains(keyFile) && why.contains("the 2 in use kept"))
        #expect(rejection(control, new) == nil)
        // The revocations file: read when it changed, not otherwise.
        #expect(control.reloadRevocations(force: false) == .unchanged)
        try Data("jti token-7\n".utf8).write(to: URL(fileURLWithPath: revocations))
        #expect(control.reloadRevocations(force: false) != .unchanged)
        #expect(rejection(control, new) == .revoked)
        try Data("sub student-9\n".utf8).write(to: URL(fileURLWithPath: revocations + ".new"))
        rename(revocations + ".new", revocations)
        _ = control.reloadRevocations(force: false)
        #expect(rejection(control, new) == .revoked && control.revocationCount == 1)
        try Data("sub student-9\nrevoke everyone\n".utf8).write(to: URL(fileURLWithPath: revocations))
        guard case .kept(let broken) = control.reloadRevocations(force: false) else { Issue.record("a broken list replaced the one in force"); return }
        #expect(broken.contains("line 2"))
        #expect(rejection(control, new) == .revoked)
        #expect(control.reloadRevocations(force: false) == .unchanged)  // logged once, not every second
    }
}
