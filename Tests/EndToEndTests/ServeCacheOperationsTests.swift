import Foundation
import TestSupport
import Testing

/// Issue 43's cache half on a real `videowm serve`: a cache volume that fills up under a class,
/// a cached segment truncated behind the server's back, a server killed mid-render, a replaced
/// logo, and requests that never wait past the bound.
@Suite("serve: a full disk, a damaged cache, bounded waits", .serialized)
struct ServeCacheOperationsTests {
    /// The files of the cache folder (hidden ones included), relative to it.
    static func files(in folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { !$0.hasPrefix(".locks") }
    }

    /// Whether a cached file matches its record, checked by Python's hashlib (not the server's code).
    static func matchesRecord(_ h: Harness, _ path: String) throws -> Bool {
        let record = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("." + (path as NSString).lastPathComponent + ".sum")
        let r = try h.run("/usr/bin/env", ["python3", "-c", """
            import hashlib, sys
            data = open(sys.argv[1], 'rb').read()
            print(open(sys.argv[2]).read() == 'videowm-cache 1 %d %s\\n' % (len(data), hashlib.sha256(data).hexdigest()))
            """, path, record])
        return r.stdout.hasPrefix("True")
    }

    @Test("a 24 MB cache volume under 16 students: only 200 and 503, every 200 decodes, nothing partial; a truncated segment is never served; a killed render blocks nothing; space returns")
    func aFullVolumeADamagedFileAndAKilledRender() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let volume = try SmallVolume(h, megabytes: 24)
        guard volume.mounted else {
            print("serve: full-volume test skipped: cannot mount a tmpfs here (needs root and mount permission)")
            return
        }
        let lab = try ServeLab(h)
        let cache = volume.path + "/cache"
        let server = try lab.startServer(cache: cache, workers: 2)
        // Ballast beside the cache leaves it 60 KB: initialization segments fit (1–2 KB), no
        // media segment does (80–100 KB), even with everything evicted.
        let ballast = volume.path + "/ballast"
        let r = try h.run("fallocate", ["-l", String(volume.freeBytes - 60_000), ballast])
        try #require(r.status == 0, "\(r.stderr)")

