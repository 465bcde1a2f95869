import Foundation
import TestSupport
import Testing

/// Issue 43's access half, on a real `videowm serve` with tokens PyJWT signs from a JWK Set:
/// keys chosen by kid and rotated by SIGHUP with no connection dropped, revocations picked up
/// from their file within 5 s, the clock leeway, and SIGTERM's exit 0 after all of it.
@Suite("serve: key rotation and revocation", .serialized)
struct ServeAccessOperationsTests {
    /// A client holding one kept-alive connection: each line written is a path it GETs on that
    /// connection; it answers "STATUS LOCALPORT" (or "closed" if the server dropped the connection).
    final class KeptAliveClient {
        let process: ChildProcess
        private var buffer = Data()

        init(port: Int) throws {
            let script = """
            import http.client, sys
            conn = http.client.HTTPConnection('127.0.0.1', \(port), timeout=30)
            conn.connect()
            local = conn.sock.getsockname()[1]
            for line in sys.stdin:
                try:
                    conn.request('GET', line.strip())
                    response = conn.getresponse()
                    response.read()
                    alive = conn.sock is not None and conn.sock.getsockname()[1] == local
                    print(response.status if alive else 'closed', local, flush=True)
                except Exception as error:
                    print('closed', error, flush=True)
            """
            process = try ChildProcess("/usr/bin/env", ["python3", "-c", script], stdin: .pipe, stdout: .pipe, stderr: .null)
        }

        /// GETs `path` on the kept-alive connection: its status, or nil when the connection was dropped.
        func get(_ path: String) -> (status: Int?, localPort: String) {
            process.input?.write(Data((path + "\n").utf8))
            while !buffer.contains(UInt8(ascii: "\n")) {
                let more = process.output?.availableData ?? Data()
                if more.isEmpty { return (nil, "") }
                buffer += more
            }
            let end = buffer.firstIndex(of: UInt8(ascii: "\n"))!
            let fields = String(decoding: buffer[..<end], as: UTF8.self).split(separator: " ").map(String.init)
            buffer = Data(buffer[(end + 1)...])
            return (Int(fields[0]), fields.count > 1 ? fields[1] : "")
        }

        deinit {
            try? process.input?.close()
            process.waitUntilExit()
        }
    }

