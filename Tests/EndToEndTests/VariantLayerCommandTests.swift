import Foundation
import Testing

/// Variant layers on the command line (issue 29): `batch` to HLS writes each segment's variants
/// once, shared, and each row's playlist lists its codeword's; `trace` reads the variants of a
/// leak made from a row's copy and names that row, and nobody from an unmarked copy; with
/// `--ladder` and `--subtitles` every rendition carries the variants. What cannot carry the code
/// is refused with one line (64), never made without it.
@Suite("variant layers: commands", .serialized)
struct VariantLayerCommandTests {
    static let config = #"""
        { "watermarks": [ { "text": "{email}", "size": 0.06, "end": 3, "animation": { "type": "random", "duration": 1000 } },
                          { "text": "CS 101", "tile": { "angle": -30 }, "opacity": 0.15, "outline": { "width": 0.004, "color": "#000000" },
                            "variants": { "count": 4, "seconds": 2, "lecture": "cs101-week1" } } ] }
        """#
    static let students = "email\na@example.edu\nb@example.edu\nc@example.edu\n"

    @Test func whatCannotCarryTheCodeIsRefusedAndPreviewsDrawVariantZero() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("in.mp4", seconds: 1)
        let config = try h.write("variants.json", Self.config)
        let csv = try h.write("students.csv", "email\na@example.edu\n")
        let key = h.path("platform.key")
        #expect(try h.videowm("keygen", key, "-q").status == 0)
        for (arguments, naming) in [
            (["transcode", clip, "out.mp4", "-c", config, "--var", "email=a@example.edu"], "--key-file"),
            (["transcode", clip, "out.mp4", "-c", config, "--var", "email=a@example.edu", "--key-file", key, "--render", "smart"], "--render smart"),
            (["batch", clip, "--vars", csv, "-c", config, "-o", "out-{email}.m3u8"], "--key-file"),
            (["batch", clip, "--vars", csv, "-c", config, "-o", "out-{email}.webm", "--key-file", key], ".webm file"),
            (["batch", clip, "--vars", csv, "-c", config, "-o", "out-{email}.m3u8", "--key-file", key, "--segment", "4"], "--segment 4"),
            (["batch", clip, "--vars", csv, "-c", config, "-o", "out-{email}.m3u8", "--key-file", key, "--ladder", "auto", "--render", "smart"], "--render smart"),
        ] {
            let outcome = try h.shell("exec " + Harness.commandLine(arguments))
            expectCleanFailure(outcome, status: 64, naming: naming, in: h)
        }
        let preview = try h.shell("exec " + Harness.commandLine(["thumbnail", clip, h.path("thumb.png"), "--at", "0.5", "-c", config,
                                                                 "--var", "email=a@example.edu"]))
        #expect(preview.exitStatus == 0, "\(preview.stderr)")
    }

    /// `transcode` with a variant layer makes one student's copy alone, with the pictures of their
    /// batch row: lossless (`--crf 0`) so pictures compare exactly, a `.m3u8` and an `.mkv` of
    /// each of two students (a fixed key gives them different variants in both shared segments)
    /// decode to the frames of their batch row, and the `.m3u8`'s files are batch's (its shared
    /// files without the padding after their `mdat`). Their own segment (the e-mail's) shows the
    /// e-mail alone, as a config without the variant layer draws it.
    @Test func transcodeMakesOneStudentsCopyWithTheirBatchRowsPictures() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("lecture.mp4", width: 320, height: 180, rate: "15", seconds: 6)
        let config = try h.write("variants.json", ServeVariantTests.config)
        let key = try ServeVariantTests.writeKey(h)
        let csv = try h.write("students.csv", "email\nada@example.com\nbob@example.com\n")
        let encoding = ["--key-file", key, "--preset", "ultrafast", "--crf", "0", "--threads", "1", "-q"]
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let batch = try h.videowm(arguments: ["batch", clip, "--vars", csv, "-c", config, "-o", h.path("out/{email}.m3u8")] + encoding)
        try #require(batch.status == 0, "\(batch.stderr)")
        var rowFrames: [[String]] = []
        for email in ["ada@example.com", "bob@example.com"] {
            let row = h.path("out/\(email).m3u8")
            let frames = try HLSBatchTests.frameHashes(h, row)
            try #require(frames.count == 90, "\(email): \(frames.count) frames")
            rowFrames.append(frames)
            for copy in ["solo/\(email).m3u8", "solo-\(email).mkv"] {
                try FileManager.default.createDirectory(atPath: h.path("solo"), withIntermediateDirectories: true)
                let made = try h.videowm(arguments: ["transcode", clip, h.path(copy), "-c", config, "--var", "email=\(email)"] + encoding)
                try #require(made.status == 0, "\(copy): \(made.stderr)")
                #expect(try HLSBatchTests.frameHashes(h, h.path(copy)) == frames, "\(copy): not the pictures of the batch row")
            }
            let solo = try HLSBatchTests.files(of: h.path("solo/\(email).m3u8"))
            let listed = try HLSBatchTests.files(of: row)
            try #require(solo.count == listed.count, "\(solo) against \(listed)")
            for (mine, theirs) in zip(solo, listed) {
                let alone = try Data(contentsOf: URL(fileURLWithPath: h.path("solo/" + mine)))
                let shared = try Data(contentsOf: URL(fileURLWithPath: h.path("out/" + theirs)))
                let padding = shared.count - alone.count
                #expect(shared.prefix(alone.count) == alone && (padding == 0 || shared.dropFirst(alone.count + 4).prefix(4) == Data("free".utf8)),
                        "\(mine) (\(alone.count) bytes) is not \(theirs) (\(shared.count))")
            }
        }
        // Segment 0 (no e-mail in it) shows each student's own variant: the test sees the code.
        #expect(rowFrames[0].prefix(30) != rowFrames[1].prefix(30), "the two students' variants of segment 0")
        // Segment 1 is their own (the e-mail shows 2.5–3.5 s): the e-mail alone, no variant layer
        // under it, as a config without the layer draws it; segments 0 and 2 do draw the layer.
        let emailAlone = try h.write("email.json", #"""
            { "watermarks": [ { "text": "{email}", "size": 0.12, "opacity": 0.9, "anchor": "center", "start": 2.5, "end": 3.5 } ] }
            """#)
        for (email, frames) in zip(["ada@example.com", "bob@example.com"], rowFrames) {
            let copy = h.path("email-\(email).mkv")
            let made = try h.videowm(arguments: ["transcode", clip, copy, "-c", emailAlone, "--var", "email=\(email)", "--render", "full"] + encoding)
            try #require(made.status == 0, "\(made.stderr)")
            let plain = try HLSBatchTests.frameHashes(h, copy)
            try #require(plain.count == 90)
            #expect(frames[30..<60] == plain[30..<60], "\(email): their own segment is the e-mail alone")
            #expect(frames[0..<30] != plain[0..<30] && frames[60..<90] != plain[60..<90], "\(email): the layer in the shared segments")
        }
    }

    /// An `.mp4` row is its HLS presentation's initialization and segments in one file: the same
    /// bytes, in order; it decodes, lasts the lecture, and no scratch folder is left behind. Both
    /// are without B-frames (a preset that makes them: x264's veryfast makes up to 3), so a row's
    /// own segments cost what a batch without the variant layer's spans cost.
    @Test func anMP4RowIsItsSegmentsInOneFile() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("lecture.mp4", width: 320, height: 180, seconds: 6)
        let config = try h.write("variants.json", Self.config)
        let csv = try h.write("students.csv", "email\na@example.edu\nb@example.edu\n")
        let key = h.path("platform.key")
        #expect(try h.videowm("keygen", key, "-q").status == 0)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        for template in ["out/{email}.m3u8", "out/{email}.mp4"] {
            let batch = try h.videowm("batch", clip, "--vars", csv, "-c", config, "-o", h.path(template), "--key-file", key,
                                      "--preset", "veryfast", "--threads", "1", "-q")
            try #require(batch.status == 0, "\(batch.stderr)")
        }
        for email in ["a@example.edu", "b@example.edu"] {
            let playlist = try String(contentsOfFile: h.path("out/\(email).m3u8"), encoding: .utf8)
            let map = try #require(playlist.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MAP:URI=") })
            let parts = [String(map.dropFirst("#EXT-X-MAP:URI=\"".count).dropLast())]
                + playlist.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
            var expected = Data()
            for part in parts { expected += try Data(contentsOf: URL(fileURLWithPath: h.path("out/" + part))) }
            let mp4 = h.path("out/\(email).mp4")
            #expect(try Data(contentsOf: URL(fileURLWithPath: mp4)) == expected, "\(email): the file is its presentation's parts")
            let duration = Double(try h.ffprobe(["-show_entries", "format=duration", "-of", "csv=p=0", mp4])
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(abs(duration - 6) < 0.1, "\(duration)")
            let decode = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", mp4, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
            let reorder = try h.ffprobe(["-select_streams", "v", "-show_entries", "stream=has_b_frames", "-of", "csv=p=0", mp4])
            #expect(reorder.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(email): has_b_frames \(reorder)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("out")).allSatisfy { !$0.hasPrefix(".") })
    }

    /// A 48 s lecture at 320×180, three students, 4 variants every 2 s: the shared renders, each
    /// row's playlist, and a trace of row 3's copy (40 s of it re-encoded at CRF 30, without the
    /// seconds its e-mail shows in) naming row 3 and nobody else, while the same seconds of the
    /// unmarked lecture name nobody.
    @Test func batchSharesEachSegmentsVariantsAndTraceNamesTheLeaker() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("lecture.mp4", width: 320, height: 180, seconds: 48)
        let config = try h.write("variants.json", Self.config)
        let csv = try h.write("students.csv", Self.students)
        let key = h.path("platform.key")
        #expect(try h.videowm("keygen", key, "-q").status == 0)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", clip, "--vars", csv, "-c", config, "-o", h.path("out/{email}.m3u8"), "--key-file", key,
                                  "--preset", "ultrafast", "--threads", "1", "-q")
        try #require(batch.status == 0, "\(batch.stderr)")

        // Each row's playlist: 24 segments of 2 s; the two its e-mail shows in are its own, the
        // others shared renders, of which each segment has at most 3 here (one per row), of one size.
        let emails = ["a", "b", "c"].map { "\($0)@example.edu" }
        var lists: [[String]] = []
        for email in emails {
            let playlist = try String(contentsOfFile: h.path("out/\(email).m3u8"), encoding: .utf8)
            let uris = playlist.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
            #expect(uris.count == 24, "\(email): \(uris.count) segments")
            #expect(uris.prefix(2).allSatisfy { !$0.contains("shared-segments/") }, "\(email): the e-mail's segments are its own: \(uris.prefix(2))")
            #expect(uris.dropFirst(2).allSatisfy { $0.contains("shared-segments/") }, "\(email): the rest are shared")
            lists.append(uris)
            let decode = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", h.path("out/\(email).m3u8"), "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(email): \(decode.stderr)")
        }
        for k in 2..<24 {
            let files = Set(lists.map { $0[k] })
            #expect(files.count <= 3)
            let sizes = Set(try files.map { try FileManager.default.attributesOfItem(atPath: h.path("out/" + $0))[.size] as? Int ?? -1 })
            #expect(sizes.count == 1, "segment \(k): the variants' sizes \(sizes)")
        }
        // Codewords differ: no two rows list the same shared files all along.
        for i in 0..<3 { for j in (i + 1)..<3 { #expect(lists[i] != lists[j], "rows \(i + 1) and \(j + 1)") } }
        let sharedFiles = try FileManager.default.contentsOfDirectory(atPath: h.path("out/shared-segments")).filter { $0.hasSuffix(".m4s") }
        #expect(sharedFiles.count <= 3 * 22 && sharedFiles.count > 22, "\(sharedFiles.count) shared segments")

        // Row 3's copy, 6 s to 46 s (no e-mail in it), re-encoded at CRF 30 (seeking after the
        // input: ffmpeg 5.1 seeking into an fMP4 HLS input gives no pictures).
        let leak = h.path("leak.mp4")
        try h.ffmpeg(["-i", h.path("out/c@example.edu.m3u8"), "-ss", "6", "-t", "40", "-an", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", leak])
        let trace = try h.videowm("trace", leak, "--original", clip, "-c", config, "--vars", csv, "--key-file", key)
        #expect(trace.status == 0, "\(trace.stdout)\(trace.stderr)")
        #expect(trace.stdout.contains("variant code: named row 3,"), "\(trace.stdout)")
        #expect(!trace.stdout.contains("also named"), "\(trace.stdout)")
        // The figures, for the log: periods read, the row's probability and the threshold.
        for line in trace.stdout.split(separator: "\n") where line.hasPrefix("variant code:") { print("leak of row 3: \(line)") }

        // The unmarked lecture, the same seconds: nobody.
        let clean = h.path("clean.mp4")
        try h.ffmpeg(["-i", clip, "-ss", "6", "-t", "40", "-an", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", clean])
        let innocent = try h.videowm("trace", clean, "--original", clip, "-c", config, "--vars", csv, "--key-file", key)
        #expect(innocent.status == 1, "\(innocent.stdout)\(innocent.stderr)")
        #expect(innocent.stdout.contains("variant code: nobody named"), "\(innocent.stdout)")
        for line in innocent.stdout.split(separator: "\n") where line.hasPrefix("variant code:") { print("unmarked copy: \(line)") }
    }

    /// A 6-s 320×180 lecture at 15 fps, 4 variants every 2 s, the e-mail in segment 1, a 2-rung ladder
    /// (180, 90) with audio and English captions, three rows and a fixed marks' key (rows 1 and 3
    /// share segment 0's symbol, row 2 differs in both variant segments): every row's playlists
    /// pass hls-check, every rendition decodes strictly to the lecture's frames at its times, a
    /// (segment, rendition)'s variant files have one size, and a row lists the same symbol's files
    /// in every rendition — its own segment 1 in each.
    @Test func aLadderCarriesTheVariantsInEveryRendition() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("lecture.mp4", width: 320, height: 180, rate: "15", seconds: 6)
        let config = try h.write("variants.json", ServeVariantTests.config)
        let key = try ServeVariantTests.writeKey(h)
        let srt = try h.write("en.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:03,800 --> 00:00:04,600\nAcross the cut\n")
        let csv = try h.write("students.csv", "id,email\nada,ada@example.com\nbob,bob@example.com\ncy,cy@example.com\n")
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", clip, "--vars", csv, "-c", config, "-o", h.path("out/{id}.m3u8"), "--key-file", key, "--preset", "ultrafast",
                                  "--ladder", "180,90", "--subtitles", srt + ":en:English", "-q")
        try #require(batch.status == 0, "\(batch.stderr)")

        let lectureTimes = try h.videoFrameTimes(clip).compactMap(Double.init)
        // Per row, per rendition (180, 90): the files its media playlist lists (init first).
        var listed: [[[String]]] = []
        for row in ["ada", "bob", "cy"] {
            let multivariant = h.path("out/\(row).m3u8")
            let checked = try LadderTests.hlsCheck(h, multivariant)
            #expect(checked.status == 0, "\(row): \(checked.stdout) \(checked.stderr)")
            let text = try String(contentsOfFile: multivariant, encoding: .utf8)
            #expect(text.contains("TYPE=AUDIO") && text.contains("TYPE=SUBTITLES,GROUP-ID=\"subs\",LANGUAGE=\"en\""), "\(text)")
            var renditions: [[String]] = []
            for height in [180, 90] {
                let playlist = try LadderTests.variant(multivariant, height: height)
                let decoded = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", playlist, "-map", "0:v", "-f", "null", "-"])
                #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(row) \(height)p: \(decoded.stderr)")
                // The lecture's frames at its times, shifted alike (the ladder's timeline zero: docs/design/hls.md §15).
                let times = try h.videoFrameTimes(playlist).compactMap(Double.init)
                #expect(times.count == lectureTimes.count && zip(times, lectureTimes).allSatisfy { abs($0 - $1 - (times[0] - lectureTimes[0])) < 0.0001 },
                        "\(row) \(height)p: \(times.count) frames, not the lecture's \(lectureTimes.count) at its times")
                let files = try LadderTests.files(of: playlist)
                try #require(files.count == 1 + ServeVariantTests.segmentCount, "\(row) \(height)p: \(files)")
                // Segment 1 (the e-mail) is the row's own; the others shared variant files.
                for k in 0..<ServeVariantTests.segmentCount {
                    #expect(files[1 + k].hasPrefix("shared-segments/") == (k != ServeVariantTests.ownSegment), "\(row) \(height)p segment \(k): \(files[1 + k])")
                }
                renditions.append(files)
            }
            listed.append(renditions)
        }
        let shared = (0..<ServeVariantTests.segmentCount).filter { $0 != ServeVariantTests.ownSegment }
        for k in shared {
            for r in 0..<2 {
                // A (segment, rendition)'s variant files: one size, whichever a row lists.
                let sizes = Set(listed.map { LadderTests.size(h.path("out/" + $0[r][1 + k])) })
                #expect(sizes.count == 1, "segment \(k), rendition \(r): sizes \(sizes)")
            }
            // One symbol in every rendition: two rows list the same file in one rendition exactly when they do in the other.
            for i in 0..<3 { for j in (i + 1)..<3 {
                #expect((listed[i][0][1 + k] == listed[j][0][1 + k]) == (listed[i][1][1 + k] == listed[j][1][1 + k]), "rows \(i + 1), \(j + 1), segment \(k)")
            } }
        }
        #expect(listed[0][0][1] == listed[2][0][1] && listed[0][1][1] == listed[2][1][1], "rows 1 and 3 share segment 0's symbol in both renditions")
        #expect(shared.allSatisfy { listed[0][0][1 + $0] != listed[1][0][1 + $0] }, "rows 1 and 2 differ in every variant segment")
        // The initialization segments are the lecture's, one per rendition.
        #expect(Set(listed.map { $0[0][0] }).count == 1 && Set(listed.map { $0[1][0] }).count == 1 && listed[0][0][0] != listed[0][1][0])
    }
}
