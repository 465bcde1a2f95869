import Foundation
import TestSupport
import Testing

/// `.m3u8` outputs: VOD HLS presentations of fMP4 segments, judged by FFmpeg's HLS reader,
/// Chromium's Media Source Extensions and the files on disk.
@Suite("HLS presentations")
struct HLSTests {
    static let config = #"{ "watermarks": [ { "text": "{email}", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#

    /// A clip with B-frames (so decode and presentation order differ and the MP4 needs an edit
    /// list) and AAC audio (with its priming).
    static func clip(_ h: Harness, seconds: Double = 5, name: String = "in.mp4") throws -> String {
        try h.makeClip(name, seconds: seconds, extra: ["-x264-params", "bframes=2:keyint=30"])
    }

    /// A playlist's lines, its EXT-X-MAP URI and its segment URIs.
    static func read(_ playlist: String) throws -> (lines: [String], map: String?, segments: [String]) {
        let lines = try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
        let map = lines.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).dropLast()) }
        return (lines, map, lines.filter { !$0.hasPrefix("#") && !$0.isEmpty })
    }

    /// Every file the playlist names exists beside it; returns their names.
    static func listedFiles(_ playlist: String) throws -> [String] {
        let (_, map, segments) = try read(playlist)
        let folder = (playlist as NSString).deletingLastPathComponent
        let names = ([map].compactMap { $0 } + segments)
        for name in names {
            #expect(FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(name)), "\(name) is listed but missing")
        }
        return names
    }

    static func folderEntries(_ h: Harness, _ folder: String = "") throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? h.directory.path : h.path(folder)))
    }

    @Test("transcode to .m3u8: fMP4 segments and a playlist that decodes to the input's frames and times")
    func transcodeWritesAPresentation() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.clip(h)
        let config = try h.write("c.json", Self.config)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let r = try h.videowm("transcode", input, h.path("out/lecture.m3u8"), "-c", config, "--var", "email=ada@example.com", "--segment", "2")
        #expect(r.status == 0, "\(r.stderr)")

        let playlist = h.path("out/lecture.m3u8")
        let (lines, map, segments) = try Self.read(playlist)
        #expect(Array(lines.prefix(6)) == ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0",
                                          "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS"])
        #expect(lines.last == "#EXT-X-ENDLIST")
        // 5 s in segments cut at the keyframes forced every 2 s: exact durations.
        #expect(lines.filter { $0.hasPrefix("#EXTINF:") } == ["#EXTINF:2.000000,", "#EXTINF:2.000000,", "#EXTINF:1.000000,"])
        #expect(map.map { $0.hasPrefix("lecture-init-") && $0.hasSuffix(".mp4") } == true)
        #expect(segments.allSatisfy { $0.hasPrefix("lecture-") && $0.hasSuffix(".m4s") })
        // The folder holds the playlist and what it lists, nothing else (no temporary file).
        #expect(try Self.folderEntries(h, "out") == Set(try Self.listedFiles(playlist) + ["lecture.m3u8"]))

        #expect(try h.videoFrameCount(playlist) == h.videoFrameCount(input))
        #expect(try h.videoFrameTimes(playlist) == h.videoFrameTimes(input))
        #expect(try h.packetTimes(playlist, stream: "a:0") == h.packetTimes(input, stream: "a:0"))
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", playlist, "-map", "0", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")
    }

    @Test("the presentation plays to its end in Chromium through Media Source Extensions")
    func playsInChromium() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.clip(h, seconds: 4)
        let config = try h.write("c.json", Self.config)
        let r = try h.videowm("transcode", input, h.path("out.m3u8"), "-c", config, "--var", "email=ada@example.com", "--segment", "1")
        #expect(r.status == 0, "\(r.stderr)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/play-in-chromium").path
        let played = try h.run(script, [h.path("out.m3u8"), "--hls", "--timeout", "90"])
        try #require(played.status != 2, "Chromium is not installed: \(played.stderr)")
        #expect(played.status == 0, "\(played.stdout) \(played.stderr)")
        #expect(played.stdout.contains("\"segments\": 4"), "\(played.stdout)")
    }

    @Test("an existing playlist is kept without -y; -y replaces the presentation and removes the files only the old one listed")
    func replacingLeavesNoOrphans() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.clip(h, seconds: 3)
        let config = try h.write("c.json", Self.config)
        let playlist = h.path("out.m3u8")
        #expect(try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=ada@example.com", "--segment", "1").status == 0)
        let first = try Self.listedFiles(playlist)
        let before = try Self.folderEntries(h)

        let refused = try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=bob@example.com", "--segment", "1")
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("out.m3u8") && refused.stderr.contains("-y"), "\(refused.stderr)")
        #expect(try Self.folderEntries(h) == before)

        let replaced = try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=bob@example.com", "--segment", "1", "-y")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let second = try Self.listedFiles(playlist)
        #expect(Set(first).intersection(second).count < first.count, "the new marks should give new segments")
        #expect(try Self.folderEntries(h) == Set(second + ["out.m3u8", "in.mp4", "c.json"]))
        #expect(try h.videoFrameCount(playlist) == h.videoFrameCount(input))

        // The same presentation again: the same bytes under the same names, nothing written twice.
        #expect(try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=bob@example.com", "--segment", "1", "-y").status == 0)
        #expect(try Self.listedFiles(playlist) == second)
    }

    @Test("a killed run leaves the old presentation whole, and the next run leaves no temporary or orphaned file")
    func killedRunIsRecovered() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.clip(h, seconds: 20)
        let config = try h.write("c.json", Self.config)
        let playlist = h.path("out.m3u8")
        #expect(try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=ada@example.com", "--segment", "1",
                              "--preset", "ultrafast").status == 0)
        let old = try Self.listedFiles(playlist)
        let oldPlaylist = try String(contentsOfFile: playlist, encoding: .utf8)

        // Replace it with other marks, slowly, and kill the process outright (no chance to clean
        // up) once it has published a few new segments.
        let process = try ChildProcess(Harness.videowmPath, ["transcode", input, playlist, "-c", config, "--var", "email=bob@example.com",
                                                             "--segment", "1", "-y", "--preset", "slower"], directory: h.directory.path, stderr: .null)
        let deadline = Date().addingTimeInterval(60)
        while try Self.folderEntries(h).subtracting(old).filter({ $0.hasSuffix(".m4s") }).count < 3 && Date() < deadline && process.isRunning {
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the run ended before it could be killed")

        // The old presentation is untouched and complete; the killed run's files are beside it.
        #expect(try String(contentsOfFile: playlist, encoding: .utf8) == oldPlaylist)
        #expect(try Self.listedFiles(playlist) == old)
        #expect(try h.videoFrameCount(playlist) == h.videoFrameCount(input))
        #expect(try Self.folderEntries(h).count > old.count + 4)

        // What a process killed while writing leaves (unlocked temporary files), made sure of.
        _ = try h.write(".out.m3u8.k1ll3d.videowm-partial.m3u8", "")
        _ = try h.write(".out-0123456789abcdef.m4s.k1ll3d.videowm-partial.m4s", "torn")

        // The next run finishes the job and cleans up after the killed one.
        let next = try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=bob@example.com", "--segment", "1", "-y",
                                 "--preset", "ultrafast")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try Self.folderEntries(h) == Set(try Self.listedFiles(playlist) + ["out.m3u8", "in.mp4", "c.json"]))
    }

    @Test("an interrupt (SIGINT) exits 130 and leaves neither a playlist nor a segment")
    func interruptLeavesNothing() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.clip(h, seconds: 20)
        let config = try h.write("c.json", Self.config)
        let process = try ChildProcess(Harness.videowmPath, ["transcode", input, h.path("out.m3u8"), "-c", config, "--var", "email=ada@example.com",
                                                             "--segment", "1", "--preset", "slower"], directory: h.directory.path, stderr: .null)
        let deadline = Date().addingTimeInterval(60)
        while try Self.folderEntries(h).filter({ $0.hasSuffix(".m4s") }).count < 2 && Date() < deadline && process.isRunning { usleep(20_000) }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try Self.folderEntries(h) == ["in.mp4", "c.json"])
    }

    @Test(".mpd writes the MPD beside the HLS presentation of the same name, over its segments (DASHOutputTests judges them)")
    func dashBesideHLS() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.clip(h, seconds: 1)
        let config = try h.write("c.json", Self.config)
        let r = try h.videowm("transcode", input, h.path("out.mpd"), "-c", config, "--var", "email=ada@example.com")
        #expect(r.status == 0, "\(r.stderr)")
        let entries = try Self.folderEntries(h)
        #expect(entries.contains("out.mpd") && entries.contains("out.m3u8") && entries.contains { $0.hasSuffix(".m4s") }, "\(entries)")
    }

    @Test("probe reads a playlist's duration and streams; a missing segment, a file outside its folder or a media playlist a multivariant one lists but is missing is refused with 65")
    func probeReadsPlaylists() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.clip(h, seconds: 5)
        let config = try h.write("c.json", Self.config)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        #expect(try h.videowm("transcode", input, h.path("out/a.m3u8"), "-c", config, "--var", "email=ada@example.com", "--segment", "2").status == 0)

        let probed = try h.videowm("probe", h.path("out/a.m3u8"), "--json")
        #expect(probed.status == 0, "\(probed.stderr)")
        let json = try JSONSerialization.jsonObject(with: probed.stdoutData) as! [String: Any]
        #expect(json["format"] as? String == "hls")
        #expect(json["durationSeconds"] as? Double == 5)
        let streams = json["streams"] as! [[String: Any]]
        #expect(streams.map { $0["codec"] as? String } == ["h264", "aac"])
        #expect(streams[0]["width"] as? Int == 320 && streams[0]["height"] as? Int == 240)
        #expect((streams[0]["frameRate"] as? Double).map { abs($0 - 30) < 0.01 } == true)

        let text = try String(contentsOfFile: h.path("out/a.m3u8"), encoding: .utf8)
        let segments = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        func refused(_ playlist: String, _ needle: String) throws {
            let name = "out/bad.m3u8"
            _ = try h.write(name, playlist)
            let r = try h.videowm("probe", h.path(name))
            #expect(r.status == 65, "\(r.stderr)")
            #expect(r.stderr.contains("bad.m3u8") && r.stderr.contains(needle), "\(r.stderr)")
        }
        try refused(text.replacingOccurrences(of: String(segments[1]), with: "a-0000000000000000.m4s"), "a-0000000000000000.m4s, which is missing")
        try refused(text.replacingOccurrences(of: String(segments[1]), with: "../../../../../../etc/passwd"), "outside its folder")
        try refused(text.replacingOccurrences(of: String(segments[1]), with: "/etc/passwd"), "not a relative path")
        try refused(text.replacingOccurrences(of: String(segments[1]), with: "http://127.0.0.1:9/x.m4s"), "not a relative path")
        // A multivariant playlist is read through the media playlists it lists (LadderTests): one it lists that is not there is refused.
        try refused("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nmissing.m3u8\n", "missing.m3u8, which is missing")
    }
}
