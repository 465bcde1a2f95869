import Foundation
import Testing

/// `videowm serve` rendering real lectures, judged over HTTP by ffmpeg, curl and `batch`'s own
/// output (issue 26's "Done when").
@Suite("serve: rendering over HTTP", .serialized)
struct ServeRenderingTests {
    @Test("each student gets, over HTTP, the bytes batch writes for their row; ffmpeg -xerror plays it with the lecture's frames and times, unmarked frames bit-identical; shared files made once")
    func servesTheBytesBatchWrites() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h)
        let students = ["ada@example.com", "bob@example.com"]
        _ = try h.write("students.csv", "id,email\nada,ada@example.com\nbob,bob@example.com\n")
        try FileManager.default.createDirectory(atPath: h.path("hls"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", lab.lecture, "-c", h.path("library/intro/marks.json"), "--vars", h.path("students.csv"),
                                  "--output", h.path("hls/{id}.m3u8"), "--segment", "2", "-q")
        try #require(batch.status == 0, "\(batch.stderr)")

        let server = try lab.startServer()
        let tokens = try lab.tokens(students)
        var sharedURIs: [Set<String>] = []
        for (student, token) in zip(["ada", "bob"], tokens) {
            let master = try h.fetch(server.base + ServeLab.master(token))
            try #require(master.status == 200, "\(server.log)")
            #expect(master.headers["content-type"] == "application/vnd.apple.mpegurl")
            let uris = ServeLab.uris(in: String(decoding: master.body, as: UTF8.self))
            let batchFiles = try HLSBatchTests.files(of: h.path("hls/\(student).m3u8"))
            try #require(uris.count == ServeLab.segmentCount + 1 && batchFiles.count == uris.count, "\(uris)")
            for (uri, file) in zip(uris, batchFiles) {
                let served = try h.fetch(server.base + uri)
                #expect(served.status == 200, "\(uri): \(served.status)")
                let written = try Data(contentsOf: URL(fileURLWithPath: h.path("hls/" + file)))
                #expect(served.body == written, "\(student): \(uri) differs from batch's \(file) (\(served.body.count) and \(written.count) bytes)")
                #expect(uri.contains("/shared/") == file.hasPrefix("shared-segments/"), "\(uri) against batch's \(file)")
            }
            let own = uris.filter { $0.contains("/own/") }.compactMap(ServeLab.segmentIndex)
            #expect(own == ServeLab.ownSegments, "\(student): own segments \(own)")
            sharedURIs.append(Set(uris.filter { $0.contains("/shared/") }.map { String($0.split(separator: "?")[0]) }))
        }
        #expect(sharedURIs[0] == sharedURIs[1] && sharedURIs[0].count == 5)
        // Four own segments (two per student) and five shared files (init + four segments), each made once.
        #expect(server.metric("videowm_renders_total", labels: #"{kind="student"}"#) == 4)
        #expect(server.metric("videowm_renders_total", labels: #"{kind="shared"}"#) == 5)

        // ffmpeg over HTTP, strict: the lecture's frame count and times; every frame outside the
        // marked segments decodes to the lecture's pixels, and the mark changes some inside.
        let url = server.base + ServeLab.master(tokens[0])
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", url, "-map", "0", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")
        let (servedTimes, lectureTimes) = (try h.videoFrameTimes(url), try h.videoFrameTimes(lab.lecture))
        #expect(servedTimes == lectureTimes)
        let (servedAudio, batchAudio) = (try h.decodedFrameTimes(url, stream: "a:0"), try h.decodedFrameTimes(h.path("hls/ada.m3u8"), stream: "a:0"))
        #expect(servedAudio == batchAudio && servedAudio.count > 500)
        let served = try HLSBatchTests.frameHashes(h, url)
        let original = try HLSBatchTests.frameHashes(h, lab.lecture)
        try #require(served.count == 360 && original.count == 360)
        let changed = served.indices.filter { served[$0] != original[$0] }
        let marked = Set(ServeLab.ownSegments.flatMap { ($0 * 60)..<($0 * 60 + 60) })
        #expect(!changed.isEmpty && changed.allSatisfy(marked.contains), "frames changed: \(changed.prefix(8))")
        #expect(changed.contains(90) && changed.contains(270))

        // The HTTP side on a real file: a Range past the end is 416, HEAD says the length, a
        // token signed with another key is refused on every kind of URL.
        let uris = ServeLab.uris(in: String(decoding: try h.fetch(url).body, as: UTF8.self))
        let ownURI = try #require(uris.first { $0.contains("/own/") })
        #expect(try h.fetch(server.base + ownURI, headers: ["Range: bytes=99999999-"]).status == 416)
        let head = try h.fetch(server.base + uris[1], method: "HEAD")
        let whole = try h.fetch(server.base + uris[1])
        #expect(head.status == 200 && Int(head.headers["content-length"] ?? "") == whole.body.count)
        let forged = try lab.tokens(["ada@example.com"], key: "another key of thirty-two bytes or more")[0]
        for uri in [ServeLab.master(forged)] + uris.map({ String($0.split(separator: "?")[0]) + "?token=" + forged }) {
            #expect(try h.fetch(server.base + uri).status == 403, "\(uri)")
        }
        #expect(server.stop() == 0)
    }
}
