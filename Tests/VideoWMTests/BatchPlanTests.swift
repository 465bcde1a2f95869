import Foundation
import Testing
@testable import VideoWM

private let studentConfig = #"""
{ "watermarks": [
    { "text": "{email}", "animation": { "type": "pingPong" } },
    { "text": "{name}", "unless": { "plan": ["premium"] } }
] }
"""#

private func plan(_ csvText: String, output: String = "out/{id}.mp4", config: String = studentConfig,
                  fixed: [String: String] = [:], warnings: WarningLog = WarningLog()) throws -> BatchPlan {
    try BatchPlan(config: parse(config), table: csv(csvText), outputTemplate: OutputPathTemplate(output),
                  target: OutputTarget(path: output), fixedVariables: fixed, warn: warnings.handler)
}

private func planError(_ csvText: String, output: String = "out/{id}.mp4", config: String = studentConfig) -> (any Error)? {
    do {
        _ = try plan(csvText, output: output, config: config)
        return nil
    } catch {
        return error
    }
}

@Suite("batch: output paths")
struct OutputPathTemplateTests {
    @Test func plainValuesFillTheTemplate() throws {
        let template = try OutputPathTemplate("out/{course}/{id}-{name}.mp4")
        #expect(template.baseDirectory == "out")
        #expect(try template.resolve(["course": "CS101", "id": "1001", "name": "Zoë Müller"]) == "out/CS101/1001-Zoë Müller.mp4")
    }

    @Test("hostile values stay inside the template's folder, as one harmless name")
    func hostileValues() throws {
        let template = try OutputPathTemplate("out/{id}.mp4")
        let cases: [(String, String)] = [
            ("../../etc/x", "out/______etc_x.mp4"),
            ("/abs", "out/_abs.mp4"),
            ("..", "out/__.mp4"),
            (".", "out/_.mp4"),
            (".hidden", "out/_hidden.mp4"),
            ("-rf", "out/_rf.mp4"),
            ("a\0b", "out/a_b.mp4"),
            ("tab\there\nnewline\u{7F}", "out/tab_here_newline_.mp4"),
            ("a\\b", "out/a_b.mp4"),
            ("gpj\u{202E}.exe", "out/gpj_.exe.mp4"),
            ("ada@example.com", "out/ada@example.com.mp4"),
            ("Ünïcødé 名前", "out/Ünïcødé 名前.mp4"),
        ]
        for (value, expected) in cases {
            #expect(try template.resolve(["id": value]) == expected, "value \(value.debugDescription)")
        }
    }

    @Test("a value can never produce '..' as a path component, even next to a literal dot")
    func dotsNextToLiterals() throws {
        let template = try OutputPathTemplate("out/.{a}/{b}.mp4")
        // ".{a}" with a = "." would be ".." without the leading-dot rule.
        let path = try template.resolve(["a": ".", "b": "x"])
        #expect(path == "out/._/x.mp4")
        #expect(!path.split(separator: "/").contains(".."))
    }

    @Test("the final check refuses a path that leaves the folder through the template's own literals")
    func finalCheck() throws {
        let template = try OutputPathTemplate("out/{id}/../../x.mp4")
        #expect(throws: RequestError.self) { try template.resolve(["id": "a"]) }
        let long = try OutputPathTemplate("out/{id}.mp4")
        #expect(throws: RequestError.self) { try long.resolve(["id": String(repeating: "é", count: 200)]) }
    }

    @Test func baseDirectories() throws {
        #expect(try OutputPathTemplate("{id}.mp4").baseDirectory == ".")
        #expect(try OutputPathTemplate("/data/videos/{id}.mp4").baseDirectory == "/data/videos")
        #expect(try OutputPathTemplate("./out/x-{id}.mp4").baseDirectory == "out")
        #expect(try OutputPathTemplate("../shared/{id}.mkv").baseDirectory == "../shared")
        #expect(try OutputPathTemplate("/{id}.mp4").baseDirectory == "/")
    }

    @Test func badTemplates() {
        #expect(throws: RequestError.self) { try OutputPathTemplate("out/same.mp4") }
        #expect(throws: RequestError.self) { try OutputPathTemplate("out/{id.mp4") }
        #expect(throws: RequestError.self) { try OutputPathTemplate("out/{id}/") }
    }
}

@Suite("batch: validating every row first")
struct BatchPlanTests {
    let students = """
    email,name,id,plan
    ada@example.com,Ada Lovelace,1001,free
    grace@example.com,"Hopper, Grace",1002,premium
    zoe@example.com,Zoë Müller,1003,free
    """

    @Test func rowsAreBound() throws {
        let p = try plan(students)
        #expect(p.rows.map(\.output) == ["out/1001.mp4", "out/1002.mp4", "out/1003.mp4"])
        #expect(p.rows[1].variables["name"] == "Hopper, Grace")
        #expect(p.rows.map(\.index) == [0, 1, 2])
    }

    @Test("--var values are shared by every row, but may not repeat a column")
    func fixedVariables() throws {
        let p = try plan("email,id\na@x.org,1\n", output: "out/{course}/{id}.mp4",
                         config: #"{ "watermarks": [ { "text": "{email} {course}" } ] }"#, fixed: ["course": "CS101"])
        #expect(p.rows[0].output == "out/CS101/1.mp4")
        #expect(throws: RequestError.self) { try plan(students, fixed: ["id": "x"]) }
    }

    @Test("an unknown placeholder in the config names the layer's JSON path")
    func unknownConfigPlaceholder() {
        let error = planError("name,id\nAda,1\n")
        #expect(error is ConfigError)
        #expect(error?.message.hasPrefix("test.json: watermarks[0].text: unknown placeholder '{email}'") == true)
    }

    @Test func unknownTemplatePlaceholder() {
        let error = planError(students, output: "out/{student_id}.mp4")
        #expect(error?.message.hasPrefix("--output: unknown placeholder '{student_id}'") == true)
    }

    @Test("an empty value a row needs is an error naming the row and its line")
    func emptyRequiredValue() {
        let error = planError("email,name,id,plan\na@x.org,A,1,free\n\"b@x.org\",\"B\n2\",,free\n")
        #expect(error?.message == "students.csv: line 3 (row 2): 'id' is empty, but --output needs it")
        let blankEmail = planError("email,name,id,plan\n  ,A,1,free\n")
        #expect(blankEmail?.message == "students.csv: line 2 (row 1): 'email' is empty, but test.json: watermarks[0].text needs it")
    }

    @Test("a value only an excluded layer uses may be empty")
    func excludedLayerNeedsNoValue() throws {
        let p = try plan("email,name,id,plan\na@x.org,,1,premium\n")
        #expect(p.rows.count == 1)
        #expect(planError("email,name,id,plan\na@x.org,,1,free\n")?.message.contains("'name' is empty") == true)
    }

    @Test("two rows resolving to one output: the error names both rows")
    func duplicateOutputs() {
        let same = planError("email,name,id,plan\na@x.org,A,7,free\nb@x.org,B,8,free\nc@x.org,C,7,free\n")
        #expect(same?.message.hasPrefix("students.csv: line 4 (row 3): its output out/7.mp4 is also the output of row 1 (line 2)") == true)
        // Different values that the file-name rules make equal are caught too.
        let sanitized = planError("email,name,id,plan\na@x.org,A,a/b,free\nb@x.org,B,a_b,free\n")
        #expect(sanitized?.message.contains("also the output of row 1") == true)
    }

    @Test("an unless variable that is not a column is a warning: that layer always shows")
    func unlessWithoutColumn() throws {
        let warnings = WarningLog()
        _ = try plan("email,name,id\na@x.org,A,1\n", warnings: warnings)
        #expect(warnings.messages == ["test.json: watermarks[1].unless.plan: students.csv has no column 'plan', so this layer is never left out"])
    }
}

@Suite("batch: shards")
struct BatchShardTests {
    @Test("N shards take every row exactly once")
    func partitionIsExact() throws {
        let rows = (0..<23).map { "r\($0)@x.org,\($0)" }.joined(separator: "\n")
        let p = try plan("email,id\n" + rows, config: #"{ "watermarks": [ { "text": "{email}" } ] }"#)
        for count in 1...7 {
            let shards = try (0..<count).map { try BatchShard(index: $0, count: count, origin: "test") }
            let taken = shards.flatMap { p.rows(in: $0).map(\.number) }
            #expect(taken.sorted() == Array(1...23), "count \(count)")
            #expect(Set(taken).count == taken.count)
            for shard in shards {
                #expect(p.rows(in: shard).allSatisfy { $0.index % count == shard.index })
            }
        }
    }

    @Test func parsingTheFlag() throws {
        #expect(try BatchShard.parse("2/4") == BatchShard(index: 2, count: 4, origin: "--shard"))
        for bad in ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", ""] {
            #expect(throws: RequestError.self, "\(bad)") { try BatchShard.parse(bad) }
        }
    }

    @Test("Slurm array variables, including arrays that start at 1 or step")
    func slurm() throws {
        let plain = try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"])
        #expect((plain.index, plain.count) == (3, 4))
        let fromOne = try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_TASK_MIN": "1"])
        #expect((fromOne.index, fromOne.count) == (0, 8))
        let stepped = try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "4",
                                                      "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2"])
        #expect((stepped.index, stepped.count) == (3, 4))
        #expect(throws: RequestError.self) { try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3"]) }
        #expect(throws: RequestError.self) { try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"]) }
    }

    @Test("a Kubernetes Indexed Job: the index from the pod, the count from the flag or VIDEOWM_SHARD_COUNT")
    func kubernetes() throws {
        let fromVariable = try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "VIDEOWM_SHARD_COUNT": "5"])
        #expect((fromVariable.index, fromVariable.count, fromVariable.origin) == (2, 5, "JOB_COMPLETION_INDEX"))
        let fromFlag = try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "VIDEOWM_SHARD_COUNT": "5"], countOverride: 3)
        #expect(fromFlag.count == 3)
        #expect(throws: RequestError.self) { try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"]) }
        #expect(throws: RequestError.self) { try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "5", "VIDEOWM_SHARD_COUNT": "5"]) }
    }

    @Test("every scheduler variable at the integer limits is a usage error naming it, never an overflow")
    func valuesAtTheLimits() throws {
        let extremes = [String(Int.min), String(Int.max), "-1", "0", "99999999999999999999", String(BatchShard.maximumSlurmValue + 1)]
        let names = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT"]
        var checked = 0
        for name in names {
            for value in extremes {
                var environment = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "4"]
                environment[name] = value
                do {
                    let shard = try BatchShard.fromEnvironment(environment)
                    #expect((0..<shard.count).contains(shard.index), "\(name)=\(value)")
                } catch let error as RequestError {
                    #expect(error.description.contains("SLURM_ARRAY_TASK_"), "\(name)=\(value): \(error)")
                }
                checked += 1
            }
        }
        for (index, count) in [(String(Int.max), String(Int.min)), ("-1", "4"), ("0", String(Int.max)), (String(Int.min), "99999999999999999999")] {
            #expect(throws: RequestError.self, "\(index)/\(count)") {
                try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": index, "VIDEOWM_SHARD_COUNT": count])
            }
            #expect(throws: RequestError.self, "\(index)/\(count)") { try BatchShard.parse("\(index)/\(count)") }
        }
        #expect(checked == names.count * extremes.count)
    }

    @Test func noSchedulerMeansTheWholeBatch() throws {
        #expect(try BatchShard.fromEnvironment(["HOME": "/root"]) == .whole)
        #expect(throws: RequestError.self) { try BatchShard.fromEnvironment([:], countOverride: 4) }
    }
}

@Suite("batch: partial files and the report")
struct BatchFilesTests {
    @Test func partialFileNames() {
        #expect(PartialOutputFiles.isPartial(".1001.mp4.k3j9x0.videowm-partial.mp4", ofTargetNamed: "1001.mp4"))
        #expect(!PartialOutputFiles.isPartial(".1001.mp4.k3j9x0.videowm-partial.mp4", ofTargetNamed: "100.mp4"))
        #expect(!PartialOutputFiles.isPartial(".1001.mp4.k3j9x0.videowm-partial.mkv", ofTargetNamed: "1001.mp4"))
        #expect(!PartialOutputFiles.isPartial(".1001.mp4..videowm-partial.mp4", ofTargetNamed: "1001.mp4"))
        #expect(PartialOutputFiles.isPartial(".noext.abc.videowm-partial", ofTargetNamed: "noext"))
    }

    @Test("stale partial files are removed; one a live writer holds is kept")
    func staleCleanup() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("batch-partials-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stale = folder + "/.a.mp4.abc123.videowm-partial.mp4"
        let live = folder + "/.b.mp4.def456.videowm-partial.mp4"
        let unrelated = folder + "/.c.mp4.zzz.videowm-partial.mp4"
        for path in [stale, live, unrelated] { _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8)) }
        let lock = PartialFileLock(path: live)
        let removed = PartialOutputFiles.removeStale(forTargets: [folder + "/a.mp4", folder + "/b.mp4"])
        #expect(removed == [stale])
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: unrelated))
        withExtendedLifetime(lock) {}
    }

    @Test("progress counts the open group's outputs by how far the shared decode is")
    func progressFraction() throws {
        let tracker = BatchProgressTracker(total: 5)
        let row = BatchRow(number: 1, line: 2, variables: [:], target: try OutputTarget(path: "out/1.mp4"))
        tracker.record(BatchRowResult(row: row, status: .skipped, seconds: 0, error: nil))
        tracker.start(pendingRows: 4, inputSeconds: 10)
        #expect(tracker.snapshot().fractionComplete == 0)
        tracker.groupReached(seconds: 5, activeOutputs: 2)
        #expect(tracker.snapshot().fractionComplete == 0.25)
        tracker.groupReached(seconds: 10, activeOutputs: 2)
        tracker.record(BatchRowResult(row: row, status: .done, seconds: 1, error: nil))
        #expect(tracker.snapshot().fractionComplete == 0.5, "a finished row must not be counted twice")
        tracker.record(BatchRowResult(row: row, status: .failed, seconds: 1, error: InterruptedError()))
        let p = tracker.snapshot()
        #expect(p.fractionComplete == 0.5 && (p.done, p.failed, p.skipped, p.finished) == (1, 1, 1, 3))
        #expect(p.etaSeconds != nil)
    }

    @Test func reportLines() throws {
        let row = BatchRow(number: 3, line: 4, variables: [:], target: try OutputTarget(path: "out/\"quoted\".mp4"))
        let done = BatchRowResult(row: row, status: .done, seconds: 1.23456, error: nil, render: .full, bytes: 52_345)
        #expect(done.jsonLine == #"{"row":3,"output":"out/\"quoted\".mp4","status":"done","seconds":1.235,"reencoded":1.000,"bytes":52345,"error":null}"#)
        let smart = BatchRowResult(row: row, status: .done, seconds: 1, error: nil,
                                   render: RenderOutcome(isSmart: true, reencodedSeconds: 12, totalSeconds: 60))
        #expect(smart.jsonLine.contains(#""reencoded":0.200,"#))
        let copied = BatchRowResult(row: row, status: .done, seconds: 1, error: nil)
        #expect(copied.jsonLine.contains(#""reencoded":0.000,"#))
        let failed = BatchRowResult(row: row, status: .failed, seconds: 0, error: OutputError(file: "x", stage: .creating, detail: "no\nway"))
        #expect(failed.jsonLine.hasSuffix(#""status":"failed","seconds":0.000,"reencoded":null,"bytes":null,"error":"x: no\nway"}"#))
    }
}
