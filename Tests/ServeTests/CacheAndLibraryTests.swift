import Foundation
import TestSupport
import VideoWM
import Testing
@testable import ServeCache
@testable import VideoWMServe

@Suite("serve: cache folder and library")
struct CacheAndLibraryTests {
    func temporaryFolder() -> String {
        let path = NSTemporaryDirectory() + "videowm-serve-cache-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func evictsTheLeastRecentlyUsedAndSurvivesARestart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try SegmentCache(folder: folder, capacity: 3500)
        for index in 0..<3 {
            _ = try cache.produce("l/r/shared/v/\(index).m4s") { [UInt8](repeating: UInt8(index), count: 1000) }
            usleep(20_000)
        }
        _ = cache.open("l/r/shared/v/0.m4s")  // used again: now the most recent
        usleep(20_000)
        _ = try cache.produce("l/r/shared/v/3.m4s") { [UInt8](repeating: 3, count: 1000) }
        #expect(cache.open("l/r/shared/v/1.m4s") == nil)
        #expect(cache.open("l/r/shared/v/0.m4s") != nil)
        #expect(cache.open("l/r/shared/v/3.m4s") != nil)
        #expect(cache.evictedFiles >= 1)
        // A new process (here: a new cache on the folder) finds what is there.
        let restarted = try SegmentCache(folder: folder, capacity: 3500)
        #expect(restarted.approximateBytes <= 3000)
        #expect(try restarted.produce("l/r/shared/v/3.m4s") { Issue.record("rendered again"); return [] }.rendered == false)
    }

