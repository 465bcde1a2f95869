import Foundation
import Testing

/// Issue 19, an address-space limit (`ulimit -v`) low enough that allocations fail: every run
/// ends with 0 or 71 ("out of memory", or a thread that cannot start for want of its stack),
/// with one error line and no temporary file — never 64/65/74 blaming the input, the font or
/// the encoder settings, never a signal, and no line of a C library's own.
///
/// The limits are derived from this machine's need, not written in: the smallest limit under
/// which the job succeeds is found by bisection, and the sweep runs below it, where the job's
/// allocations start to fail.
@Suite("reliability: address-space limit", .serialized)
struct ReliabilityMemoryTests {
    struct Run {
        var outcome: Outcome
        var limit: Int
    }

    /// Runs `arguments` under `ulimit -v` of `megabytes`; nil when the loader could not even map the binary.
    func run(_ h: Harness, _ arguments: [String], megabytes: Int) throws -> Outcome? {
        let outcome = try h.shell("ulimit -v \(megabytes * 1024) && exec \(Harness.commandLine(arguments))", timeout: 120)
        if outcome.exitStatus == 127 && outcome.stderr.contains("error while loading shared libraries") { return nil }
        return outcome
    }

    func expectEndsCleanly(_ outcome: Outcome, _ what: String, _ h: Harness, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.signal == nil && !outcome.timedOut, "\(what): \(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.exitStatus == 0 || outcome.exitStatus == 71, "\(what): \(outcome)", sourceLocation: sourceLocation)
        let lines = outcome.errorLines.filter { !$0.hasPrefix("videowm: render: ") }
        if outcome.exitStatus == 71 {
            #expect(lines.count == 1 && lines[0].hasPrefix("videowm: error: ")
                    && ["out of memory", "cannot allocate memory", "cannot start a thread"].contains { lines[0].lowercased().contains($0) },
                    "\(what): one line saying what ran out: \(outcome.stderr)", sourceLocation: sourceLocation)
        } else if outcome.exitStatus == 0 {
            #expect(lines.isEmpty, "\(what): \(outcome.stderr)", sourceLocation: sourceLocation)
        }
        #expect(h.partialFiles().isEmpty, "\(what): temporary files left: \(h.partialFiles())", sourceLocation: sourceLocation)
    }

    @Test("transcode and stamp under address-space limits below their need end with 0 or 71, one line, no partial file",
          arguments: ["transcode", "stamp"])
    func belowTheNeed(command: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        _ = try h.makeClip("in.mp4", seconds: 1)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1", h.path("in.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x64", "-frames:v", "1", h.path("logo.png")])
        _ = try h.write("c.json", #"{ "watermarks": [ { "text": "memory", "size": 0.08, "anchor": "center" }, "#
                        + #"{ "image": "logo.png", "size": 0.1, "anchor": "top-left" } ] }"#)
        let output = command == "transcode" ? "out.mp4" : "out.png"
        let arguments = command == "transcode" ? ["transcode", "in.mp4", output, "-c", "c.json", "-y"]
                                               : ["stamp", "in.png", "-o", output, "-c", "c.json", "-y"]

        // The smallest limit (MB) that lets the job succeed, by bisection between one that
        // cannot (the loader's own need, found going up) and one that can.
        var low = 64, high = 4096
        let ample = try #require(try run(h, arguments, megabytes: high))
        try #require(ample.exitStatus == 0, "the job should succeed with \(high) MB: \(ample)")
        while high - low > 4 {
            let middle = (low + high) / 2
            guard let outcome = try run(h, arguments, megabytes: middle) else {
                low = middle
                continue
            }
            expectEndsCleanly(outcome, "\(command) under ulimit -v \(middle) MB", h)
            if outcome.exitStatus == 0 { high = middle } else { low = middle }
        }
        // Every few megabytes below the need, down to where the binary cannot load. The window is
        // narrow for stamp (about 12 MB when videowm linked Tesseract, which the loader mapped for
        // every command; it is opened only for a still's trace now), so the steps are 3 MB.
        var swept = 0, failed = 0
        for megabytes in stride(from: high - 2, through: max(high - 120, 32), by: -3) {
            guard let outcome = try run(h, arguments, megabytes: megabytes) else { break }
            swept += 1
            if outcome.exitStatus != 0 { failed += 1 }
            expectEndsCleanly(outcome, "\(command) under ulimit -v \(megabytes) MB", h)
            try? FileManager.default.removeItem(atPath: h.path(output))
        }
        #expect(swept >= 3 && failed >= 1, "the sweep below \(high) MB ran \(swept) jobs, \(failed) ran out")
    }
}
