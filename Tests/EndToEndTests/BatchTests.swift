import Foundation
import TestSupport
import Testing

/// `videowm batch` end to end: a one-second generated clip, a handful of rows, outputs
/// judged by ffprobe and the report.
@Suite("batch, end to end")
struct BatchTests {
    static let clipFrames = 30

    /// The student's e-mail moves across the frame; the premium plan leaves it out.
    func makeConfig(_ h: Harness) throws -> String {
        try h.write("config.json", #"""
        { "watermarks": [
            { "text": "{email}", "size": 0.08, "opacity": 0.8, "y": 50,
              "animation": { "type": "pingPong", "duration": 1000 }, "unless": { "plan": ["premium"] } }
        ] }
        """#)
    }

    func makeCSV(_ h: Harness, rows: Int, premium: Set<Int> = [], name: String = "students.csv") throws -> String {
        var text = "email,name,id,plan\r\n"
        for id in 1...rows {
            text += "s\(id)@example.com,\"Student, No. \(id)\",\(id),\(premium.contains(id) ? "premium" : "free")\r\n"
        }
        return try h.write(name, text)
    }

    func makeClip(_ h: Harness, width: Int = 192, height: Int = 108, extra: [String] = []) throws -> String {
        try h.makeClip("lecture.mp4", width: width, height: height, seconds: 1, audio: true, extra: extra)
    }

    func partialFiles(_ h: Harness, folder: String = "out") -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: h.path(folder))) ?? []
        return entries.filter { $0.contains("videowm-partial") }
    }

    struct ReportLine: Decodable {
        var row: Int
        var output: String
        var status: String
        var seconds: Double
        var error: String?
    }

    func reportLines(_ path: String) throws -> [ReportLine] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try JSONDecoder().decode(ReportLine.self, from: Data($0.utf8)) }
    }

    func modificationDate(_ path: String) throws -> Date {
        try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
    }

    @Test("every row gets its own marked output; the premium row is a stream copy; a re-run skips them all")
    func rowsOutputsAndReport() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try makeClip(h)
        let config = try makeConfig(h)
        let csv = try makeCSV(h, rows: 5, premium: [3])
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let report = h.path("report.jsonl")
        let common = ["batch", input, "-c", config, "--vars", csv, "--output", "out/{id}-{name}.mp4", "--report", report,
                      "--preset", "ultrafast"]
        let first = try h.videowm(arguments: common + ["-j", "2", "--progress", "json"])
        #expect(first.status == 0, "\(first.stderr)")

        let outputs = (1...5).map { h.path("out/\($0)-Student, No. \($0).mp4") }
        for output in outputs {
            #expect(try h.videoFrameCount(output) == Self.clipFrames, "\(output)")
        }
        let inputVideo = try h.packetChecksums(input, stream: "v")
        #expect(try h.packetChecksums(outputs[2], stream: "v") == inputVideo, "the premium row must copy the video untouched")
        #expect(try h.packetChecksums(outputs[0], stream: "v") != inputVideo, "a free row must be re-encoded with its mark")
        #expect(try h.packetChecksums(outputs[0], stream: "a") == h.packetChecksums(input, stream: "a"))
        // Each student's copy differs: the e-mail is drawn into it.
        #expect(try h.packetChecksums(outputs[0], stream: "v") != h.packetChecksums(outputs[1], stream: "v"))

        let lines = try reportLines(report)
        #expect(lines.map(\.row) == [1, 2, 3, 4, 5])
        #expect(lines.allSatisfy { $0.status == "done" && $0.error == nil && $0.seconds > 0 })
        #expect(lines[0].output == "out/1-Student, No. 1.mp4")

        // --progress json: one row event per row and a final summary, on stdout.
        let events = first.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(events.filter { $0["event"] as? String == "row" }.count == 5)
        let done = events.last
        #expect(done?["event"] as? String == "done" && done?["done"] as? Int == 5 && done?["failed"] as? Int == 0)

        let stamps = try outputs.map(modificationDate)
        let again = try h.videowm(arguments: common)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try reportLines(report).suffix(5).allSatisfy { $0.status == "skipped" })
        #expect(try outputs.map(modificationDate) == stamps, "a re-run must not rewrite finished outputs")
        #expect(partialFiles(h).isEmpty)
    }

    @Test("a row whose output cannot be created, or fails midway, fails alone; the exit code says so")
    func failedRowsDoNotStopOthers() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Lossless input: the premium row's stream copy is far larger than the marked rows.
        let input = try makeClip(h, width: 480, height: 270, extra: ["-qp", "0"])
        let config = try makeConfig(h)
        let csv = try makeCSV(h, rows: 5, premium: [4])
        try FileManager.default.createDirectory(atPath: h.path("out/2.mp4"), withIntermediateDirectories: true)
        let size = try FileManager.default.attributesOfItem(atPath: input)[.size] as! Int
        #expect(size > 400_000, "input \(size) bytes")
        // A file-size limit (like a full disk) that the small marked outputs stay under and the copy does not.
        let report = h.path("report.jsonl")
        let r = try h.run("/bin/bash", ["-c", "ulimit -f 256; trap '' XFSZ; exec \"$0\" \"$@\"", Harness.videowmPath,
                                        "batch", input, "-c", config, "--vars", csv, "--output", "out/{id}.mp4", "-j", "3",
                                        "--crf", "40", "--preset", "ultrafast", "--report", report])
        #expect(r.status == 74, "\(r.stderr)")
        let byRow = Dictionary(uniqueKeysWithValues: try reportLines(report).map { ($0.row, $0) })
        #expect(byRow[2]?.status == "failed" && byRow[2]?.error?.contains("is a folder") == true, "\(byRow[2] as Any)")
        #expect(byRow[4]?.status == "failed", "\(byRow[4] as Any)")
        for row in [1, 3, 5] {
            #expect(byRow[row]?.status == "done", "row \(row): \(byRow[row] as Any)")
            #expect(try h.videoFrameCount(h.path("out/\(row).mp4")) == Self.clipFrames)
        }
        #expect(!FileManager.default.fileExists(atPath: h.path("out/4.mp4")))
        #expect(r.stderr.contains("row 2:") && r.stderr.contains("row 4:"))
        #expect(partialFiles(h).isEmpty)
    }

    @Test("mistakes in any row stop the batch before anything is encoded, naming the row")
    func validationBeforeEncoding() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try makeClip(h)
        let config = try makeConfig(h)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let duplicate = try h.write("dup.csv", "email,id\na@x.org,7\nb@x.org,8\nc@x.org,7\n")
        let r = try h.videowm("batch", input, "-c", config, "--vars", duplicate, "--output", "out/{id}.mp4")
        #expect(r.status == 64)
        #expect(r.stderr.contains("line 4 (row 3)") && r.stderr.contains("row 1"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("out")).isEmpty)

        let empty = try h.write("empty.csv", "email,id\na@x.org,1\n,2\n")
        let e = try h.videowm("batch", input, "-c", config, "--vars", empty, "--output", "out/{id}.mp4")
        #expect(e.status == 64 && e.stderr.contains("line 3 (row 2): 'email' is empty"), "\(e.stderr)")

        // Hostile values are made harmless, not refused: every file lands inside out/.
        let hostile = try h.write("hostile.csv", "email,id\na@x.org,../../escape\nb@x.org,/abs\nc@x.org,-rf\n")
        let ok = try h.videowm("batch", input, "-c", config, "--vars", hostile, "--output", "out/{id}.mp4", "--preset", "ultrafast")
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("out")).sorted() == ["______escape.mp4", "_abs.mp4", "_rf.mp4"])
        #expect(!FileManager.default.fileExists(atPath: h.path("escape.mp4")))
    }

    /// Starts a batch, waits until `rowsBeforeKill` rows are reported done (JSON progress on
    /// stdout), then sends `signal`. Returns the exit status.
    func interruptBatch(_ h: Harness, arguments: [String], rowsBeforeKill: Int, signal: Int32) throws -> Int32 {
        let process = try ChildProcess(Harness.videowmPath, arguments + ["--progress", "json"], directory: h.directory.path,
                                       stdout: .pipe, stderr: .null)
        var seen = 0
        var buffer = Data()
        let reader = process.output!
        while seen < rowsBeforeKill {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            seen = String(decoding: buffer, as: UTF8.self).components(separatedBy: "\"event\":\"row\"").count - 1
        }
        kill(process.processIdentifier, signal)
        let sent = Date()
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(sent) < 5, "took \(Date().timeIntervalSince(sent)) s to stop")
        return process.terminationStatus
    }

    @Test("interrupted (SIGINT, then SIGKILL) and re-run: every row is done exactly once, no partial file is left",
          arguments: [SIGINT, SIGKILL])
    func resumeAfterInterrupt(signal: Int32) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Big enough that a row takes a while (the interrupt lands mid-row), small enough to stay quick.
        let input = try makeClip(h, width: 320, height: 180)
        let config = try makeConfig(h)
        let csv = try makeCSV(h, rows: 6)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let arguments = ["batch", input, "-c", config, "--vars", csv, "--output", "out/{id}.mp4", "-j", "1",
                         "--preset", "medium"]
        let status = try interruptBatch(h, arguments: arguments + ["--report", h.path("first.jsonl")], rowsBeforeKill: 2, signal: signal)
        if signal == SIGINT {
            #expect(status == 130)
            #expect(partialFiles(h).isEmpty, "SIGINT must remove the temporary file at once")
        }
        let firstDone = Set(try reportLines(h.path("first.jsonl")).filter { $0.status == "done" }.map(\.row))
        #expect(firstDone.count >= 2 && firstDone.count < 6, "rows done before the interrupt: \(firstDone.sorted())")
        let stamps = try firstDone.map { try modificationDate(h.path("out/\($0).mp4")) }

        let rerun = try h.videowm(arguments: arguments + ["--report", h.path("second.jsonl")])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let second = try reportLines(h.path("second.jsonl"))
        #expect(second.map(\.row) == [1, 2, 3, 4, 5, 6])
        for line in second {
            // A row committed just before a SIGKILL, without its report line yet, is skipped too.
            #expect(line.status == (firstDone.contains(line.row) ? "skipped" : line.status), "row \(line.row)")
            #expect(line.status == "done" || line.status == "skipped")
        }
        let doneTwice = Set(second.filter { $0.status == "done" }.map(\.row)).intersection(firstDone)
        #expect(doneTwice.isEmpty)
        #expect(try firstDone.map { try modificationDate(h.path("out/\($0).mp4")) } == stamps)
        for row in 1...6 {
            #expect(try h.videoFrameCount(h.path("out/\(row).mp4")) == Self.clipFrames, "row \(row)")
        }
        #expect(partialFiles(h).isEmpty)
    }

    @Test("N shard processes, from --shard, Slurm's and Kubernetes' variables, produce every row exactly once")
    func shardsCoverEveryRowOnce() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try makeClip(h)
        let config = try makeConfig(h)
        let csv = try makeCSV(h, rows: 7, premium: [5])
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let report = h.path("report.jsonl")
        let arguments = ["batch", input, "-c", config, "--vars", csv, "--output", "out/{id}.mp4", "--report", report,
                         "--preset", "ultrafast", "-q"]
        let environments: [(flags: [String], environment: [String: String])] = [
            (["--shard", "0/3"], [:]),
            ([], ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"]),
            ([], ["JOB_COMPLETION_INDEX": "2", "VIDEOWM_SHARD_COUNT": "3"]),
        ]
        let processes = try environments.map { setup in
            try ChildProcess(Harness.videowmPath, arguments + setup.flags,
                             environment: ProcessInfo.processInfo.environment.merging(setup.environment) { _, new in new },
                             directory: h.directory.path, stdout: .null, stderr: .null)
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == [0, 0, 0])

        let lines = try reportLines(report)
        #expect(lines.map(\.row).sorted() == Array(1...7), "each row reported once: \(lines.map(\.row))")
        #expect(lines.allSatisfy { $0.status == "done" })
        for row in 1...7 {
            #expect(try h.videoFrameCount(h.path("out/\(row).mp4")) == Self.clipFrames, "row \(row)")
        }
        #expect(partialFiles(h).isEmpty)
    }
}

/// The Slurm integration test: a real single-node Slurm (munge, slurmctld, slurmd from
/// Debian's packages, on loopback) runs `samples/slurm/videowm-batch.sbatch` as an array job.
/// It installs packages and starts daemons, so it runs in CI (`CI=true`) or when asked.
@Suite("batch on a real Slurm")
struct SlurmBatchTests {
    static let isEnabled: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["CI"] == "true" || environment["VIDEOWM_SLURM_TEST"] == "1"
    }()

    @Test("an array job of 4 tasks writes every row's output",
          .enabled(if: isEnabled, "installs Slurm and starts its daemons as root: runs with CI=true or VIDEOWM_SLURM_TEST=1"),
          .timeLimit(.minutes(10)))
    func arrayJob() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Tests/slurm/run-slurm-test.sh").path
        let r = try h.run("/bin/bash", [script, Harness.videowmPath, h.path("slurm")])
        #expect(r.status == 0, "run-slurm-test.sh failed:\n\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("slurm test: passed"), "\(r.stdout)")
    }
}
