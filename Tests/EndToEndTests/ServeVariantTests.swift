import Foundation
import TestSupport
import Testing

/// `videowm serve` on a lecture with a variant layer (issue 29): each student's playlist lists,
/// per segment, their own segment or the shared variant file their codeword picks, and every
/// file is the one `batch --key-file` writes for the same row.
@Suite("serve: variant lectures", .serialized)
struct ServeVariantTests {
    /// The e-mail at 2.5–3.5 s (segment 1 is each student's own) over a 4-variant tiled layer
    /// cut every 2 s; no `lecture`: batch, serve and trace name the lecture by the video's file name.
    static let config = #"""
        { "watermarks": [ { "text": "{email}", "size": 0.12, "opacity": 0.9, "anchor": "center", "start": 2.5, "end": 3.5 },
                          { "text": "CS 101", "tile": { "angle": -30 }, "opacity": 0.15, "outline": { "width": 0.004, "color": "#000000" },
                            "variants": { "count": 4, "seconds": 2, "student": "{email}" } } ] }
        """#
    static let segmentCount = 3
    static let ownSegment = 1

    /// A fixed owner-only marks' key, so every run gives the students the same codewords (they
    /// differ in both variant segments with this key).
    static func writeKey(_ h: Harness) throws -> String {
        let key = h.path("marks.key")
        guard FileManager.default.createFile(atPath: key, contents: Data((0..<32).map { UInt8(($0 * 71 + 13) % 256) }),
                                             attributes: [.posixPermissions: 0o600]) else { throw HarnessError.toolFailed("writing \(key)") }
        return key
    }

    @Test("two students: every file their playlists list is batch --key-file's for their row (own segments and shared variants); variant names are keyed hashes, one size per segment, listed only to whom they belong; each segment's variants rendered once; ffmpeg -xerror plays it over HTTP; without the key or with another segment length the lecture is refused with a log line")
    func servesEachStudentsVariantsAsBatchWritesThem() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h, width: 320, height: 180, seconds: 6)
        let marks = try h.write("library/intro/marks.json", Self.config)
        _ = try h.write("library/intro/lecture.json", #"{ "video": "lecture.mp4", "config": "marks.json", "preset": "ultrafast" }"#)
        let key = try Self.writeKey(h)
        let students = ["ada@example.com", "bob@example.com"]
        let tokens = try lab.tokens(students)

        // Without the marks' key nobody may compute a student's variants: 404 and one line saying why.
        let keyless = try lab.startServer(cache: "keyless-cache")
        #expect(try h.fetch(keyless.base + ServeLab.master(tokens[0])).status == 404)
        #expect(keyless.log.contains("lecture intro not served") && keyless.log.contains("variants: a variant layer needs the platform's key"), "\(keyless.log)")
        #expect(keyless.stop() == 0)

        _ = try h.write("students.csv", "id,email\nada,ada@example.com\nbob,bob@example.com\n")
        try FileManager.default.createDirectory(atPath: h.path("hls"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", lab.lecture, "-c", marks, "--vars", h.path("students.csv"), "--output", h.path("hls/{id}.m3u8"),
                                  "--key-file", key, "--preset", "ultrafast", "-q")
        try #require(batch.status == 0, "\(batch.stderr)")

        let server = try lab.startServer(extra: ["--key-file", key])
        // What batch refuses with a variant layer, serve refuses too: another segment length.
        for (name, extra, naming) in [("cut", #""segment": 4"#, "lecture.json's segment 4.0 differs")] {
            try FileManager.default.createDirectory(atPath: h.path("library/" + name), withIntermediateDirectories: true)
            _ = try h.write("library/\(name)/lecture.json", #"{ "video": "../intro/lecture.mp4", "config": "../intro/marks.json", "# + extra + " }")
            let token = try lab.tokens(["ada@example.com"], lecture: name)[0]
            #expect(try h.fetch(server.base + "/v1/\(name)/master.m3u8?token=" + token).status == 404)
            #expect(server.log.contains("lecture \(name) not served: indexing failed: \(naming)"), "\(server.log)")
        }
        var lists: [[String]] = []
        for token in tokens {
            let master = try h.fetch(server.base + ServeLab.master(token))
            try #require(master.status == 200, "\(server.log)")
            lists.append(ServeLab.uris(in: String(decoding: master.body, as: UTF8.self)))
        }
        // Both students' files at once: requests for different variants of one segment meet.
        let all = lists.flatMap { $0 }
        let fetched = Locked([Int: Fetched]())
        concurrently(all.count) { n in
            let response = (try? h.fetch(server.base + all[n])) ?? Fetched(status: 0, body: Data(), headers: [:])
            fetched.withLock { $0[n] = response }
        }
        var offset = 0
        var variantNames: [[String]] = []
        for (student, uris) in zip(["ada", "bob"], lists) {
            let batchFiles = try HLSBatchTests.files(of: h.path("hls/\(student).m3u8"))
            try #require(uris.count == Self.segmentCount + 1 && batchFiles.count == uris.count, "\(student): \(uris)")
            for (n, (uri, file)) in zip(uris, batchFiles).enumerated() {
                let served = try #require(fetched.withLock { $0[offset + n] })
                #expect(served.status == 200, "\(uri): \(served.status)")
                let written = try Data(contentsOf: URL(fileURLWithPath: h.path("hls/" + file)))
                #expect(served.body == written, "\(student): \(uri) differs from batch's \(file) (\(served.body.count) and \(written.count) bytes)")
                #expect(uri.contains("/shared/") == file.hasPrefix("shared-segments/"), "\(uri) against batch's \(file)")
            }
            offset += uris.count
            // init.mp4, then segment 1 their own and the other four shared variants under keyed names.
            let paths = uris.map { String($0.split(separator: "?")[0]) }
            #expect(paths[0].hasSuffix("/shared/source/init.mp4"))
            #expect(paths[1 + Self.ownSegment].hasSuffix("/source/\(Self.ownSegment).m4s") && paths[1 + Self.ownSegment].contains("/own/"))
            let names = (0..<Self.segmentCount).filter { $0 != Self.ownSegment }.map { String(paths[1 + $0].split(separator: "/").last ?? "") }
            #expect(names.allSatisfy { $0.count == 36 && $0.hasSuffix(".m4s") && $0.dropLast(4).allSatisfy(\.isHexDigit) }, "\(names)")
            #expect(paths.enumerated().allSatisfy { $0.offset == 1 + Self.ownSegment || $0.element.contains("/shared/source/") })
            variantNames.append(names)
        }
        // One name per variant whoever lists it: the names differ exactly where batch's files do.
        let batchLists = try ["ada", "bob"].map { try HLSBatchTests.files(of: h.path("hls/\($0).m3u8")) }
        let shared = (0..<Self.segmentCount).filter { $0 != Self.ownSegment }
        for (i, k) in shared.enumerated() {
            #expect((variantNames[0][i] == variantNames[1][i]) == (batchLists[0][1 + k] == batchLists[1][1 + k]), "segment \(k)")
        }
        #expect(variantNames[0] != variantNames[1], "the codewords differ: \(variantNames)")

        // Each variant segment's four variants were rendered together once (segment 0's with the
        // init), all cached, of one size; each student's own segment once.
        #expect(server.metric("videowm_renders_total", labels: #"{kind="group"}"#) == Double(shared.count))
        #expect(server.metric("videowm_renders_total", labels: #"{kind="student"}"#) == 2)
        #expect(server.metric("videowm_renders_total", labels: #"{kind="shared"}"#) == 0)
        let revision = String(lists[0][0].split(separator: "/")[2])
        let cached = h.path("cache/intro/\(revision)/shared/source")
        let variantFiles = try FileManager.default.contentsOfDirectory(atPath: cached).filter { $0.count == 36 }
        #expect(variantFiles.count == 4 * shared.count, "\(variantFiles)")
        var sizes: [Int: Int] = [:]
        for file in variantFiles { sizes[try FileManager.default.attributesOfItem(atPath: cached + "/" + file)[.size] as? Int ?? -1, default: 0] += 1 }
        #expect(sizes.values.allSatisfy { $0 % 4 == 0 }, "four variants of each size: \(sizes)")

        // A variant file Ada's playlist does not list is refused her, as any file not hers.
        let adaListed = Set(variantNames[0])
        for file in variantFiles where !adaListed.contains(file) {
            let uri = "/v1/intro/\(revision)/shared/source/\(file)?token=\(tokens[0])"
            #expect(try h.fetch(server.base + uri).status == 404, "\(file)")
        }
        #expect(try h.fetch(server.base + "/v1/intro/\(revision)/shared/source/\(Self.ownSegment).m4s?token=\(tokens[0])").status == 403)

        // ffmpeg over HTTP, strict: the lecture's frames at its times.
        let url = server.base + ServeLab.master(tokens[1])
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", url, "-map", "0", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")
        #expect(try h.videoFrameTimes(url) == (try h.videoFrameTimes(lab.lecture)))
        #expect(server.log.contains("names no lecture: its code is derived for the video's file name 'lecture.mp4'"), "\(server.log)")
        #expect(server.stop() == 0)
    }

    /// The same lecture at 15 fps with a ladder (180, 90) and English captions, for one student:
    /// each video rendition's playlist lists their own segment 1 and elsewhere their symbol's
    /// shared variant file under its keyed name (one name per symbol in every rendition); every
    /// file of every rendition is batch --ladder --key-file's for their row; each segment's
    /// variants are rendered once per rendition, together.
    @Test("a ladder (180, 90) with captions: every file of every rendition equals batch --ladder --key-file's for the row, variant files under keyed names the same in both renditions, a segment's variants rendered once per rendition, unlisted variants 404, ffmpeg -xerror decodes both renditions over HTTP")
    func servesAVariantLadderAsBatchWritesIt() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h, width: 320, height: 180, seconds: 6, rate: 15)
        let marks = try h.write("library/intro/marks.json", Self.config)
        _ = try h.write("library/intro/en.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:03,800 --> 00:00:04,600\nAcross the cut\n")
        _ = try h.write("library/intro/lecture.json", #"""
            { "video": "lecture.mp4", "config": "marks.json", "preset": "ultrafast", "ladder": "180,90",
              "subtitles": [ { "file": "en.srt", "language": "en", "name": "English" } ] }
            """#)
        let key = try Self.writeKey(h)
        _ = try h.write("students.csv", "id,email\nada,ada@example.com\n")
        try FileManager.default.createDirectory(atPath: h.path("hls"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", lab.lecture, "-c", marks, "--vars", h.path("students.csv"), "--output", h.path("hls/{id}.m3u8"),
                                  "--key-file", key, "--preset", "ultrafast", "--ladder", "180,90",
                                  "--subtitles", h.path("library/intro/en.srt") + ":en:English", "-q")
        try #require(batch.status == 0, "\(batch.stderr)")

        let server = try lab.startServer(extra: ["--key-file", key])
        let token = try lab.tokens(["ada@example.com"])[0]
        let master = try h.fetch(server.base + ServeLab.master(token))
        try #require(master.status == 200, "\(server.log)")
        let servedMedia = ServeLadderTests.mediaURIs(in: String(decoding: master.body, as: UTF8.self))
        let batchMedia = ServeLadderTests.mediaURIs(in: try String(contentsOfFile: h.path("hls/ada.m3u8"), encoding: .utf8))
        // Two video variants (180p, 90p), the audio and the captions, listed alike.
        try #require(servedMedia.count == 4 && batchMedia.count == 4, "\(servedMedia) against \(batchMedia)")
        var variantNames: [[String]] = []
        for (served, written) in zip(servedMedia, batchMedia) {
            let playlist = try h.fetch(server.base + served)
            try #require(playlist.status == 200, "\(served): \(playlist.status)")
            let uris = ServeLab.uris(in: String(decoding: playlist.body, as: UTF8.self))
            let writtenPath = h.path("hls/" + written)
            let files = try HLSBatchTests.files(of: writtenPath)
            try #require(uris.count == files.count && !uris.isEmpty, "\(served): \(uris.count) files, batch's \(written) \(files.count)")
            for (uri, file) in zip(uris, files) {
                let body = try h.fetch(server.base + uri)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: ((writtenPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(file)))
                #expect(body.status == 200 && body.body == bytes, "\(uri) differs from batch's \(file) (\(body.body.count) and \(bytes.count) bytes)")
            }
            guard !served.contains("/media/audio-") && !served.contains("/media/subs-") else { continue }
            for (uri, file) in zip(uris, files) {
                #expect(uri.contains("/shared/") == file.hasPrefix("shared-segments/"), "\(uri) against batch's \(file)")
            }
            // init.mp4, the student's own segment 1, and the two variant segments under keyed names.
            let paths = uris.map { String($0.split(separator: "?")[0]) }
            #expect(paths[1 + Self.ownSegment].hasSuffix("/\(Self.ownSegment).m4s") && paths[1 + Self.ownSegment].contains("/own/"), "\(paths)")
            let names = (0..<Self.segmentCount).filter { $0 != Self.ownSegment }.map { String(paths[1 + $0].split(separator: "/").last ?? "") }
            #expect(names.allSatisfy { $0.count == 36 && $0.hasSuffix(".m4s") && $0.dropLast(4).allSatisfy(\.isHexDigit) }, "\(names)")
            variantNames.append(names)
            let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", server.base + served, "-map", "0:v", "-f", "null", "-"])
            #expect(strict.status == 0 && strict.stderr.isEmpty, "\(served): \(strict.stderr)")
        }
        // One symbol per segment in every rendition: the same keyed names.
        #expect(variantNames.count == 2 && variantNames[0] == variantNames[1], "\(variantNames)")
        // Each (segment, rendition)'s four variants rendered together once; the own segment once per rendition.
        let shared = Self.segmentCount - 1
        #expect(server.metric("videowm_renders_total", labels: #"{kind="group"}"#) == Double(2 * shared))
        #expect(server.metric("videowm_renders_total", labels: #"{kind="student"}"#) == 2)
        let revision = String(servedMedia[0].split(separator: "/")[2])
        for rendition in ["180p", "90p"] {
            let cached = h.path("cache/intro/\(revision)/shared/\(rendition)")
            let variantFiles = try FileManager.default.contentsOfDirectory(atPath: cached).filter { $0.count == 36 }
            #expect(variantFiles.count == 4 * shared, "\(rendition): \(variantFiles)")
            // A variant file the student's playlist does not list is not theirs.
            for file in variantFiles.filter({ !variantNames[0].contains($0) }).prefix(2) {
                #expect(try h.fetch(server.base + "/v1/intro/\(revision)/shared/\(rendition)/\(file)?token=\(token)").status == 404, "\(file)")
            }
        }
        #expect(server.stop() == 0)
    }
}
