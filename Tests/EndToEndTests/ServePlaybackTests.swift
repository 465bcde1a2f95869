import Foundation
import Testing

/// `videowm serve` as a platform's page meets it: video.js in headless Chromium on a student's
/// URL (cross-origin, every URL authorised by the token), with the cache bounded so files are
/// evicted while the student plays and made again when asked for (issue 26's "Done when").
@Suite("serve: playback in a browser", .serialized)
struct ServePlaybackTests {
    static let player = PackageRoot.path("scripts/play-in-chromium")

    @Test("video.js plays a student's URL to its end from serve, with --cache-size 1M evicting meanwhile; evicted files come back the same bytes, and the cache stays within its size")
    func videoJSPlaysAStudentsURLWhileTheCacheEvicts() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // 640×360 so one student's files (≈1.5 MB) do not fit in the smallest cache --cache-size takes.
        let lab = try ServeLab(h, width: 640, height: 360)
        let cacheSize = 1 << 20
        let server = try lab.startServer(extra: ["--cache-size", "1M"])
        let tokens = try lab.tokens(["ada@example.com", "bob@example.com"])

        let played = try h.run(Self.player, [server.base + ServeLab.master(tokens[0]), "--videojs", "--one-rendition", "--timeout", "120"])
        try #require(played.status != 2, "Chromium or js.videojs is not installed (scripts/setup): \(played.stderr)")
        #expect(played.status == 0, "\(played.stdout) \(played.stderr)")
        struct Played: Decodable { var ended: Bool; var heights: [Int]?; var frames: Int?; var duration: Double? }
        let result = try JSONDecoder().decode(Played.self, from: Data(played.stdout.utf8))
        #expect(result.ended && result.heights == [360], "\(played.stdout)")
        #expect(abs((result.duration ?? 0) - 12) < 0.1, "\(played.stdout)")
        // Everything video.js fetched was authorised and whole: no refusal, no server error.
        #expect(server.metric("videowm_http_requests_total", labels: #"{code="200"}"#) >= Double(ServeLab.segmentCount + 1))
        for code in ["403", "404", "500", "503"] {
            #expect(server.metric("videowm_http_requests_total", labels: "{code=\"\(code)\"}") == 0, "\(code) answered")
        }

        // Another student, then the first again: what was evicted is made again, the same bytes.
        let first = try ServeRenderingTests.fetchPresentation(h, base: server.base, token: tokens[0])
        _ = try ServeRenderingTests.fetchPresentation(h, base: server.base, token: tokens[1])
        let again = try ServeRenderingTests.fetchPresentation(h, base: server.base, token: tokens[0])
        #expect(first.map(\.body) == again.map(\.body))
        let total = first.reduce(0) { $0 + $1.body.count }
        #expect(total > cacheSize, "one student's files (\(total) bytes) fit in the cache: nothing to evict")
        #expect(server.metric("videowm_cache_evictions_total") > 0)
        // Each shared file (init + 4 segments) was made more than once: evicted, then asked for again.
        #expect(server.metric("videowm_renders_total", labels: #"{kind="shared"}"#) > 5)
        #expect(Self.cachedBytes(h.path("cache")) <= cacheSize, "\(Self.cachedBytes(h.path("cache"))) bytes cached")
        #expect(server.stop() == 0)
    }

    /// Bytes of the cache's files (not its lock files or hidden temporary ones).
    static func cachedBytes(_ folder: String) -> Int {
        let walker = FileManager.default.enumerator(atPath: folder)
        var total = 0
        while let relative = walker?.nextObject() as? String {
            let path = folder + "/" + relative
            guard !(relative as NSString).lastPathComponent.hasPrefix("."), !relative.hasPrefix(".locks"),
                  let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            total += (attributes[.size] as? Int) ?? 0
        }
        return total
    }
}
