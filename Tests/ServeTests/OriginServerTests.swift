import Foundation
import Testing
import ServeAccess
@testable import VideoWMServe

/// The origin over loopback with the test renderer: playlists, files, authorisation on every
/// kind of URL, HTTP semantics, and the render pool's behaviour.
@Suite("serve: origin", .serialized)
struct OriginServerTests {
    /// Every URL a student's master playlist leads to, fetched.
    func walk(_ fixture: ServeFixture, token: String) throws -> (master: String, media: [String], files: [String]) {
        let master = try fixture.get("/v1/intro/master.m3u8?token=\(token)")
        #expect(master.status == 200)
        #expect(master.header("content-type") == "application/vnd.apple.mpegurl")
        let mediaURIs = ServeFixture.uris(in: master.text)
        var files: [String] = []
        for uri in mediaURIs {
            let media = try fixture.get(uri)
            #expect(media.status == 200, "\(uri)")
            files += ServeFixture.uris(in: media.text)
        }
        return (master.text, mediaURIs, files)
    }

    @Test func servesAStudentsPresentationWithSharedAndOwnFiles() throws {
        let fixture = try ServeFixture()
        let token = try fixture.token(email: "ada@example.com")
        let (_, media, files) = try walk(fixture, token: token)
        #expect(media.count == 2)
        #expect(media.allSatisfy { $0.hasSuffix("?token=" + token) && $0.hasPrefix("/v1/intro/") })
        #expect(files.count == 2 * 7)
        #expect(files.filter { $0.contains("/own/") }.count == 4)  // segments 1 and 3 of both renditions
        for uri in files {
            let response = try fixture.get(uri)
            #expect(response.status == 200, "\(uri)")
            #expect(response.header("content-type") == "video/mp4")
            #expect(response.header("content-length") == "65536")
            #expect(response.header("etag") != nil)
            #expect(response.header("accept-ranges") == "bytes")
            let own = uri.contains("/own/")
            #expect(response.text.hasPrefix(own ? "" : "") && response.text.contains(own ? "student ada@example.com" : "shared"), "\(uri)")
            #expect(response.header("cache-control")?.hasPrefix(own ? "private, max-age=" : "public, max-age=") == true)
        }
        // A second student shares the shared files (same URLs) and has own files of their own.
        let bob = try fixture.token(email: "bob@example.com")
        let bobFiles = try walk(fixture, token: bob).files
        let shared = { (list: [String]) in Set(list.filter { $0.contains("/shared/") }.map { $0.split(separator: "?")[0] }) }
        #expect(shared(files) == shared(bobFiles))
        let ownBob = bobFiles.filter { $0.contains("/own/") }
        #expect(Set(ownBob.map { $0.split(separator: "?")[0] }).isDisjoint(with: Set(files.map { $0.split(separator: "?")[0] })))
        #expect(try fixture.get(ownBob[0]).text.contains("student bob@example.com"))
        // Each file was rendered once; repeated requests were cache hits.
        #expect(fixture.waitFor { fixture.indexer.renderList.count >= 17 && fixture.server.metrics.renderCount(.student) >= 7 })
        let renders = fixture.indexer.renderList
        #expect(renders.count == Set(renders).count)
        // Shared: init + 4 segments in each of 2 renditions; Ada's own: 2 in each; Bob's: the
        // first own segment of each rendition rendered ahead when he fetched its playlist, and
        // his next one (3) ahead of his request for 1.
        #expect(renders.count == 10 + 4 + 3)
        #expect(fixture.indexer.indexCount == 1)
        let metrics = try fixture.get("/metrics").text
        #expect(metrics.contains("videowm_renders_total{kind=\"student\"} 7"))
        #expect(metrics.contains("videowm_renders_total{kind=\"shared\"} 10"))
        #expect(metrics.contains("videowm_http_requests_total{code=\"200\"}"))
        #expect(metrics.contains("videowm_render_seconds_bucket{le=\"+Inf\"} 17"))
        // The access log names paths, never the token or the variables.
        let log = fixture.logLines.all.joined(separator: "\n")
        #expect(log.contains("\"GET /v1/intro/master.m3u8\" 200"))
        #expect(!log.contains(token) && !log.contains("ada@example.com") && !log.contains("token="))
    }

