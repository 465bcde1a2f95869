import Foundation
import Testing

/// One lecture, one student's copy, three drivers (issue 38): a lecture with a ladder, captions
/// and a variant layer, its every resource for one student made all at once (`batch`), one at a
/// time in a fresh process each (`transcode --only-segment`), and on request (`serve`) — the same
/// bytes, since each driver only drives the library's `Lecture`.
@Suite("one backbone: batch, a file at a time and serve make the same copy", .serialized)
struct BackboneTests {
    /// Renditions in the multivariant playlist's order (each driver names their playlists its own
    /// way), each with its media playlist's text and its files' bytes in the playlist's order (the
    /// initialization segment first).
    struct Rendition {
        var playlistURI: String
        var playlist: String
        var files: [Data]
    }

    /// Each rendition's playlist URI a multivariant playlist names (`#EXT-X-STREAM-INF` lines' next
    /// lines and `#EXT-X-MEDIA` URIs), in order.
    static func playlistURIs(in multivariant: String) -> [String] {
        var uris: [String] = []
        let lines = multivariant.split(separator: "\n").map(String.init)
        for (n, line) in lines.enumerated() {
            if line.hasPrefix("#EXT-X-STREAM-INF"), n + 1 < lines.count { uris.append(lines[n + 1]) }
            if line.hasPrefix("#EXT-X-MEDIA:"), let start = line.range(of: "URI=\"") {
                uris.append(String(line[start.upperBound...].prefix { $0 != "\"" }))
            }
        }
        return uris
    }

    /// A media playlist without the names of its files (the one thing each driver names its own way).
    static func withoutNames(_ playlist: String) -> String {
        playlist.split(separator: "\n").map { line -> String in
            if line.hasPrefix("#EXT-X-MAP:URI=") { return "#EXT-X-MAP" }
            return line.hasPrefix("#") ? String(line) : "URI"
        }.joined(separator: "\n")
    }

    /// A copy read through playlists: `resolve` places a URI against the location of the playlist
    /// naming it (nil for the multivariant playlist's own), `fetch` reads a location's bytes.
    static func read(multivariantURI: String, resolve: (_ uri: String, _ base: String?) -> String = { uri, _ in uri },
                     fetch: (_ location: String) throws -> Data) throws -> [Rendition] {
        let top = resolve(multivariantURI, nil)
        let multivariant = String(decoding: try fetch(top), as: UTF8.self)
        return try playlistURIs(in: multivariant).map { uri in
            let location = resolve(uri, top)
            let text = String(decoding: try fetch(location), as: UTF8.self)
            return Rendition(playlistURI: uri, playlist: withoutNames(text), files: try ServeLab.uris(in: text).map { try fetch(resolve($0, location)) })
        }
    }

    @Test("a ladder with captions and a variant layer: every resource of one student's copy is byte-identical from batch, from --only-segment in a fresh process each, and from serve")
    func threeDriversOneCopy() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // 4 s of 320×180 with AAC: two 2-s periods, the e-mail in the second (the student's own).
        let lab = try ServeLab(h, width: 320, height: 180, seconds: 4)
        let config = try h.write("library/intro/marks.json", ServeVariantTests.config)
        let captions = try h.write("library/intro/en.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:02,200 --> 00:00:03,600\nWorld\n")
        _ = try h.write("library/intro/lecture.json", #"""
            { "video": "lecture.mp4", "config": "marks.json", "ladder": "180,90", "preset": "ultrafast",
              "subtitles": [ { "file": "en.srt", "language": "en", "name": "English" } ] }
            """#)
        let key = try ServeVariantTests.writeKey(h)
        let email = "ada@example.com"
        let options = ["-c", config, "--ladder", "180,90", "--subtitles", "\(captions):en:English", "--key-file", key, "--preset", "ultrafast", "-q"]

        // All at once: a batch of two students.
        let csv = try h.write("students.csv", "id,email\nada,\(email)\nbob,bob@example.com\n")
        try FileManager.default.createDirectory(atPath: h.path("batch"), withIntermediateDirectories: true)
        let batch = try h.videowm(arguments: ["batch", lab.lecture, "--vars", csv, "--output", h.path("batch/{id}.m3u8")] + options)
        try #require(batch.status == 0, "\(batch.stderr)")
        let batched = try Self.read(multivariantURI: h.path("batch/ada.m3u8"), resolve: { uri, base in
            base.map { ((($0 as NSString).deletingLastPathComponent as NSString).appendingPathComponent(uri) as NSString).standardizingPath } ?? uri
        }, fetch: { try Data(contentsOf: URL(fileURLWithPath: $0)) })

        // One at a time: every playlist and file made alone by `transcode --only-segment`, in a fresh process each.
        let alone = h.path("alone")
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        var processes = 0
        let fromTranscode = try Self.read(multivariantURI: "playlist.m3u8") { name in
            let output = (alone as NSString).appendingPathComponent(name.replacingOccurrences(of: "/", with: "_"))
            let made = try h.videowm(arguments: ["transcode", lab.lecture, output, "--only-segment", name, "--var", "email=\(email)"] + options)
            processes += 1
            try #require(made.status == 0, "--only-segment \(name): \(made.stderr)")
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }

        // On request: the same student through serve, with a token.
        let server = try lab.startServer(extra: ["--key-file", key])
        let token = try lab.tokens([email])[0]
        let served = try Self.read(multivariantURI: server.base + ServeLab.master(token)) { uri in
            let fetched = try h.fetch(uri.hasPrefix("http") ? uri : server.base + uri)
            try #require(fetched.status == 200, "\(uri): \(fetched.status)")
            return fetched.body
        }
        #expect(server.stop() == 0)

        // Two video renditions, audio and captions, each with its files.
        #expect(batched.count == 4 && batched.allSatisfy { !$0.files.isEmpty }, "\(batched.map(\.playlistURI))")
        #expect(processes > 12, "\(processes) files made alone")
        for (name, copy) in [("--only-segment", fromTranscode), ("serve", served)] {
            #expect(copy.count == batched.count, "\(name): \(copy.map(\.playlistURI)) against batch's \(batched.map(\.playlistURI))")
            for (mine, theirs) in zip(copy, batched) {
                #expect(mine.playlist == theirs.playlist, "\(name): \(mine.playlistURI) differs from batch's \(theirs.playlistURI)")
                #expect(mine.files.count == theirs.files.count, "\(name): \(mine.playlistURI) lists \(mine.files.count) files, batch \(theirs.files.count)")
                for (k, (a, b)) in zip(mine.files, theirs.files).enumerated() {
                    #expect(a == b, "\(name): \(mine.playlistURI) file \(k) (\(a.count) bytes) differs from batch's (\(b.count) bytes)")
                }
            }
        }
    }
}
