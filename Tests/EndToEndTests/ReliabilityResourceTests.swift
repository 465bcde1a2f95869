import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, an environment that runs out: threads (a stack limit larger than the address
/// space, so no thread can start), address space (`ulimit -v`), and a job killed outright.
/// Each run ends by itself, never by a signal, and leaves no temporary file.
@Suite("reliability: exhausted resources", .serialized)
struct ReliabilityResourceTests {
    func config(_ h: Harness) throws -> String {
        try h.write("c.json", #"{ "watermarks": [ { "text": "resources", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#)
    }

    @Test("when no thread can start, stamp prepares its marks inline, and nothing waits forever", arguments: [
        ["--version"], ["help"], ["stamp", "in.png", "-o", "out.png", "-c", "c.json"],
        ["transcode", "in.mp4", "out.mp4", "-c", "c.json"], ["probe", "in.mp4"],
    ])
    func noThreadCanStart(arguments: [String]) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        _ = try h.makeClip("in.mp4", seconds: 1)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", h.path("in.png")])
        _ = try config(h)
        // Every new thread asks for a 1 GB stack, and the address space holds less than that beyond what is loaded.
        let outcome = try h.shell("ulimit -s 1000000 && ulimit -v 900000 && exec \(Harness.commandLine(arguments))", timeout: 30)
        #expect(!outcome.timedOut && outcome.signal == nil, "\(outcome)")
        #expect(outcome.seconds < 10, "took \(outcome.seconds) s")
        if arguments[0] == "stamp" || arguments[0].hasPrefix("-") || arguments[0] == "help" || arguments[0] == "probe" {
            // Work that fits on one thread runs on it.
            #expect(outcome.exitStatus == 0, "\(outcome)")
        } else {
            #expect(outcome.exitStatus == 0 || outcome.exitStatus == 71, "\(outcome)")
            if outcome.exitStatus == 71 { #expect(outcome.stderr.contains("cannot start a thread"), "\(outcome.stderr)") }
            if outcome.exitStatus == 0 { #expect(try h.videoFrameCount(h.path("out.mp4")) == 30) }
        }
        #expect(h.partialFiles().isEmpty)
    }

    @Test("--version under a tight ulimit -v never spins")
    func versionUnderTightAddressSpace() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        var loaded = 0
        for megabytes in stride(from: 230, through: 330, by: 5) {
            let outcome = try h.shell("ulimit -v \(megabytes * 1024) && exec \"$VIDEOWM\" --version", timeout: 15)
            if outcome.exitStatus == 127 && outcome.stderr.contains("error while loading shared libraries") { continue }
            loaded += 1
            #expect(!outcome.timedOut && outcome.signal == nil && outcome.seconds < 5, "ulimit -v \(megabytes) MB: \(outcome)")
            #expect(outcome.exitStatus == 0 && outcome.stdout.hasPrefix("videowm "), "ulimit -v \(megabytes) MB: \(outcome)")
        }
        #expect(loaded > 0, "no limit in the sweep let the binary load")
    }

    @Test("a job killed outright leaves a temporary file that the next run of the same command removes",
          arguments: ["transcode", "stamp"])
    func staleTemporaryFileRemovedByNextRun(command: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try config(h)
        let arguments: [String]
        if command == "transcode" {
            let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 20)
            arguments = ["transcode", input, "out.mp4", "-c", config, "--preset", "slow"]
        } else {
            try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=4000x3000", "-frames:v", "1", h.path("in.png")])
            arguments = ["stamp", "in.png", "-o", "out.png", "-c", config]
        }
        var stale: [String] = []
        for _ in 0..<20 where stale.isEmpty {
            let running = try h.start("exec " + Harness.commandLine(arguments))
            let deadline = Date().addingTimeInterval(30)
            while h.partialFiles().isEmpty && Date() < deadline && kill(running.pid, 0) == 0 { usleep(2_000) }
            kill(running.pid, SIGKILL)
            _ = running.wait(timeout: 10)
            stale = h.partialFiles()
            try? FileManager.default.removeItem(atPath: h.path(arguments[0] == "stamp" ? "out.png" : "out.mp4"))
        }
        try #require(!stale.isEmpty, "could not catch the job with its temporary file")
        let rerun = try h.shell("exec " + Harness.commandLine(arguments), timeout: 120)
        #expect(rerun.exitStatus == 0, "\(rerun)")
        #expect(h.partialFiles().isEmpty, "stale temporary file kept: \(h.partialFiles())")
    }
}