    @Test func refusesBadTokensOnEveryKindOfURL() throws {
        let fixture = try ServeFixture()
        let good = try fixture.token(email: "ada@example.com")
        let (_, media, files) = try walk(fixture, token: good)
        let paths = ["/v1/intro/master.m3u8"] + [media[0], files.first { $0.contains("init") }!, files.first { $0.contains("/shared/") && !$0.contains("init") }!,
                                                  files.first { $0.contains("/own/") }!].map { String($0.split(separator: "?")[0]) }
        let claims = "{'lecture': 'intro', 'vars': {'email': 'ada@example.com'}, 'exp': now + 600}"
        var bad = try fixture.tokens([
            "{'lecture': 'intro', 'vars': {'email': 'ada@example.com'}, 'exp': now - 300}",    // expired 5 min ago (past the leeway)
            "{'lecture': 'other', 'vars': {'email': 'ada@example.com'}, 'exp': now + 600}",    // another lecture
            "{'lecture': 'intro', 'vars': {}, 'exp': now + 600}",                              // no variables
            "{'lecture': 'intro', 'exp': now + 600}",                                          // no variables at all
            "{'lecture': 'intro', 'vars': {'email': 'ada@example.com'}, 'exp': now + 600, 'nbf': now + 300}",  // not yet valid
        ])
        bad += try fixture.tokens([claims], algorithm: "HS512")
        bad += try fixture.tokens([claims], key: "a wrong key of at least thirty-two bytes, too")
        bad += try fixture.tokens([claims], algorithm: "none").map { $0.hasSuffix(".") ? $0 : $0 + "." }
        let parts = good.split(separator: ".").map(String.init)
        let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        bad.append(header + "." + parts[1] + "." + parts[2])                                   // RS256 header, HS256 signature
        var payload = Base64URL.decode(parts[1])!
        payload = Array(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "ada@", with: "eve@").utf8)
        bad.append(parts[0] + "." + Base64URL.encode(payload) + "." + parts[2])                 // changed payload
        bad.append("")                                                                          // empty
        for path in paths {
            #expect(try fixture.get(path).status == 403, "\(path) without a token")
            for token in bad {
                #expect(try fixture.get(path + "?token=" + token).status == 403, "\(path) with \(token)")
                let authorize = try fixture.get("/v1/authorize", headers: ["X-Original-URI: \(path)?token=\(token)"])
                #expect(authorize.status == 403, "authorize \(path) with \(token)")
            }
            #expect(try fixture.get("/v1/authorize", headers: ["X-Original-URI: \(path)?token=\(good)"]).status == 204)
        }
        // Another student's own file, and a shared URL where this student has a marked segment: not theirs.
        let ownOfAda = paths[4]
        let eve = try fixture.token(email: "eve@example.com")
        #expect(try fixture.get(ownOfAda + "?token=" + eve).status == 403)
        let unmarkedCopy = ownOfAda.replacingOccurrences(of: #"/own/[0-9a-f]+/"#, with: "/shared/", options: .regularExpression)
        #expect(try fixture.get(unmarkedCopy + "?token=" + good).status == 403)
        // A token whose variables the presentation cannot use.
        let unusable = try fixture.tokens(["{'lecture': 'intro', 'vars': {'name': 'Ada'}, 'exp': now + 600}"])[0]
        #expect(try fixture.get("/v1/intro/master.m3u8?token=" + unusable).status == 403)
    }

    @Test func answers404ForTraversalEscapesAndUnknownLectures() throws {
        let fixture = try ServeFixture()
        let token = try fixture.token()
        let (_, media, _) = try walk(fixture, token: token)
        let revision = media[0].split(separator: "/")[2]
        for path in ["/v1/../intro/master.m3u8", "/v1/intro/../intro/master.m3u8", "/v1/%2e%2e/intro/master.m3u8", "/v1/intro%2Fmaster.m3u8",
                     "/v1/intro/\(revision)/shared/v0/..%2F..%2F..%2Fintro%2Flecture.json", "/v1/nobody/master.m3u8",
                     "/v1/intro/0123456789ab/media/v0.m3u8", "/v1/intro/\(revision)/media/v9.m3u8", "/v1/intro/\(revision)/shared/v0/99.m4s",
                     "/v1/intro/\(revision)/shared/v0/lecture.json", "/nothing", "/v1/intro/lecture.json"] {
            #expect(try fixture.get(path + "?token=" + token).status == 404, "\(path)")
        }
        #expect(try fixture.get("/v1/intro/master.m3u8?token=" + token, method: "POST").status == 405)
    }

    @Test func speaksHTTPAsCachesExpect() throws {
        let fixture = try ServeFixture()
        let token = try fixture.token()
        let files = try walk(fixture, token: token).files
        let uri = files.first { $0.contains("/own/") }!
        let whole = try fixture.get(uri)
        let etag = try #require(whole.header("etag"))
        #expect(try fixture.get(uri, headers: ["If-None-Match: \(etag)"]).status == 304)
        let part = try fixture.get(uri, headers: ["Range: bytes=100-199"])
        #expect(part.status == 206)
        #expect(part.header("content-range") == "bytes 100-199/65536")
        #expect(part.body == whole.body[100..<200])
        let suffix = try fixture.get(uri, headers: ["Range: bytes=-10"])
        #expect(suffix.status == 206 && suffix.body == whole.body.suffix(10))
        let beyond = try fixture.get(uri, headers: ["Range: bytes=65536-"])
        #expect(beyond.status == 416)
        #expect(beyond.header("content-range") == "bytes */65536")
        for malformed in ["bytes=abc", "bytes=5-1", "bytes=0-1,4-5", "lines=0-4"] {
            let ignored = try fixture.get(uri, headers: ["Range: \(malformed)"])
            #expect(ignored.status == 200 && ignored.body == whole.body, "\(malformed)")
        }
        #expect(try fixture.get(uri, headers: ["Range: bytes=0-9", "If-Range: \"stale\""]).status == 200)
        let head = try fixture.get(uri, method: "HEAD")
        #expect(head.status == 200 && head.header("content-length") == "65536")
        #expect(!head.text.contains("student"))  // curl -I keeps the header; no body followed it
        let playlist = try fixture.get("/v1/intro/master.m3u8?token=" + token)
        #expect(try fixture.get("/v1/intro/master.m3u8?token=" + token, headers: ["If-None-Match: \(playlist.header("etag")!)"]).status == 304)
        #expect(playlist.header("cache-control") == "private, no-cache")
        // Keep-alive: curl reuses one connection for several URLs.
        let both = try ServeFixture.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects}\n",
                                                          fixture.base + uri, fixture.base + uri])
        #expect(both.split(separator: "\n").map(String.init) == ["1", "0"])
        #expect(try fixture.get("/healthz").text == "ok\n")
    }
}