    @Test func abandonedTemporaryFilesAreRemovedAndNeverServed() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/l/r/own/s/v", withIntermediateDirectories: true)
        let partial = folder + "/l/r/own/s/v/.3.m4s.abc.partial"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: partial))
        let cache = try SegmentCache(folder: folder, capacity: 1 << 20)
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(cache.open("l/r/own/s/v/3.m4s") == nil)
        let made = try cache.produce("l/r/own/s/v/3.m4s") { [9, 9] }
        #expect(made.rendered && made.item.size == 2)
    }

    @Test func aProcessKilledWhileHoldingALockReleasesIt() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try SegmentCache(folder: folder, capacity: 1 << 20)
        // Another process takes the key's lock (as a render would) and is killed.
        _ = try cache.produce("warm") { [1] }  // creates .locks and shows the naming
        let script = "import fcntl, os, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)"
        let key = "l/r/own/s/v/1.m4s"
        let lockPath = folder + "/.locks/" + Hex.string(ContentDigest.sha256(Array(key.utf8)).prefix(12)) + ".lock"
        let process = try ChildProcess("/usr/bin/env", ["python3", "-c", script, lockPath], stdout: .pipe)
        _ = process.output?.availableData  // "locked"
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { kill(process.processIdentifier, SIGKILL) }
        let started = Date()
        let made = try cache.produce(key) { [7] }
        #expect(made.rendered)
        #expect(Date().timeIntervalSince(started) >= 0.4)  // it waited for the other process's lock
        process.waitUntilExit()
    }

    @Test func lecturesAppearWithoutARestartAndABrokenOneIsRefusedAlone() throws {
        let fixture = try ServeFixture()
        let token = try fixture.token(lecture: "late")
        #expect(try fixture.get("/v1/late/master.m3u8?token=\(token)").status == 404)
        try ServeFixture.makeLecture(named: "late", in: fixture.library)
        usleep(1_100_000)  // the library looks again at most once a second
        #expect(try fixture.get("/v1/late/master.m3u8?token=\(token)").status == 200)
        try Data(#"{"video": "lecture.mp4", "config": "marks.json", "segment": "four"}"#.utf8)
            .write(to: URL(fileURLWithPath: fixture.library + "/late/lecture.json"))
        usleep(1_100_000)
        for _ in 0..<3 { #expect(try fixture.get("/v1/late/master.m3u8?token=\(token)").status == 404) }
        let lines = fixture.logLines.all.filter { $0.contains("lecture late not served") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("segment has the wrong type") == true)
        #expect(try fixture.get("/v1/intro/master.m3u8?token=\(try fixture.token())").status == 200)
    }

    @Test func aLecturesRevisionFollowsEveryFileItsMarksRead() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ServeFixture.makeLecture(named: "a", in: folder)
        let lecture = folder + "/a"
        try FileManager.default.createDirectory(atPath: lecture + "/fonts", withIntermediateDirectories: true)
        func put(_ file: String, _ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: lecture + "/" + file)) }
        try put("logo.png", "a red logo")
        try put("fonts/Brand.ttf", "a font")
        try put("marks.json", #"""
            {"watermarks": [{"text": "{email}", "font": "fonts/Brand.ttf"}, {"image": "logo.png"}, {"image": "https://cdn.example.com/seal.png"},
                            {"text": "CONFIDENTIAL", "font": "DejaVu Sans"}]}
            """#)
        func revision() throws -> String { try LectureDefinition.read(name: "a", folder: lecture, salt: []).revision }
        let first = try revision()
        #expect(try revision() == first)
        try put("logo.png", "a blue logo")
        let second = try revision()
        #expect(second != first)
        try put("fonts/Brand.ttf", "another font")
        let third = try revision()
        #expect(third != second)
        unlink(lecture + "/logo.png")
        #expect(try revision() != third)  // a missing logo is a change too (indexing then says why)
    }

    @Test("lecture.json's encryption: the key read and checked, its IVs one per file name, a new key a new revision")
    func readsALecturesEncryption() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ServeFixture.makeLecture(named: "a", in: folder)
        let lecture = folder + "/a"
        func write(_ text: String, to file: String, mode: mode_t = 0o600) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: lecture + "/" + file))
            chmod(lecture + "/" + file, mode)
        }
        try write("0123456789abcdef0123456789abcdef:00112233445566778899aabbccddeeff\n", to: "a.key")
        try write(#"{"video": "lecture.mp4", "config": "marks.json", "encryption": {"scheme": "aes-128", "keyFile": "a.key"}}"#, to: "lecture.json")
        let definition = try LectureDefinition.read(name: "a", folder: lecture, salt: [])
        let encryption = try #require(definition.encryption)
        #expect(encryption.scheme == .aes128 && encryption.keyBytes.count == 16 && encryption.keyFile == lecture + "/a.key")
        // Each file name its own IV; the same name the same bytes; the clear bytes back with the key.
        let clear = [UInt8](repeating: 7, count: 1000)
        let one = try encryption.encrypt(clear, name: "a/r1/own/s1/source/1.m4s")
        #expect(one == (try encryption.encrypt(clear, name: "a/r1/own/s1/source/1.m4s")))
        #expect(one != (try encryption.encrypt(clear, name: "a/r1/own/s2/source/1.m4s")))
        #expect(one.count == 1008 && one != clear)
        #expect(try encryption.decrypt(one, name: "a/r1/own/s1/source/1.m4s") == clear)
        let tag = try encryption.keyTag(keyURI: "/v1/a/r1/key?token=t", name: "a/r1/own/s1/source/1.m4s")
        let prefix = #"#EXT-X-KEY:METHOD=AES-128,URI="/v1/a/r1/key?token=t",IV=0x"#
        #expect(tag.hasPrefix(prefix) && tag.count == prefix.count + 32, "\(tag)")
        #expect(LectureEncryption.encrypts(Resource(rendition: "source", file: .segment(1))))
        #expect(!LectureEncryption.encrypts(Resource(rendition: "source", file: .initialization)))
        // A new key: a new revision.
        try write("0123456789abcdef0123456789abcdef:ffeeddccbbaa99887766554433221100\n", to: "a.key")
        #expect(try LectureDefinition.read(name: "a", folder: lecture, salt: []).revision != definition.revision)
        let problems: [(json: String, key: (String, mode_t)?, says: String)] = [
            (#""encryption": {"scheme": "aes-128", "keyFile": "a.key"}"#, ("0123:4567\n", 0o600), "encryption.keyFile: "),
            (#""encryption": {"scheme": "aes-128", "keyFile": "a.key"}"#, ("0123456789abcdef0123456789abcdef:00112233445566778899aabbccddeeff\n", 0o644), "chmod 600"),
            (#""encryption": {"scheme": "aes-128", "keyFile": "gone.key"}"#, nil, "gone.key"),
            (#""encryption": {"scheme": "cbcs", "keyFile": "a.key"}"#, nil, "encryption.scheme must be \"aes-128\", got \"cbcs\""),
            (#""encryption": {"keyFile": "a.key"}"#, nil, "encryption.scheme is missing"),
            (#""encryption": {"scheme": "aes-128", "key": "00"}"#, nil, "encryption: unknown field 'key'"),
            (#""encryption": "aes-128""#, nil, "encryption must be an object"),
        ]
        for (json, key, says) in problems {
            if let (text, mode) = key { try write(text, to: "a.key", mode: mode) }
            try write(#"{"video": "lecture.mp4", "config": "marks.json", "# + json + "}", to: "lecture.json")
            #expect { try LectureDefinition.read(name: "a", folder: lecture, salt: []) } throws: { "\($0)".contains(says) }
        }
    }

    @Test func readsLectureDefinitions() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ServeFixture.makeLecture(named: "a", in: folder)
        let lecture = folder + "/a"
        try Data("sub".utf8).write(to: URL(fileURLWithPath: lecture + "/en.srt"))
        func write(_ json: String) throws { try Data(json.utf8).write(to: URL(fileURLWithPath: lecture + "/lecture.json")) }
        try write(#"{"video": "lecture.mp4", "config": "marks.json", "ladder": "auto", "segment": 4, "subtitles": [{"file": "en.srt", "language": "en", "name": "English"}]}"#)
        let definition = try LectureDefinition.read(name: "a", folder: lecture, salt: [])
        #expect(definition.ladder == .automatic && definition.segment == HLSSettings.segmentLength(seconds: 4) && definition.captions.first?.language == "en")
        #expect(definition.video == lecture + "/lecture.mp4")
        #expect(try LectureDefinition.read(name: "a", folder: lecture, salt: [1]).revision != definition.revision)
        let problems: [(String, String)] = [
            (#"{"video": "lecture.mp4"}"#, "config is missing"),
            (#"{"video": "lecture.mp4", "config": "marks.json", "colour": 1}"#, "unknown field 'colour'"),
            (#"{"video": "missing.mp4", "config": "marks.json"}"#, "missing.mp4: cannot be read"),
            (#"{"video": "lecture.mp4", "config": "marks.json", "segment": 0}"#, "segment must be 1…60"),
            (#"{"video": "lecture.mp4", "config": "marks.json", "subtitles": [{"file": "en.srt", "lang": "en"}]}"#, "subtitles[0]: unknown field 'lang'"),
            ("[1]", "is not a JSON object"),
            (#"{"video": "lecture.mp4", "config": "marks.json", "ladder": "720,720"}"#, "ladder lists 720 twice"),
            (#"{"video": "lecture.mp4", "config": "marks.json", "ladder": "tall"}"#, "ladder 'tall' is not HEIGHT or HEIGHT:RATE"),
            (#"{"video": "lecture.mp4", "config": "marks.json", "subtitles": [{"file": "en.txt"}]}"#, "en.txt' is neither .srt nor .vtt"),
            (#"{"video": "lecture.mp4", "config": "marks.json", "subtitles": [{"file": "en.srt", "language": "english!"}]}"#, "subtitles[0]: 'english!' is not a language tag"),
        ]
        for (json, problem) in problems {
            try write(json)
            #expect(throws: LectureProblem.self) { try LectureDefinition.read(name: "a", folder: lecture, salt: []) }
            do {
                _ = try LectureDefinition.read(name: "a", folder: lecture, salt: [])
            } catch {
                #expect(error.description.contains(problem), "\(error.description)")
            }
        }
    }
}
