import Foundation
import TestSupport
import Testing

/// `batch` to `.m3u8`: per-student playlists whose unmarked segments are the input's packets,
/// stored once in a shared folder, judged by FFmpeg, decoded pixels and the files on disk.
@Suite("HLS batch: shared segments")
struct HLSBatchTests {
    /// Visible 6 s of every 30 s: at 0–6 s and 30–36 s of a 60-s input.
    static let config = #"""
    { "watermarks": [ { "text": "{email}", "size": 0.12, "opacity": 0.9, "anchor": "center",
                        "start": 0, "interval": 6000, "skip": 24000 } ] }
    """#
    static let students = ["alice", "bob", "carol", "dave"]

    /// 60 s at 30 fps, an IDR every 2 s, B-frames (decode and presentation order differ), AAC:
    /// small pictures keep it fast.
    static func lecture(_ h: Harness) throws -> String {
        try h.makeClip("lecture.mp4", width: 192, height: 108, seconds: 60,
                       extra: ["-preset", "veryfast", "-x264-params", "keyint=60:min-keyint=60:scenecut=0:bframes=2"])
    }

    static func csv(_ h: Harness) throws -> String {
        try h.write("students.csv", "id,email\n" + students.map { "\($0),\($0)@example.com\n" }.joined())
    }

    /// The lecture, the config and the students' CSV, with the `hls` output folder made.
    static func batchInputs(_ h: Harness) throws -> (input: String, config: String, csv: String) {
        let made = (try lecture(h), try h.write("c.json", config), try csv(h))
        try FileManager.default.createDirectory(atPath: h.path("hls"), withIntermediateDirectories: true)
        return made
    }

    /// The playlist's segment URIs (the initialization segment first).
    static func files(of playlist: String) throws -> [String] {
        let lines = try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
        let map = lines.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).dropLast()) }
        return [map].compactMap { $0 } + lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    /// The MD5 of every decoded video frame, in presentation order.
    static func frameHashes(_ h: Harness, _ file: String) throws -> [String] {
        let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v:0", "-f", "framemd5", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Bytes of every regular file under `folder`.
    static func bytes(under folder: String) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        var total = 0
        for case let name as String in walker {
            let attributes = try? FileManager.default.attributesOfItem(atPath: (folder as NSString).appendingPathComponent(name))
            if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? Int) ?? 0 }
        }
        return total
    }

    @Test("4 students: shared segments written once and listed by all, each mark in the student's own segments, a fraction of 4 MP4 copies on disk")
    func fourStudentsShareTheirUnmarkedSegments() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, config, csv) = try Self.batchInputs(h)
        let r = try h.videowm("batch", input, "-c", config, "--vars", csv, "--output", h.path("hls/{id}.m3u8"), "--segment", "6", "-q")
        #expect(r.status == 0, "\(r.stderr)")

        let inputFrames = try h.videoFrameCount(input)
        let inputTimes = try h.videoFrameTimes(input)
        let inputHashes = try Self.frameHashes(h, input)
        #expect(inputFrames == 1800)
        var own: [String: [String]] = [:]
        var shared: [String: Set<String>] = [:]
        var marked: [String: [Int: String]] = [:]
        for student in Self.students {
            let playlist = h.path("hls/\(student).m3u8")
            let files = try Self.files(of: playlist)
            for file in files {
                #expect(FileManager.default.fileExists(atPath: h.path("hls/" + file)), "\(student): \(file) is listed but missing")
            }
            shared[student] = Set(files.filter { $0.hasPrefix("shared-segments/") })
            own[student] = files.filter { !$0.hasPrefix("shared-segments/") }
            #expect(try h.videoFrameCount(playlist) == inputFrames)
            #expect(try h.videoFrameTimes(playlist) == inputTimes)
            let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", playlist, "-map", "0", "-f", "null", "-"])
            #expect(strict.status == 0 && strict.stderr.isEmpty, "\(student): \(strict.stderr)")

            // The mark changes the pictures of 0–6 s and 30–36 s, and no other picture: every
            // other frame decodes to the input's own pixels.
            let hashes = try Self.frameHashes(h, playlist)
            try #require(hashes.count == inputHashes.count)
            let changed = hashes.indices.filter { hashes[$0] != inputHashes[$0] }
            #expect(changed.allSatisfy { (0..<180).contains($0) || (900..<1080).contains($0) }, "\(student): frames \(changed.prefix(5)) changed")
            #expect(changed.contains(90) && changed.contains(990), "\(student): the mark is missing")
            marked[student] = Dictionary(uniqueKeysWithValues: changed.map { ($0, hashes[$0]) })
        }
        // The initialization segment and the 8 unmarked segments are the same files for all 4;
        // the 2 marked segments are each student's own, and differ between students.
        let common = Self.students.map { shared[$0]! }.reduce(shared["alice"]!) { $0.intersection($1) }
        #expect(common.count == 9)
        #expect(Self.students.allSatisfy { shared[$0] == common })
        for student in Self.students {
            #expect(own[student]!.count == 2 && own[student]!.allSatisfy { $0.hasPrefix("\(student)-") }, "\(student): \(own[student]!)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("hls/shared-segments")).count == 9)
        #expect(Set(Self.students.flatMap { own[$0]! }).count == 8)
        #expect(marked["alice"]![90] != marked["bob"]![90] && marked["carol"]![990] != marked["dave"]![990])

        // Storage: the 4 presentations (shared folder counted once) against 4 smart-rendered
        // MP4 copies made by the same batch (the issue's yardstick), and against 4 × the input.
        try FileManager.default.createDirectory(atPath: h.path("mp4"), withIntermediateDirectories: true)
        let copies = try h.videowm("batch", input, "-c", config, "--vars", csv, "--output", h.path("mp4/{id}.mp4"), "--render", "smart", "-q")
        #expect(copies.status == 0, "\(copies.stderr)")
        let presentations = Self.bytes(under: h.path("hls"))
        let mp4s = Self.bytes(under: h.path("mp4"))
        let inputBytes = try FileManager.default.attributesOfItem(atPath: input)[.size] as! Int
        print("HLS batch storage: 4 presentations \(presentations) bytes; 4 smart-rendered MP4 copies \(mp4s) (ratio \(Double(presentations) / Double(mp4s))); 4 × input \(4 * inputBytes) (ratio \(Double(presentations) / Double(4 * inputBytes)))")
        #expect(Double(presentations) <= 0.55 * Double(mp4s))
        #expect(Double(presentations) <= 0.55 * Double(4 * inputBytes))

        // A re-run skips every row (a row is done when its playlist exists); a lost playlist is
        // made again from the same files, and nothing is written twice.
        let before = try FileManager.default.contentsOfDirectory(atPath: h.path("hls/shared-segments")).sorted()
        let bobPlaylist = try String(contentsOfFile: h.path("hls/bob.m3u8"), encoding: .utf8)
        try FileManager.default.removeItem(atPath: h.path("hls/bob.m3u8"))
        let again = try h.videowm("batch", input, "-c", config, "--vars", csv, "--output", h.path("hls/{id}.m3u8"), "--segment", "6",
                                  "--report", h.path("report.jsonl"), "-q")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: h.path("hls/bob.m3u8"), encoding: .utf8) == bobPlaylist)
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("hls/shared-segments")).sorted() == before)
        let report = try String(contentsOfFile: h.path("report.jsonl"), encoding: .utf8)
        #expect(report.components(separatedBy: "\"skipped\"").count - 1 == 3 && report.components(separatedBy: "\"done\"").count - 1 == 1, "\(report)")
    }

    @Test("a killed batch leaves no playlist naming a missing segment, and the next run leaves no temporary file")
    func killedBatchIsRecovered() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, config, csv) = try Self.batchInputs(h)
        let arguments = ["batch", input, "-c", config, "--vars", csv, "--output", h.path("hls/{id}/index.m3u8"), "--segment", "6",
                         "--shared-segments", h.path("segments"), "-j", "1", "-q"]

        let process = try ChildProcess(Harness.videowmPath, arguments, directory: h.directory.path, stderr: .null)
        let deadline = Date().addingTimeInterval(120)
        func sharedSegments() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: h.path("segments"))) ?? []).filter { $0.hasSuffix(".m4s") }
        }
        while sharedSegments().count < 3 && Date() < deadline && process.isRunning { usleep(20_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the batch ended before it could be killed")

        // Whatever playlists exist name only files that exist.
        func checkPlaylists() throws -> Int {
            var count = 0
            for student in Self.students where FileManager.default.fileExists(atPath: h.path("hls/\(student)/index.m3u8")) {
                count += 1
                for file in try Self.files(of: h.path("hls/\(student)/index.m3u8")) {
                    #expect(FileManager.default.fileExists(atPath: h.path("hls/\(student)/" + file)), "\(student): \(file) is listed but missing")
                }
            }
            return count
        }
        #expect(try checkPlaylists() < Self.students.count)
        // What a process killed while writing leaves (unlocked temporary files), made sure of.
        _ = try h.write("segments/.0123456789abcdef.m4s.k1ll3d.videowm-partial.m4s", "torn")
        try FileManager.default.createDirectory(atPath: h.path("hls/alice"), withIntermediateDirectories: true)
        _ = try h.write("hls/alice/.index.m3u8.k1ll3d.videowm-partial.m3u8", "")

        let next = try h.videowm(arguments: arguments)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try checkPlaylists() == Self.students.count)
        var leftovers: [String] = []
        for folder in ["segments", "hls"] {
            for case let name as String in FileManager.default.enumerator(atPath: h.path(folder))! where name.contains("videowm-partial") {
                leftovers.append(name)
            }
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
        // Every file in the shared folder is listed by every playlist.
        let listed = Set(try Self.students.flatMap { try Self.files(of: h.path("hls/\($0)/index.m3u8")) }.map { ($0 as NSString).lastPathComponent })
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: h.path("segments"))).isSubset(of: listed))
        #expect(try h.videoFrameCount(h.path("hls/dave/index.m3u8")) == 1800)
    }

    @Test("two shards running at once into one shared folder: every playlist complete, each shared segment stored once, the same files as one run makes")
    func concurrentShardsShareOneFolder() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, config, csv) = try Self.batchInputs(h)
        func arguments(_ shard: String, into folder: String) -> [String] {
            ["batch", input, "-c", config, "--vars", csv, "--output", h.path("\(folder)/{id}.m3u8"), "--segment", "6",
             "--shared-segments", h.path("\(folder)/shared"), "--shard", shard, "-q"]
        }
        let shards = try ["0/2", "1/2"].map { shard in
            try ChildProcess(Harness.videowmPath, arguments(shard, into: "hls"), directory: h.directory.path, stderr: .null)
        }
        for process in shards { process.waitUntilExit() }
        #expect(shards.allSatisfy { $0.terminationReason == .exit && $0.terminationStatus == 0 })

        try FileManager.default.createDirectory(atPath: h.path("one"), withIntermediateDirectories: true)
        let single = try h.videowm(arguments: Array(arguments("0/1", into: "one")))
        #expect(single.status == 0, "\(single.stderr)")

        for student in Self.students {
            let files = try Self.files(of: h.path("hls/\(student).m3u8"))
            #expect(files == (try Self.files(of: h.path("one/\(student).m3u8"))), "\(student): the shards listed other files than one run")
            for file in files {
                #expect(FileManager.default.fileExists(atPath: h.path("hls/" + file)), "\(student): \(file) is listed but missing")
            }
        }
        let shared = try FileManager.default.contentsOfDirectory(atPath: h.path("hls/shared")).sorted()
        #expect(shared == (try FileManager.default.contentsOfDirectory(atPath: h.path("one/shared")).sorted()))
        #expect(shared.count == 9 && !shared.contains { $0.contains("videowm-partial") }, "\(shared)")
    }
}
