import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, the streams a job talks through: stdout and stderr closed, full (/dev/full) or
/// a pipe whose reader goes away; the outputs the user asked for (probe, --report) on a full
/// device; signals from a closed terminal (SIGHUP) or a quit key (SIGQUIT); the one-line rule.
@Suite("reliability: output streams and signals")
struct ReliabilityStreamsTests {
    func config(_ h: Harness, opacity: Double = 0.8) throws -> String {
        try h.write("c.json", #"{ "watermarks": [ { "text": "stream", "size": 0.08, "opacity": \#(opacity), "anchor": "center" } ] }"#)
    }

    @Test("progress json to a closed or full stdout is dropped: the job completes (exit 0, every frame)",
          arguments: [">&-", ">/dev/full"])
    func progressToUnwritableStdout(redirect: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 2)
        let command = Harness.commandLine(["transcode", input, "out.mp4", "-c", try config(h), "--progress", "json"])
        let outcome = try h.shell("exec \(command) \(redirect)")
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(try h.videoFrameCount(h.path("out.mp4")) == 60)
        #expect(h.partialFiles().isEmpty)

        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n1\n2\n")
        let batch = Harness.commandLine(["batch", input, "-c", try config(h), "--vars", csv, "--output", "rows/{id}.mp4",
                                         "--preset", "ultrafast", "--progress", "json"])
        let batchOutcome = try h.shell("exec \(batch) \(redirect)")
        #expect(batchOutcome.exitStatus == 0, "\(batchOutcome)")
        #expect(FileManager.default.fileExists(atPath: h.path("rows/1.mp4")) && FileManager.default.fileExists(atPath: h.path("rows/2.mp4")))
        #expect(h.partialFiles().isEmpty)
    }

    @Test("a warning to a closed or full stderr is dropped (exit 0); an error still exits with its code",
          arguments: ["2>&-", "2>/dev/full", ">&- 2>&-"])
    func messagesToUnwritableStderr(redirect: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        // opacity 2 is clamped to 1 with a warning.
        let warned = try h.shell("exec \(Harness.commandLine(["transcode", input, "out.mp4", "-c", try config(h, opacity: 2)])) \(redirect)")
        #expect(warned.exitStatus == 0, "\(warned)")
        #expect(try h.videoFrameCount(h.path("out.mp4")) == 30)
        let failed = try h.shell("exec \(Harness.commandLine(["transcode", "missing.mp4", "out2.mp4", "-c", try config(h)])) \(redirect)")
        #expect(failed.exitStatus == 66, "\(failed)")
        let usage = try h.shell("exec \(Harness.commandLine(["transcode", "--frobnicate"])) \(redirect)")
        #expect(usage.exitStatus == 64, "\(usage)")
        #expect(h.partialFiles().isEmpty)
    }