    @Test("a JWK Set's keys by kid; rotation by SIGHUP within 5 s, no connection dropped; revocations within 5 s; the leeway; SIGTERM exits 0")
    func rotatesRevokesAndForgivesClockSkew() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h)
        let keys = h.path("token-keys.json")
        try lab.writeKeySet(["2026-11", "2026-12"], to: keys)
        let revocations = try h.write("revoked.txt", "# revoked tokens: jti ID or sub ID\n")
        let server = try lab.startServer(extra: ["--revocations", revocations], tokenKeyFile: keys)
        #expect(server.log.contains("token keys 2026-11, 2026-12"), "\(server.log)")
        func status(_ token: String) throws -> Int { try h.fetch(server.base + ServeLab.master(token)).status }

        // Either key's tokens play; a kid the set does not hold, or none with two keys, is refused.
        let old = try lab.jwkTokens(keyFile: keys, [("2026-11", "ada@example.com", ""), ("2026-12", "bob@example.com", "")])
        #expect(try status(old[0]) == 200 && status(old[1]) == 200)
        let stranger = h.path("stranger.json")
        try lab.writeKeySet(["2027-01"], to: stranger)
        #expect(try status(lab.jwkTokens(keyFile: stranger, [("2027-01", "eve@example.com", "")])[0]) == 403)
        let noKid = try h.run("/usr/bin/env", ["python3", "-c", """
            import jwt, sys, time
            keys = jwt.PyJWKSet.from_json(open(sys.argv[1]).read())
            print(jwt.encode({'lecture': 'intro', 'vars': {'email': 'x'}, 'exp': int(time.time()) + 600}, keys['2026-11'].key, algorithm='HS256'))
            """, keys]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try status(noKid) == 403)

        // Two connections open across the rotation: one busy, one idle; neither is dropped.
        let busy = try KeptAliveClient(port: server.port)
        let idle = try KeptAliveClient(port: server.port)
        let before = busy.get(ServeLab.master(old[0]))
        #expect(before.status == 200)
        #expect(idle.get("/healthz").status == 200)

        // Rotation: the file now holds a new pair; SIGHUP.
        let retired = h.path("retired.json")
        try FileManager.default.copyItem(atPath: keys, toPath: retired)
        try lab.writeKeySet(["2027-02", "2027-03"], to: keys)
        let new = try lab.jwkTokens(keyFile: keys, [("2027-02", "ada@example.com", ""), ("2027-03", "bob@example.com", "")])
        kill(server.process.processIdentifier, SIGHUP)
        let rotated = try poll(within: 5) { try status(old[0]) == 403 && status(old[1]) == 403 && status(new[0]) == 200 && status(new[1]) == 200 }
        #expect(rotated != nil, "not rotated within 5 s: \(server.log)")
        let after = busy.get(ServeLab.master(old[0]))
        #expect(after.status == 403 && after.localPort == before.localPort, "the busy connection: \(after)")
        #expect(busy.get(ServeLab.master(new[0])).status == 200)
        #expect(idle.get("/healthz").status == 200, "the idle connection was dropped")
        #expect(server.metric("videowm_token_keys") == 2)
        #expect(server.metric("videowm_token_rejections_total", labels: #"{reason="unknownKey"}"#) >= 3)

        // A key file that no longer parses keeps the keys in force, with one line in the log.
        try Data(#"{"keys": [{"kty": "oct", "kid": "#.utf8).write(to: URL(fileURLWithPath: keys))
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try poll(within: 5) { server.log.contains("token keys not reloaded") } != nil)
        #expect(try status(new[0]) == 200 && status(old[0]) == 403)
        #expect(server.log.components(separatedBy: "token keys not reloaded").count == 2, "\(server.log)")
        #expect(server.metric("videowm_reload_failures_total") == 1)
        try FileManager.default.removeItem(atPath: keys)
        try FileManager.default.copyItem(atPath: retired, toPath: keys)  // the retired pair again, for the rest
        chmod(keys, 0o600)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try poll(within: 5) { try status(old[0]) == 200 } != nil)

        // Revocation: a token by its jti, a student by their sub; the others still play.
        let marked = try lab.jwkTokens(keyFile: keys, [
            ("2026-11", "cy@example.com", "'exp': now + 600, 'jti': 'token-cy-1'"),
            ("2026-12", "dee@example.com", "'exp': now + 600, 'sub': 'student-dee'"),
            ("2026-11", "eli@example.com", "'exp': now + 600, 'jti': 'token-eli-1', 'sub': 'student-eli'"),
        ])
        var uris: [[String]] = []
        for token in marked {
            let playlist = try h.fetch(server.base + ServeLab.master(token))
            #expect(playlist.status == 200)
            uris.append(ServeLab.uris(in: String(decoding: playlist.body, as: UTF8.self)))
            #expect(try h.fetch(server.base + uris.last!.first { $0.contains("/own/") }!).status == 200)
        }
        try Data("# revoked tokens\njti token-cy-1\nsub student-dee\n".utf8).write(to: URL(fileURLWithPath: revocations))
        let revoked = try poll(within: 5) { try status(marked[0]) == 403 && status(marked[1]) == 403 }
        #expect(revoked != nil, "not revoked within 5 s: \(server.log)")
        for uri in uris[0] + uris[1] { #expect(try h.fetch(server.base + uri).status == 403, "\(uri) of a revoked token") }
        #expect(try status(marked[2]) == 200)
        for uri in uris[2] { #expect(try h.fetch(server.base + uri).status == 200, "\(uri)") }
        #expect(server.metric("videowm_revocations") == 2)
        #expect(server.metric("videowm_token_rejections_total", labels: #"{reason="revoked"}"#) >= 4)
        #expect(server.log.contains("revocations reloaded"))

        // The leeway: a token valid from 5 s from now plays; one that expired 5 minutes ago does not.
        let skewed = try lab.jwkTokens(keyFile: keys, [("2026-11", "fay@example.com", "'nbf': now + 5, 'exp': now + 600"),
                                                       ("2026-11", "gus@example.com", "'exp': now - 300")])
        #expect(try status(skewed[0]) == 200)
        #expect(try status(skewed[1]) == 403)

        // The busy connection lived through all of it; SIGTERM drains and exits 0.
        #expect(busy.get(ServeLab.master(new[0])).localPort == before.localPort)
        #expect(server.stop() == 0)
        #expect(server.log.contains("stopped") && !server.log.contains("still waiting"), "\(server.log)")
        #expect(!server.log.contains(old[0]) && !server.log.contains("token-cy-1"))
    }
}
