import Foundation
import TestSupport
import Testing

/// `transcode` and `batch` with an `.mpd` OUTPUT or `--dash` (issue 42): a static MPD beside the HLS
/// playlists over the same segment files, judged by FFmpeg's DASH reader (every frame, at the input's
/// times, the HLS presentation's pictures), the files on disk (shared segments stored once) and the
/// command line's refusals.
@Suite("DASH output: an MPD over the HLS presentation's segments", .serialized)
struct DASHOutputTests {
    /// A mark shown 0–1 s of every 4 s: most segments are the input's packets, copied and shared.
    static let config = #"""
    { "watermarks": [ { "text": "{email}", "size": 0.12, "opacity": 0.9, "anchor": "center",
                        "start": 0, "interval": 1000, "skip": 3000 } ] }
    """#

    /// 6 s at 30 fps, an IDR every second, B-frames (so the first picture is shown after it is
    /// decoded), AAC.
    static func lecture(_ h: Harness, name: String = "lecture.mp4") throws -> String {
        try h.makeClip(name, width: 192, height: 108, seconds: 6,
                       extra: ["-x264-params", "keyint=30:min-keyint=30:scenecut=0:bframes=2"])
    }

    /// `ffmpeg -f framemd5` of one stream: each frame's size and checksum (times left out).
    static func frames(_ h: Harness, _ input: String, stream: String) throws -> [String] {
        let r = try h.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", input, "-map", "0:\(stream)", "-f", "framemd5", "-"])
        #expect(r.status == 0, "\(input) \(stream): \(r.stderr)")
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.suffix(2).joined(separator: ",")
        }
    }

    /// `ffmpeg -xerror` reads every stream of `file` to its end without a message.
    static func decodesStrictly(_ h: Harness, _ file: String) throws {
        let r = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", file, "-map", "0", "-f", "null", "-"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(file): \(r.stderr)")
    }

    /// The first video Representation's `presentationTimeOffset` in seconds (read with a pattern, not our reader).
    static func presentationOffset(_ mpd: String) throws -> Double {
        let text = try String(contentsOfFile: mpd, encoding: .utf8)
        let list = try #require(text.firstMatch(of: /<SegmentList timescale="(\d+)"(?: presentationTimeOffset="(\d+)")?/))
        return Double(list.2.map { Int($0) ?? 0 } ?? 0) / Double(try #require(Int(list.1)))
    }

    static func bytes(under folder: String) -> Int { HLSBatchTests.bytes(under: folder) }

    @Test("transcode to .mpd: ffmpeg -xerror decodes every frame at the input's times (after the MPD's offset), the HLS playlist's pictures and sound")
    func transcodeToMPD() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.lecture(h)
        let config = try h.write("c.json", Self.config)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let r = try h.videowm("transcode", input, h.path("out/lecture.mpd"), "-c", config, "--var", "email=ada@example.com", "--segment", "2")
        try #require(r.status == 0, "\(r.stderr)")
        let mpd = h.path("out/lecture.mpd")
        let text = try String(contentsOfFile: mpd, encoding: .utf8)
        #expect(text.contains("type=\"static\"") && text.contains("contentType=\"video\"") && text.contains("contentType=\"audio\""))
        #expect(text.contains("urn:mpeg:dash:profile:isoff-main:2011"))
        try Self.decodesStrictly(h, mpd)

        // Every frame of the input, at its time: ffmpeg's DASH reader gives media times, the MPD's
        // presentationTimeOffset maps them to the Period's (B-frames' composition delay).
        let inputTimes = try h.videoFrameTimes(input).compactMap(Double.init)
        let offset = try Self.presentationOffset(mpd)
        let dashTimes = try h.videoFrameTimes(mpd).compactMap(Double.init).map { $0 - offset }
        #expect(inputTimes.count == 180 && dashTimes.count == inputTimes.count)
        #expect(zip(dashTimes, inputTimes).allSatisfy { abs($0 - $1) < 0.0005 }, "\(dashTimes.prefix(4)) vs \(inputTimes.prefix(4))")
        #expect(offset > 0, "B-frames delay the first picture: the MPD should say by how much")
        // Sound and picture start the Period at the same instant of the shared media timeline (the
        // audio's AAC priming before it), so they stay in sync as on the HLS copy.
        let offsets = text.matches(of: /<SegmentList timescale="(\d+)" presentationTimeOffset="(\d+)"/).map { Double(Int($0.2)!) / Double(Int($0.1)!) }
        #expect(offsets.count == 2 && abs(offsets[0] - offsets[1]) < 0.0001, "\(offsets)")

        // The same segment files as the HLS presentation beside it: the same pictures and sound.
        let playlist = h.path("out/lecture.m3u8")
        #expect(FileManager.default.fileExists(atPath: playlist))
        let hlsVideo = try Self.frames(h, playlist, stream: "v:0")
        let dashVideo = try Self.frames(h, mpd, stream: "v:0")
        #expect(hlsVideo.count == 180 && dashVideo == hlsVideo)
        let hlsAudio = try Self.frames(h, playlist, stream: "a:0")
        let dashAudio = try Self.frames(h, mpd, stream: "a:0")
        #expect(hlsAudio.count > 200 && dashAudio == hlsAudio)
        for line in text.split(separator: "\n") where line.contains("media=\"") || line.contains("sourceURL=\"") {
            let name = String(try #require(line.split(separator: "\"").dropFirst().first))
            #expect(FileManager.default.fileExists(atPath: h.path("out/\(name)")), "\(name) is listed but missing")
        }

        try Self.probes(h, mpd, text: text)

        // Run again: an existing MPD is kept without -y (73), replaced with it.
        let again = try h.videowm("transcode", input, mpd, "-c", config, "--var", "email=ada@example.com", "--segment", "2")
        #expect(again.status == 73 && again.stderr.contains("lecture.mpd") && again.stderr.split(separator: "\n").count == 1, "\(again.stderr)")
        let replaced = try h.videowm("transcode", input, mpd, "-c", config, "--var", "email=bob@example.com", "--segment", "2", "-y")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        try Self.decodesStrictly(h, mpd)
    }

    /// `videowm probe` of the MPD: its Representations and streams as written; then copies of it that
    /// name a missing file, leave the folder or another host, or are not XML, each refused with 65.
    static func probes(_ h: Harness, _ mpd: String, text: String) throws {
        let probed = try h.videowm("probe", mpd, "--json")
        #expect(probed.status == 0, "\(probed.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: probed.stdoutData) as? [String: Any])
        #expect(json["format"] as? String == "dash")
        #expect((json["durationSeconds"] as? Double).map { abs($0 - 6) < 0.05 } == true, "\(json)")
        let representations = try #require(json["representations"] as? [[String: Any]])
        #expect(representations.map { $0["type"] as? String } == ["video", "audio"])
        #expect(representations[0]["height"] as? Int == 108 && representations[0]["segments"] as? Int == 3, "\(representations)")
        #expect((representations[0]["codecs"] as? [String])?.first?.hasPrefix("avc1.") == true)
        #expect((json["streams"] as? [[String: Any]])?.map { $0["codec"] as? String } == ["h264", "aac"])
        let human = try h.videowm("probe", mpd)
        #expect(human.status == 0 && human.stdout.contains("representation video-0: video, 192×108"), "\(human.stdout)")

        let segment = String(try #require(text.firstMatch(of: /media="([^"]+)"/)).1)
        func refused(_ manifest: String, _ needle: String) throws {
            let name = "out/bad.mpd"
            _ = try h.write(name, manifest)
            let r = try h.videowm("probe", h.path(name))
            #expect(r.status == 65 && r.stderr.contains("bad.mpd") && r.stderr.contains(needle) && r.stderr.split(separator: "\n").count == 1,
                    "\(r.status) \(r.stderr)")
        }
        try refused(text.replacingOccurrences(of: segment, with: "gone.m4s"), "gone.m4s, which is missing")
        try refused(text.replacingOccurrences(of: segment, with: "../../../../../../etc/passwd"), "outside its folder")
        try refused(text.replacingOccurrences(of: segment, with: "https://cdn.example/x.m4s"), "not a relative path")
        try refused(text.replacingOccurrences(of: "<Period", with: "<BaseURL>https://cdn.example/</BaseURL><Period"), "BaseURL https://cdn.example/")
        try refused(String(text.prefix(text.count / 2)), "not well-formed XML")
        try refused(text.replacingOccurrences(of: "urn:mpeg:dash:schema:mpd:2011", with: "urn:example"), "not <MPD xmlns")
    }

    @Test("transcode --ladder --subtitles --dash: one video AdaptationSet of aligned Representations and an audio one, every frame at the input's times, each the HLS rendition's frames; video.js plays it across a switch")
    func ladderWithBothManifests() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.lecture(h)
        let config = try h.write("c.json", Self.config)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        // With captions (the HLS copy's subtitle rendition; the MPD leaves them out, docs/reference/dash.md says why).
        let captions = try h.write("en.srt", "1\n00:00:01,000 --> 00:00:03,000\nHello\n")
        let r = try h.videowm("transcode", input, h.path("out/lecture.m3u8"), "-c", config, "--var", "email=ada@example.com",
                              "--segment", "2", "--ladder", "108,54", "--dash", "--subtitles", captions + ":en:English")
        try #require(r.status == 0, "\(r.stderr)")
        let mpd = h.path("out/lecture.mpd")
        // Every frame of the input, at its time after the MPD's offset, in each rung.
        let inputTimes = try h.videoFrameTimes(input).compactMap(Double.init)
        let offset = try Self.presentationOffset(mpd)
        for stream in ["v:0", "v:1"] {
            let times = try h.decodedFrameTimes(mpd, stream: stream).compactMap(Double.init).map { $0 - offset }
            #expect(times.count == inputTimes.count && zip(times, inputTimes).allSatisfy { abs($0 - $1) < 0.0005 }, "\(stream): \(times.prefix(4))")
        }
        let text = try String(contentsOfFile: mpd, encoding: .utf8)
        #expect(text.components(separatedBy: "<AdaptationSet").count == 3)
        #expect(text.components(separatedBy: "<Representation").count == 4)
        #expect(text.contains("height=\"108\"") && text.contains("height=\"54\"") && text.contains("segmentAlignment=\"true\""))
        try Self.decodesStrictly(h, mpd)
        // Each Representation is its HLS rendition: the multivariant playlist's variants in the same order.
        let multivariant = try String(contentsOfFile: h.path("out/lecture.m3u8"), encoding: .utf8).split(separator: "\n")
        let variants = multivariant.indices.filter { multivariant[$0].hasPrefix("#EXT-X-STREAM-INF") }.map { String(multivariant[$0 + 1]) }
        try #require(variants.count == 2)
        for (n, variant) in variants.enumerated() {
            let hls = try Self.frames(h, h.path("out/\(variant)"), stream: "v:0")
            let dash = try Self.frames(h, mpd, stream: "v:\(n)")
            #expect(hls.count == 180 && dash == hls, "rendition \(variant)")
        }
        // probe lists each rung and the audio with the HLS rendition's segment count.
        let probed = try h.videowm("probe", mpd, "--json")
        let listed = try #require((try? JSONSerialization.jsonObject(with: probed.stdoutData)) as? [String: Any])["representations"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["height"] as? Int } == [108, 54] && listed?.last?["type"] as? String == "audio", "\(probed.stdout)")
        #expect(listed?.allSatisfy { $0["segments"] as? Int == 3 } == true, "\(probed.stdout)")
        let timelines = text.matches(of: /<S t="(\d+)" d="(\d+)"/).map { "\($0.1)/\($0.2)" }
        #expect(timelines.count >= 2 && timelines[0] == timelines[1], "the rungs are cut at the same times: \(timelines)")
        // video.js (VHS, from PyPI's js.videojs) plays the MPD in headless Chromium to its end, switched
        // from the 54-line Representation to the 108-line one a third of the way in.
        let played = try h.run(Self.playInChromium, [mpd, "--dash", "--timeout", "90"])
        try #require(played.status != 2, "Chromium or js.videojs is not installed: \(played.stderr)")
        #expect(played.status == 0 && played.stdout.contains("\"heights\": [54, 108]") && played.stdout.contains("\"ended\": true"),
                "\(played.stdout) \(played.stderr)")
    }

    static let playInChromium = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/play-in-chromium").path

    @Test("batch of 3 with --dash: each shared segment stored once, a few KB more than HLS alone; each row's MPD and HLS decode to the same frames")
    func batchWithBothManifests() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.lecture(h)
        let config = try h.write("c.json", Self.config)
        let csv = try h.write("students.csv", "id,email\nalice,alice@example.com\nbob,bob@example.com\ncarol,carol@example.com\n")
        for folder in ["hls", "both"] {
            try FileManager.default.createDirectory(atPath: h.path(folder), withIntermediateDirectories: true)
            let r = try h.videowm(arguments: ["batch", input, "-c", config, "--vars", csv, "--output", h.path("\(folder)/{id}.m3u8"),
                                              "--segment", "2", "--ladder", "108", "-q"] + (folder == "both" ? ["--dash"] : []))
            try #require(r.status == 0, "\(folder): \(r.stderr)")
        }
        let sharedHLS = try FileManager.default.contentsOfDirectory(atPath: h.path("hls/shared-segments")).sorted()
        let sharedBoth = try FileManager.default.contentsOfDirectory(atPath: h.path("both/shared-segments")).sorted()
        #expect(!sharedBoth.isEmpty && sharedBoth == sharedHLS, "the MPDs list the same shared files, stored once")
        let hlsBytes = Self.bytes(under: h.path("hls"))
        let bothBytes = Self.bytes(under: h.path("both"))
        print("DASH batch storage: HLS alone \(hlsBytes) bytes, HLS and DASH \(bothBytes) (ratio \(Double(bothBytes) / Double(hlsBytes)))")
        #expect(Double(bothBytes) <= 1.02 * Double(hlsBytes))
        var rowFrames: [[String]] = []
        for student in ["alice", "bob", "carol"] {
            let mpd = h.path("both/\(student).mpd")
            try Self.decodesStrictly(h, mpd)
            let dash = try Self.frames(h, mpd, stream: "v:0")
            let hls = try Self.frames(h, h.path("both/\(student).m3u8"), stream: "v:0")
            #expect(dash.count == 180 && dash == hls, "\(student)")
            rowFrames.append(dash)
            let text = try String(contentsOfFile: mpd, encoding: .utf8)
            #expect(sharedBoth.contains { text.contains("shared-segments/\($0)") }, "\(student)'s MPD lists no shared segment")
        }
        #expect(rowFrames[0] != rowFrames[1] && rowFrames[1] != rowFrames[2], "each row shows its own mark")
    }

    @Test("refused with one line and 64: --dash on a file output, on --only-segment, in a batch to .mp4; --render smart of video CMAF cannot carry as is; nothing written")
    func refusals() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 96, height: 64, seconds: 1)
        // MPEG-2 video: CMAF segments can hold it only re-encoded, so --render smart cannot package it.
        let mpeg2 = try h.makeClip("in.ts", width: 96, height: 64, seconds: 1, extra: ["-c:v", "mpeg2video"])
        let config = try h.write("c.json", Self.config)
        let csv = try h.write("s.csv", "id,email\na,a@example.com\n")
        let cases: [(arguments: [String], says: String)] = [
            (["transcode", input, h.path("x.mp4"), "-c", config, "--var", "email=e", "--dash"], "--dash applies to whole presentations"),
            (["transcode", input, h.path("x.mpd"), "-c", config, "--var", "email=e", "--only-segment", "0", "--dash"], "--dash applies to whole presentations"),
            (["batch", input, "-c", config, "--vars", csv, "--output", h.path("{id}.mp4"), "--dash"], "--dash applies to whole presentations"),
            (["transcode", input, h.path("x.mp4"), "-c", config, "--var", "email=e", "--ladder", "64"], "(.m3u8, .mpd)"),
            (["transcode", mpeg2, h.path("x.mpd"), "-c", config, "--var", "email=e", "--render", "smart"], "the input's video is mpeg2video, not H.264"),
        ]
        for (arguments, says) in cases {
            let r = try h.videowm(arguments: arguments)
            #expect(r.status == 64 && r.stderr.contains(says) && r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.status) \(r.stderr)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: h.path("")).filter { !["in.mp4", "in.ts", "c.json", "s.csv"].contains($0) }
        #expect(left.isEmpty, "\(left)")
    }
}
