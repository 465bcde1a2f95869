import Foundation
import Testing

/// Issue 19, numbers and names from the command line and the environment: scheduler
/// variables at the integer limits, empty file options, the limits of a batch.
@Suite("reliability: options, environment and limits")
struct ReliabilityOptionsTests {
    func config(_ h: Harness, text: String = "options") throws -> String {
        try h.write("c.json", #"{ "watermarks": [ { "text": "\#(text)", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#)
    }

    static let minimum = "-9223372036854775808", maximum = "9223372036854775807"

    @Test("scheduler variables at the integer limits are usage errors (64) naming the variable, never a trap",
          arguments: [
            ["SLURM_ARRAY_TASK_ID": maximum, "SLURM_ARRAY_TASK_MIN": "-1", "SLURM_ARRAY_TASK_COUNT": "4"],
            ["SLURM_ARRAY_TASK_ID": minimum, "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"],
            ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": minimum],
            ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": minimum],
            ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_STEP": minimum, "SLURM_ARRAY_TASK_COUNT": "4"],
            ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_STEP": "0", "SLURM_ARRAY_TASK_COUNT": "4"],
            ["SLURM_ARRAY_TASK_ID": maximum, "SLURM_ARRAY_TASK_STEP": maximum, "SLURM_ARRAY_TASK_COUNT": maximum],
            ["SLURM_ARRAY_TASK_ID": "99999999999999999999", "SLURM_ARRAY_TASK_COUNT": "4"],
            ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "99999999999999999999"],
            ["JOB_COMPLETION_INDEX": maximum, "VIDEOWM_SHARD_COUNT": minimum],
            ["JOB_COMPLETION_INDEX": "-1", "VIDEOWM_SHARD_COUNT": "4"],
            ["JOB_COMPLETION_INDEX": "0", "VIDEOWM_SHARD_COUNT": maximum],
            ["JOB_COMPLETION_INDEX": minimum, "VIDEOWM_SHARD_COUNT": "99999999999999999999"],
          ])
    func schedulerVariablesAtTheLimits(environment: [String: String]) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 0.5, audio: false)
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n1\n2\n")
        let outcome = try h.shell("exec " + Harness.commandLine(["batch", input, "-c", try config(h), "--vars", csv, "--output", "rows/{id}.mp4",
                                                                 "--preset", "ultrafast"]), environment: environment)
        expectCleanFailure(outcome, status: 64, naming: nil, in: h)
        #expect(environment.keys.contains { outcome.stderr.contains($0) }, "the line should name the variable at fault: \(outcome.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("rows")).isEmpty)
    }

    @Test("--shard and --shard-count at the integer limits are usage errors (64) naming the option", arguments: [
        ["--shard", "\(maximum)/\(minimum)"], ["--shard", "\(minimum)/\(maximum)"], ["--shard", "0/\(maximum)"],
        ["--shard", "1/0"], ["--shard", "99999999999999999999/4"], ["--shard-count", "99999999999999999999"],
        ["--shard-count", minimum], ["--shard-count", "0"], ["-j", maximum],
    ])
    func shardOptionsAtTheLimits(options: [String]) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n1\n2\n")
        // The input does not exist: options are checked before any file is opened.
        let outcome = try h.shell("exec " + Harness.commandLine(["batch", "missing.mp4", "-c", try config(h), "--vars", csv,
                                                                 "--output", "rows/{id}.mp4"] + options),
                                  environment: ["JOB_COMPLETION_INDEX": "0"])
        expectCleanFailure(outcome, status: 64, naming: options[0], in: h)
    }

    @Test("-c '' is a usage error naming -c, not \"no such file\"")
    func emptyConfigPath() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 0.5)
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input, "out.mp4", "-c", ""]))
        expectCleanFailure(outcome, status: 64, naming: "-c", in: h)
        #expect(!outcome.stderr.contains("no such file"), "\(outcome.stderr)")
    }

    /// A 2.0-s video at 25 fps: its last frame shows from 1.96 s to 2.0 s. The end itself gives
    /// that frame; anything after it (even by a millisecond, as by half a second) is refused,
    /// naming the duration, since a silent last frame would pass for the frame asked for.
    @Test("thumbnail --at past the video's end is a usage error (64) naming its duration; at the end, the last frame",
          arguments: [("1000", false), ("2.45", false), ("2.001", false), ("2.0", true), ("1.97", true)])
    func thumbnailPastTheEnd(at: String, accepted: Bool) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", rate: "25", seconds: 2)
        let outcome = try h.shell("exec " + Harness.commandLine(["thumbnail", input, "t.png", "--at", at, "-c", try config(h)]))
        guard !accepted else {
            #expect(outcome.exitStatus == 0 && outcome.stderr.isEmpty, "\(outcome)")
            let last = try h.run("ffmpeg", ["-v", "error", "-sseof", "-0.04", "-i", input, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            let shown = try h.run("ffmpeg", ["-v", "error", "-i", h.path("t.png"), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            // The picture above the mark is the last frame's (colour conversions differ by a few levels).
            #expect(meanDifference([UInt8](shown.stdoutData), [UInt8](last.stdoutData), width: 320, x: 0..<320, y: 0..<90) < 6)
            return
        }
        expectCleanFailure(outcome, status: 64, naming: "--at \(at)", in: h)
        #expect(outcome.errorLines.first?.contains("lasts only 2.000 s") == true, "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("t.png")))
    }

    @Test("a batch row whose text is 100,000 characters is refused before row 1 is encoded")
    func batchRowTooLong() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        _ = try h.write("c.json", #"{ "watermarks": [ { "text": "{name}", "size": 0.05 } ] }"#)
        let csv = try h.write("rows.csv", "id,name\n1,Ada\n2," + String(repeating: "n", count: 100_000) + "\n")
        let outcome = try h.shell("exec " + Harness.commandLine(["batch", input, "-c", h.path("c.json"), "--vars", csv,
                                                                 "--output", "rows/{id}.mp4"]))
        expectCleanFailure(outcome, status: 64, naming: "line 3 (row 2)", in: h)
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("rows")).isEmpty, "row 1 was encoded before the check")
    }
}