    @Test("a pipe that closes (| head -1) does not kill the job: exit 0, the output complete")
    func progressIntoClosingPipe() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Long enough (real encoding) that progress lines keep coming after head has gone.
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 8)
        let command = Harness.commandLine(["transcode", input, "out.mp4", "-c", try config(h), "--progress", "json"])
        let outcome = try h.shell("\(command) | head -1; exit ${PIPESTATUS[0]}", timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome) (141 is death by SIGPIPE)")
        #expect(outcome.stdout.hasPrefix("{\"event\":\"progress\""), "\(outcome.stdout)")
        #expect(try h.videoFrameCount(h.path("out.mp4")) == 240)
        #expect(h.partialFiles().isEmpty)
    }

    @Test("batch into a closing pipe (2>&1 | head -c1): every row is still made, exit 0")
    func batchIntoClosingPipe() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n1\n2\n3\n4\n")
        let command = Harness.commandLine(["batch", input, "-c", try config(h), "--vars", csv, "--output", "rows/{id}.mp4",
                                           "-j", "1", "--preset", "ultrafast"])
        let outcome = try h.shell("\(command) 2>&1 | head -c1; exit ${PIPESTATUS[0]}", timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome) (141 is death by SIGPIPE)")
        for id in 1...4 {
            #expect(FileManager.default.fileExists(atPath: h.path("rows/\(id).mp4")), "row \(id) lost")
        }
        #expect(h.partialFiles().isEmpty)
    }

    @Test("probe's output is what the user asked for: to /dev/full or a closed stdout it exits 74 with one line",
          arguments: [[] as [String], ["--json"]], [">/dev/full", ">&-"])
    func probeToUnwritableStdout(options: [String], redirect: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        let outcome = try h.shell("exec \(Harness.commandLine(["probe", input] + options)) \(redirect)")
        expectCleanFailure(outcome, status: 74, naming: "standard output", in: h)
    }

    @Test("a --report on a full device ends the batch with 74 and one line naming it, no temporary file")
    func reportToFullDevice() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n1\n2\n3\n")
        let outcome = try h.shell(Harness.commandLine(["batch", input, "-c", try config(h), "--vars", csv, "--output", "rows/{id}.mp4",
                                                       "-j", "1", "--preset", "ultrafast", "--report", "/dev/full", "-q"]), timeout: 60)
        expectCleanFailure(outcome, status: 74, naming: "/dev/full", within: 60, in: h)
    }

    @Test("SIGHUP and SIGQUIT mid-job are handled like SIGINT: temporary file removed, existing output kept, exit 130",
          arguments: [SIGHUP, SIGQUIT])
    func hangupAndQuit(signal: Int32) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 20)
        let existing = try h.write("out.mp4", "precious")
        let running = try h.start("exec \(Harness.commandLine(["transcode", input, "out.mp4", "-c", try config(h), "-y", "--preset", "slow"]))")
        let deadline = Date().addingTimeInterval(30)
        while h.partialFiles().isEmpty && Date() < deadline { usleep(20_000) }
        usleep(300_000)
        let sent = Date()
        kill(running.pid, signal)
        let outcome = running.wait(timeout: 40)
        #expect(Date().timeIntervalSince(sent) < 5, "took \(Date().timeIntervalSince(sent)) s to stop")
        #expect(outcome.exitStatus == 130, "\(outcome)")
        #expect(h.partialFiles().isEmpty, "\(h.partialFiles())")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "precious")
    }

    @Test("SIGHUP stops a batch too: exit 130, no temporary file")
    func hangupStopsBatch() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 20)
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n1\n2\n")
        let running = try h.start("exec " + Harness.commandLine(["batch", input, "-c", try config(h), "--vars", csv,
                                                                 "--output", "rows/{id}.mp4", "--preset", "slow"]))
        let deadline = Date().addingTimeInterval(30)
        while h.partialFiles().isEmpty && Date() < deadline { usleep(20_000) }
        usleep(300_000)
        kill(running.pid, SIGHUP)
        let outcome = running.wait(timeout: 40)
        #expect(outcome.exitStatus == 130, "\(outcome)")
        #expect(h.partialFiles().isEmpty, "\(h.partialFiles())")
    }

    @Test("a newline in a path keeps the error on one line (escaped)")
    func newlineInPath() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try config(h)
        let missing = try h.shell(Harness.commandLine(["transcode", "no\nsuch.mp4", "out.mp4", "-c", config]))
        expectCleanFailure(missing, status: 66, naming: "no\\nsuch.mp4", in: h)
        let badConfig = try h.shell(Harness.commandLine(["stamp", "in.png", "-o", "out.png", "-c", "my\nconfig.json"]))
        expectCleanFailure(badConfig, status: 66, naming: "my\\nconfig.json", in: h)
        // A carriage return or an escape sequence must not rewrite the terminal line either.
        let escape = try h.shell(Harness.commandLine(["transcode", "a\r\u{1B}[2Kb.mp4", "out.mp4", "-c", config]))
        #expect(escape.exitStatus == 66)
        #expect(!escape.stderr.contains("\r") && !escape.stderr.contains("\u{1B}"), "\(escape.stderr.debugDescription)")
    }
}