        let students = (0..<16).map { "student\($0)@example.com" }
        let answers = try lab.crowd(port: server.port, tokens: try lab.tokens(students), folder: h.path("crowd"), retries: 20)
        let all = answers.flatMap { $0 }
        #expect(all.allSatisfy { $0.status == 200 || $0.status == 503 }, "\(Set(all.map(\.status)))")
        for (index, seen) in answers.enumerated() {
            let saved = seen.compactMap(\.file)
            let segments = saved.filter { $0.hasSuffix(".m4s") }
            #expect(segments.count == ServeLab.segmentCount, "student \(index): \(seen.map { "\($0.status) \($0.path.prefix(40))" })")
            guard let initSegment = saved.first(where: { $0.hasSuffix("init.mp4") }) else { Issue.record("student \(index): no init"); continue }
            let decoded = try lab.decode(initSegment: initSegment, segments: segments, into: h.path("student-\(index).mp4"))
            #expect(decoded.frames == 60 * segments.count && decoded.errors.isEmpty, "student \(index): \(decoded)")
        }
        // The volume filled up: some files were answered from memory, said once in the log.
        #expect(server.metric("videowm_cache_unstored_total") > 0, "\(server.log)")
        #expect(server.metric("videowm_cache_volume_full") == 1)
        #expect(server.log.components(separatedBy: "volume is full").count == 2, "\(server.log)")
        let cached = Self.files(in: cache)
        #expect(!cached.contains { $0.hasSuffix(".partial") }, "\(cached)")
        let published = cached.filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") }
        for file in published { #expect(try Self.matchesRecord(h, cache + "/" + file), "\(file) does not match its record") }
        #expect(try h.fetch(server.base + "/healthz").status == 200)

        // Space returns: files are stored again, and the log says so once.
        try FileManager.default.removeItem(atPath: ballast)
        let late = try lab.tokens(["late@example.com"])[0]
        let lateURIs = ServeLab.uris(in: String(decoding: try h.fetch(server.base + ServeLab.master(late)).body, as: UTF8.self))
        for uri in lateURIs { #expect(try h.fetch(server.base + uri).status == 200) }
        #expect(server.metric("videowm_cache_volume_full") == 0)
        #expect(server.log.components(separatedBy: "storing files again").count == 2, "\(server.log)")

        // A cached own segment truncated to half behind the server's back is rendered again, never served half.
        let ownURI = try #require(lateURIs.first { $0.contains("/own/") })
        let own = cache + "/" + String(ownURI.split(separator: "?")[0].dropFirst("/v1/".count))
        let whole = try Data(contentsOf: URL(fileURLWithPath: own))
        #expect(try Self.matchesRecord(h, own))
        #expect(truncate(own, off_t(whole.count / 2)) == 0)
        let refetched = try h.fetch(server.base + ownURI)
        #expect(refetched.status == 200 && refetched.body == whole, "\(refetched.status), \(refetched.body.count) of \(whole.count) bytes")
        #expect(server.metric("videowm_cache_damaged_total") == 1)
        #expect(try Self.matchesRecord(h, own))

        // A second process on the cache, killed while it renders a student's segment: the first
        // renders it at once (the kernel released the dead process's lock), and nothing partial stays.
        let victim = try lab.startServer(cache: cache, workers: 1)
        let doomed = try lab.tokens(["doomed@example.com"])[0]
        let doomedURIs = ServeLab.uris(in: String(decoding: try h.fetch(victim.base + ServeLab.master(doomed)).body, as: UTF8.self))
        let doomedOwn = try #require(doomedURIs.last { $0.contains("/own/") })
        let request = try ChildProcess("/usr/bin/curl", ["-s", "-o", "/dev/null", victim.base + doomedOwn], stdout: .null, stderr: .null)
        usleep(150_000)
        kill(victim.process.processIdentifier, SIGKILL)
        victim.process.waitUntilExit()
        request.waitUntilExit()
        let started = Date()
        let rescued = try h.fetch(server.base + doomedOwn)
        let waited = Date().timeIntervalSince(started)
        #expect(rescued.status == 200 && waited < 20, "\(rescued.status) after \(waited) s")
        let sweeper = try lab.startServer(cache: cache, workers: 1)  // a process starting on the cache sweeps leftovers
        #expect(!Self.files(in: cache).contains { $0.hasSuffix(".partial") })
        #expect(sweeper.stop() == 0)
        #expect(server.stop() == 0)
        #expect(server.log.contains("stopped") && !server.log.contains("still waiting"))
    }

    @Test("a replaced logo makes a new revision whose marked segments show it")
    func aReplacedLogoMakesANewRevision() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h)
        func makeLogo(_ color: String) throws {
            let r = try h.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(color):s=64x64", "-frames:v", "1", h.path("library/intro/logo.png")])
            try #require(r.status == 0, "\(r.stderr)")
        }
        try makeLogo("red")
        _ = try h.write("library/intro/marks.json", #"""
        { "watermarks": [ { "text": "{email}", "size": 0.12, "opacity": 0.9, "anchor": "center", "start": 2.5, "interval": 1000, "skip": 5000 },
                          { "image": "logo.png", "size": 0.3, "anchor": "top-left", "start": 2.5, "interval": 1000, "skip": 5000 } ] }
        """#)
        let server = try lab.startServer()
        let token = try lab.tokens(["ada@example.com"])[0]
        /// The revision the playlist names, and the colour at the logo's place in a marked frame (3 s).
        func look() throws -> (revision: String, pixel: [UInt8]) {
            let uris = ServeLab.uris(in: String(decoding: try h.fetch(server.base + ServeLab.master(token)).body, as: UTF8.self))
            let initSegment = try h.fetch(server.base + uris[0])
            let segmentURI = try #require(uris.first { ServeLab.segmentIndex(of: $0) == 1 })
            let segment = try h.fetch(server.base + segmentURI)
            try #require(initSegment.status == 200 && segment.status == 200)
            try (initSegment.body + segment.body).write(to: URL(fileURLWithPath: h.path("look.mp4")))
            // The frame 1 s into segment 1 (3.0 s), as RGB; the logo spans about 7…79 px of a 320×240 frame.
            let r = try h.run("ffmpeg", ["-v", "error", "-y", "-ss", "1", "-i", h.path("look.mp4"), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", h.path("look.rgb")])
            try #require(r.status == 0, "\(r.stderr)")
            let rgb = [UInt8](try Data(contentsOf: URL(fileURLWithPath: h.path("look.rgb"))))
            let offset = (40 * 320 + 40) * 3
            return (String(uris[0].split(separator: "/")[2]), Array(rgb[offset..<offset + 3]))
        }
        let first = try look()
        #expect(first.pixel[0] > 180 && first.pixel[2] < 80, "red logo: \(first.pixel)")
        try makeLogo("blue")
        usleep(1_100_000)  // the library looks at a lecture's files at most once a second
        let second = try look()
        #expect(second.revision != first.revision)
        #expect(second.pixel[2] > 180 && second.pixel[0] < 80, "blue logo: \(second.pixel)")
        #expect(server.stop() == 0)
    }

    @Test("under overload no request waits past --max-wait: 503 with Retry-After instead, counted")
    func noRequestWaitsPastTheBound() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h)
        let server = try lab.startServer(workers: 1, extra: ["--max-wait", "2", "--queue", "200"])
        let students = (0..<16).map { "crowd\($0)@example.com" }
        let answers = try lab.crowd(port: server.port, tokens: try lab.tokens(students), folder: h.path("crowd"), retries: 0).flatMap { $0 }
        let slowest = answers.map(\.seconds).max() ?? 0
        #expect(slowest < 2 + 1.5, "a request waited \(slowest) s")
        #expect(answers.allSatisfy { $0.status == 200 || ($0.status == 503 && $0.retryAfter != nil) }, "\(Set(answers.map(\.status)))")
        #expect(answers.contains { $0.status == 503 }, "no render took longer than 2 s: the test did not overload the server")
        #expect(server.metric("videowm_render_wait_timeouts_total") > 0)
        #expect(server.stop() == 0)
    }
}
