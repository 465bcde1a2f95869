import Foundation
import TestSupport
import Testing

/// `videowm serve` as a process: its start-up errors' exit codes, /healthz and /metrics,
/// and SIGTERM draining to exit 0 (rendering through it: ServeRenderingTests).
@Suite("serve command")
struct ServeCommandTests {
    @Test func refusesBadStartsWithTheContractsCodes() throws {
        let h = try Harness()
        try FileManager.default.createDirectory(at: h.directory.appendingPathComponent("library"), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 32).write(to: h.directory.appendingPathComponent("token.key"))
        try Data("short".utf8).write(to: h.directory.appendingPathComponent("short.key"))
        try Data(repeating: 7, count: 32).write(to: h.directory.appendingPathComponent("open.key"))
        for (file, mode) in [("token.key", 0o600), ("short.key", 0o600), ("open.key", 0o644)] {
            chmod(h.directory.appendingPathComponent(file).path, mode_t(mode))
        }
        #expect(try h.videowm("serve", "library", "--token-key-file", "open.key").status == 64)  // readable by others
        let missingKey = try h.videowm("serve", "library", "--token-key-file", "nothing.key")
        #expect(missingKey.status == 66 && missingKey.stderr.contains("nothing.key"))
        let shortKey = try h.videowm("serve", "library", "--token-key-file", "short.key")
        #expect(shortKey.status == 64 && shortKey.stderr.contains("short.key"))
        #expect(try h.videowm("serve", "library").status == 64)
        #expect(try h.videowm("serve", "library", "--token-key-file", "token.key", "--listen", "example.com:80").status == 64)
        #expect(try h.videowm("serve", "no-library", "--token-key-file", "token.key").status == 66)
        #expect(try h.videowm("serve", "library", "--token-key-file", "token.key", "--cache-size", "12").status == 64)
        // A port another server listens on is refused (71), not shared with it.
        let first = try ServeProcess(h, arguments: ["serve", "library", "--token-key-file", "token.key", "--listen", "127.0.0.1:0", "--cache", "cache"])
        let second = try h.videowm("serve", "library", "--token-key-file", "token.key", "--listen", "127.0.0.1:\(first.port)", "--cache", "cache")
        #expect(second.status == 71 && second.stderr.contains("\(first.port)"), "\(second.stderr)")
        #expect(first.stop() == 0)
        // A marks' key is checked as batch checks it: others may not read it (64), it must exist (66).
        let looseKey = try h.videowm("serve", "library", "--token-key-file", "token.key", "--key-file", "open.key")
        #expect(looseKey.status == 64 && looseKey.stderr.contains("open.key"), "\(looseKey.stderr)")
        let noKey = try h.videowm("serve", "library", "--token-key-file", "token.key", "--key-file", "none.key")
        #expect(noKey.status == 66 && noKey.stderr.contains("none.key"), "\(noKey.stderr)")
    }

    @Test func answersHealthAndExitsZeroOnSIGTERM() throws {
        let h = try Harness()
        try FileManager.default.createDirectory(at: h.directory.appendingPathComponent("library"), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 32).write(to: h.directory.appendingPathComponent("token.key"))
        chmod(h.directory.appendingPathComponent("token.key").path, 0o600)
        // Port 0: the kernel's choice, read back from the log. (A port picked here could be taken
        // by then: CI once met another test's connection on the one this test derived from its pid.)
        let server = try ServeProcess(h, arguments: ["serve", "library", "--token-key-file", "token.key", "--listen", "127.0.0.1:0",
                                                     "--cache", "cache", "--drain", "2"])
        var health = ""
        for _ in 0..<50 where health != "ok\n" {
            health = (try? h.run("curl", ["-s", "--max-time", "2", server.base + "/healthz"]).stdout) ?? ""
            if health != "ok\n" { usleep(100_000) }
        }
        #expect(health == "ok\n")
        let metrics = try h.run("curl", ["-s", server.base + "/metrics"]).stdout
        #expect(metrics.contains("# TYPE videowm_render_seconds histogram"))
        #expect(try h.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", server.base + "/v1/nothing/master.m3u8?token=x"]).stdout == "404")
        let started = Date()
        #expect(server.stop(within: 10) == 0)
        #expect(Date().timeIntervalSince(started) < 3)
        let log = server.log
        #expect(log.contains("\"GET /healthz\" 200"))
        #expect(log.contains("draining") && log.contains("stopped"))
        #expect(!log.contains("token=x"))
    }
}
