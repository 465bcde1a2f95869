import Foundation
import Testing

/// Issue 19, encoder options and output names: values the encoder would refuse, codecs the
/// container cannot hold, output names near the file system's limit — all refused (or made)
/// before any file is read.
@Suite("reliability: encoder options and output names")
struct ReliabilityEncodeOptionsTests {
    func config(_ h: Harness, text: String = "options") throws -> String {
        try h.write("c.json", #"{ "watermarks": [ { "text": "\#(text)", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#)
    }

    static let maximum = "9223372036854775807"

    @Test("an output container that cannot hold the video codec is refused up front (64) naming both", arguments: [
        (["out.gif"], "gif", "h264"), (["out.png"], "png", "h264"),
        (["out.webm", "--codec", "h264"], "webm", "h264"), (["out.webm", "--codec", "hevc"], "webm", "hevc"),
        (["out.ts", "--codec", "vp9"], "ts", "vp9"),
        (["out.mp4", "--codec", "vp9", "--audio", "none"], nil, nil),
    ] as [([String], String?, String?)])
    func codecAndContainer(output: [String], container: String?, codec: String?) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input] + output + ["-c", try config(h)]), timeout: 120)
        guard let container, let codec else {
            #expect(outcome.exitStatus == 0, "VP9 in MP4 is a valid pairing: \(outcome)")
            return
        }
        expectCleanFailure(outcome, status: 64, naming: output[0], within: 5, in: h)
        let line = outcome.errorLines.first?.lowercased() ?? ""
        #expect(line.contains(container) && line.contains(codec), "\(outcome.stderr)")
        // MPEG-TS answers no codec query; the advice still names the codecs it holds.
        if container == "ts" { #expect(line.contains("--codec h264 or hevc"), "\(outcome.stderr)") }
        #expect(!FileManager.default.fileExists(atPath: h.path(output[0])))
    }

    @Test("a DASH output whose MPD cannot be written (a folder in its place) is refused up front (73) and nothing is written beside it", arguments: ["out.mpd"])
    func playlistOutputs(output: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        let config = try config(h)
        try FileManager.default.createDirectory(atPath: h.path(output), withIntermediateDirectories: true)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: h.path(".")))
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input, output, "-c", config]), timeout: 120)
        expectCleanFailure(outcome, status: 73, naming: output, within: 5, in: h)
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: h.path(".")).filter { !$0.hasPrefix(".run-") })  // the harness's captured output
        #expect(after == before, "files left beside the output: \(after.subtracting(before).sorted())")
    }

    @Test("a batch whose outputs are .gif is refused before the first row is encoded")
    func batchCodecAndContainer() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1)
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n1\n2\n")
        let outcome = try h.shell("exec " + Harness.commandLine(["batch", input, "-c", try config(h), "--vars", csv, "--output", "rows/{id}.gif"]))
        expectCleanFailure(outcome, status: 64, naming: "gif", within: 5, in: h)
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("rows")).isEmpty)
    }

    @Test("output names up to the file system's 255 bytes work (the temporary name must be shorter)", arguments: [230, 255])
    func longOutputNames(length: Int) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 0.5)
        let config = try config(h)
        let video = String(repeating: "v", count: length - 4) + ".mp4"
        let transcoded = try h.shell("exec " + Harness.commandLine(["transcode", input, video, "-c", config, "--preset", "ultrafast"]), timeout: 60)
        #expect(transcoded.exitStatus == 0, "\(transcoded)")
        #expect(try h.videoFrameCount(h.path(video)) == 15)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", h.path("in.png")])
        let still = String(repeating: "s", count: length - 4) + ".png"
        let stamped = try h.shell("exec " + Harness.commandLine(["stamp", "in.png", "-o", still, "-c", config]))
        #expect(stamped.exitStatus == 0, "\(stamped)")
        #expect(FileManager.default.fileExists(atPath: h.path(still)))
        // A batch row whose value makes the name that long.
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n" + String(repeating: "b", count: length - 4) + "\n")
        let batch = try h.shell("exec " + Harness.commandLine(["batch", input, "-c", config, "--vars", csv, "--output", "rows/{id}.mp4",
                                                               "--preset", "ultrafast"]), timeout: 60)
        #expect(batch.exitStatus == 0, "\(batch)")
        #expect(FileManager.default.fileExists(atPath: h.path("rows/" + String(repeating: "b", count: length - 4) + ".mp4")))
        #expect(h.partialFiles().isEmpty)
    }

    /// The temporary name is kept within the limit, so only the final rename would have failed:
    /// after the whole job, as an I/O error (74) though nothing could ever have been written.
    @Test("an output name longer than the file system allows cannot be created (73), said before any work, naming it")
    func outputNameTooLong() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 0.5)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1", h.path("in.png")])
        let config = try config(h, text: "x")
        let stem = String(repeating: "n", count: 300)
        let commands: [[String]] = [
            ["transcode", input, stem + ".mp4", "-c", config], ["transcode", input, stem + ".m3u8", "-c", config],
            ["stamp", "in.png", "-o", stem + ".png", "-c", config], ["thumbnail", input, stem + ".png", "--at", "0.2", "-c", config],
            ["preview", input, "-c", config, "-o", stem + ".png"],
        ]
        for arguments in commands {
            let outcome = try h.shell("exec " + Harness.commandLine(arguments))
            expectCleanFailure(outcome, status: 73, naming: stem, within: 5, in: h)
            #expect(outcome.errorLines.first?.contains("bytes long; the file system allows at most 255") == true, "\(outcome.stderr)")
        }
        // A folder in the way named too long says so too, and a path over PATH_MAX.
        let deep = Array(repeating: String(repeating: "d", count: 200), count: 25).joined(separator: "/") + "/out.mp4"
        for output in [stem + "/out.mp4", deep] {
            let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input, output, "-c", config]))
            expectCleanFailure(outcome, status: 73, naming: "out.mp4", within: 5, in: h)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path(".")).filter { $0.hasPrefix("nnn") || $0.hasPrefix(".nnn") }.isEmpty)
    }

    @Test("encoder options the encoder would refuse are usage errors (64) naming the option, before any file is read",
          arguments: [
            (["--bitrate", "0.5"], "--bitrate"), (["--bitrate", "0"], "--bitrate"), (["--bitrate", "1e400"], "--bitrate"),
            (["--crf", "60"], "--crf"), (["--codec", "hevc", "--crf", "55"], "--crf"), (["--crf", "-1"], "--crf"),
            (["--preset", "foo"], "--preset"), (["--codec", "hevc", "--preset", "foo"], "--preset"),
            (["--codec", "vp9", "--preset", "foo"], "--preset"), (["--codec", "av1", "--preset", "99"], "--preset"),
            (["--threads", maximum], "--threads"),
          ])
    func encoderOptions(options: [String], option: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", "missing.mp4", "out.mp4", "-c", try config(h)] + options))
        expectCleanFailure(outcome, status: 64, naming: option, within: 5, in: h)
        let batch = try h.shell("exec " + Harness.commandLine(["batch", "missing.mp4", "-c", try config(h), "--vars", "rows.csv",
                                                               "--output", "{id}.mp4"] + options))
        expectCleanFailure(batch, status: 64, naming: option, within: 5, in: h)
    }

    @Test("valid encoder options still work", arguments: [
        ["--crf", "51"], ["--codec", "hevc", "--crf", "0", "--preset", "ultrafast"], ["--preset", "veryslow", "--crf", "40"],
        ["--bitrate", "200k"], ["--codec", "vp9", "--crf", "63", "--preset", "8"],
    ])
    func validEncoderOptions(options: [String]) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 64, height: 48, seconds: 0.3)
        let output = options.contains("vp9") ? "out.webm" : "out.mp4"
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input, output, "-c", try config(h)] + options), timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
    }
}
