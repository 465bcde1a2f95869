import Foundation
import Testing

/// `videowm serve` with a ladder and captions (lecture.json "ladder", "subtitles"): every file of
/// every rendition the bytes `batch --ladder --subtitles` writes for the same row, every variant
/// decoded strictly by ffmpeg over HTTP, and video.js playing the student's URL across a
/// forced rendition switch with the captions at the SRT's times.
@Suite("serve: ladders and captions", .serialized)
struct ServeLadderTests {
    static let srt = "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:03,800 --> 00:00:04,600\nAcross the cut\n\n3\n00:00:10,250 --> 00:00:11,000\nLast words\n"
    static let lectureJSON = #"""
    { "video": "lecture.mp4", "config": "marks.json", "segment": 2, "ladder": "240,120",
      "subtitles": [ { "file": "en.srt", "language": "en", "name": "English" } ] }
    """#

    /// The URIs of a multivariant playlist's renditions and variants, in the order it lists them.
    static func mediaURIs(in multivariant: String) -> [String] {
        multivariant.split(separator: "\n").compactMap { line -> String? in
            if line.hasPrefix("#EXT-X-MEDIA:"), let start = line.range(of: "URI=\"") {
                return String(line[start.upperBound...].prefix { $0 != "\"" })
            }
            return line.hasPrefix("#") || line.isEmpty ? nil : String(line)
        }
    }

    @Test("a ladder (240p, the input's packets, and 120p) with audio and English captions: each rendition's files equal batch --ladder's for the same row, ffmpeg -xerror decodes every variant to 360 frames at batch's times, video.js plays across a switch with the cues in place")
    func servesALadderWithCaptionsAsBatchWritesIt() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h)
        _ = try h.write("library/intro/en.srt", Self.srt)
        _ = try h.write("library/intro/lecture.json", Self.lectureJSON)
        _ = try h.write("students.csv", "id,email\nada,ada@example.com\n")
        try FileManager.default.createDirectory(atPath: h.path("hls"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", lab.lecture, "-c", h.path("library/intro/marks.json"), "--vars", h.path("students.csv"),
                                  "--output", h.path("hls/{id}.m3u8"), "--segment", "2", "--ladder", "240,120",
                                  "--subtitles", h.path("library/intro/en.srt") + ":en:English", "-q")
        try #require(batch.status == 0, "\(batch.stderr)")
        let server = try lab.startServer()
        let token = try lab.tokens(["ada@example.com"])[0]
        let masterURL = server.base + ServeLab.master(token)
        let master = try h.fetch(masterURL)
        try #require(master.status == 200, "\(server.log)")
        let servedMedia = Self.mediaURIs(in: String(decoding: master.body, as: UTF8.self))
        let batchMedia = Self.mediaURIs(in: try String(contentsOfFile: h.path("hls/ada.m3u8"), encoding: .utf8))
        // Two video variants, one audio and one subtitle rendition, listed alike.
        try #require(servedMedia.count == 4 && batchMedia.count == 4, "\(servedMedia) against \(batchMedia)")

        var variantTimes: [[String]] = []
        for (served, written) in zip(servedMedia, batchMedia) {
            let playlist = try h.fetch(server.base + served)
            try #require(playlist.status == 200, "\(served): \(playlist.status)")
            let uris = ServeLab.uris(in: String(decoding: playlist.body, as: UTF8.self))
            let writtenPath = h.path("hls/" + written)
            let files = try HLSBatchTests.files(of: writtenPath)
            try #require(uris.count == files.count && !uris.isEmpty, "\(served): \(uris.count) files, batch's \(written) \(files.count)")
            let folder = (writtenPath as NSString).deletingLastPathComponent
            for (uri, file) in zip(uris, files) {
                let body = try h.fetch(server.base + uri)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: (folder as NSString).appendingPathComponent(file)))
                #expect(body.status == 200 && body.body == bytes, "\(uri) differs from batch's \(file) (\(body.body.count) and \(bytes.count) bytes)")
            }
            let isVideo = !served.contains("/media/audio-") && !served.contains("/media/subs-")
            // Only video renditions carry the student's marks; audio and captions are everyone's.
            #expect(isVideo == uris.contains { $0.contains("/own/") }, "\(served): own files \(uris.filter { $0.contains("/own/") }.count)")
            if isVideo {
                let url = server.base + served
                let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", url, "-map", "0:v", "-f", "null", "-"])
                #expect(strict.status == 0 && strict.stderr.isEmpty, "\(served): \(strict.stderr)")
                let times = try h.videoFrameTimes(url)
                #expect(times == (try h.videoFrameTimes(writtenPath)) && times.count == 360, "\(served): \(times.count) frames")
                variantTimes.append(times)
            }
        }
        #expect(variantTimes.count == 2)
        // Captions, audio and every rendition's playlist are the lecture's too: none without a valid token.
        let forged = try lab.tokens(["ada@example.com"], key: "another key of thirty-two bytes or more")[0]
        for uri in servedMedia {
            let path = String(uri.split(separator: "?")[0])
            #expect(try h.fetch(server.base + path + "?token=" + forged).status == 403, "\(path)")
            let files = ServeLab.uris(in: String(decoding: try h.fetch(server.base + uri).body, as: UTF8.self))
            #expect(try h.fetch(server.base + String(files[1].split(separator: "?")[0]) + "?token=" + forged).status == 403, "\(files[1])")
        }
        // Each video rendition has the student's own segments where the mark shows, each rendered once.
        #expect(server.metric("videowm_renders_total", labels: #"{kind="student"}"#) == Double(2 * ServeLab.ownSegments.count))

        let played = try h.run(PackageRoot.path("scripts/play-in-chromium"), [masterURL, "--videojs", "--text-track", "en", "--timeout", "120"])
        try #require(played.status != 2, "Chromium or js.videojs is not installed (scripts/setup): \(played.stderr)")
        #expect(played.status == 0, "\(played.stdout) \(played.stderr)")
        struct Result: Decodable {
            struct Track: Decodable { var language: String; var cues: [Cue] }
            struct Cue: Decodable { var start: Double; var end: Double; var text: String }
            var heights: [Int]
            var textTracks: [Track]
        }
        let result = try JSONDecoder().decode(Result.self, from: Data(played.stdout.utf8))
        #expect(result.heights.contains(120) && result.heights.last == 240, "\(result.heights)")
        // Every cue of the SRT is shown, each copy loaded within 0.1 s (3 frames) of the SRT's times.
        // (video.js 7.5.5 re-reads a caption segment after a rendition switch and maps it anew:
        // measured +21 ms before the switch, a second copy at +67 ms, the B-frame delay, after it.
        // The files are batch's, byte for byte; see the closing note.)
        let cues = try #require(result.textTracks.first { $0.language == "en" }).cues
        let expected: [(start: Double, end: Double, text: String)] = [(0.5, 1.5, "Hello"), (3.8, 4.6, "Across the cut"), (10.25, 11.0, "Last words")]
        #expect(Set(cues.map(\.text)) == Set(expected.map(\.text)), "\(cues)")
        for cue in cues {
            let srt = try #require(expected.first { $0.text == cue.text })
            #expect(abs(cue.start - srt.start) <= 0.1 && abs(cue.end - srt.end) <= 0.1, "\(cue) against the SRT's \(srt)")
        }
        #expect(server.stop() == 0)
    }
}
