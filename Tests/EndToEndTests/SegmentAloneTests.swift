import Foundation
import Testing
import TestSupport

/// Any segment of a presentation made on its own (`transcode … --only-segment K`), in a fresh
/// process, equals byte for byte the same segment of the whole presentation: what a server that
/// renders a student's segment on request, or a cluster job per segment, relies on.
@Suite("HLS: any segment made alone")
struct SegmentAloneTests {
    /// The presentation's files in playlist order: the initialization segment, then the segments.
    static func files(_ playlist: String) throws -> (initialization: String, segments: [String]) {
        let lines = try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
        let map = try #require(lines.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).dropLast()) })
        let folder = (playlist as NSString).deletingLastPathComponent
        return ((folder as NSString).appendingPathComponent(map),
                lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { (folder as NSString).appendingPathComponent($0) })
    }

    /// "segment 3 of 10: copied (shared), 0 pictures decoded" from `-v`: (shared, decoded).
    static func report(_ stderr: String) -> (shared: Bool, decoded: Int)? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains(" of ") && $0.contains("pictures decoded") }) else { return nil }
        let words = line.split(separator: " ")
        guard let at = words.firstIndex(of: "pictures"), at > 0, let decoded = Int(words[at - 1]) else { return nil }
        return (line.contains("copied (shared)"), decoded)
    }

    @Test("every segment of a 60-s smart-rendered presentation, made alone in a fresh process in random order, is the whole presentation's byte for byte")
    func everySegmentAloneIsTheWholePresentations() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // 60 s, 2-s closed GOPs, B-frames, AAC; the mark shows at 0–6 s and 30–36 s.
        let input = try HLSBatchTests.lecture(h)
        let config = try h.write("c.json", HLSBatchTests.config)
        try FileManager.default.createDirectory(atPath: h.path("whole"), withIntermediateDirectories: true)
        let playlist = h.path("whole/ada.m3u8")
        let marks = ["-c", config, "--var", "email=ada@example.com", "--segment", "6"]
        let whole = try h.videowm(arguments: ["transcode", input, playlist] + marks)
        #expect(whole.status == 0, "\(whole.stderr)")
        let (initialization, segments) = try Self.files(playlist)
        #expect(segments.count == 10)

        var order: [String] = ["init"] + segments.indices.map(String.init)
        var random = SplitMix64(seed: 24)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, random.below(i + 1)) }
        for part in order {
            let alone = h.path("alone-\(part).m4s")
            let r = try h.videowm(arguments: ["transcode", input, alone, "--only-segment", part, "-v"] + marks)
            #expect(r.status == 0, "\(part): \(r.stderr)")
            let expected = part == "init" ? initialization : segments[Int(part)!]
            let same = FileManager.default.contentsEqual(atPath: alone, andPath: expected)
            #expect(same, "segment \(part) made alone differs from the whole presentation's \(expected)")
            if let k = Int(part), let report = Self.report(r.stderr) {
                // Segments 0 and 5 (0–6 s, 30–36 s) carry the mark: decoded; the others are only read.
                #expect(report.shared == !(k == 0 || k == 5) && (report.shared ? report.decoded == 0 : report.decoded == 180), "\(part): \(r.stderr)")
            } else if part != "init" {
                Issue.record("no report of what segment \(part) took: \(r.stderr)")
            }
        }
        // A segment past the end is a usage error naming the option.
        let past = try h.videowm(arguments: ["transcode", input, h.path("x.m4s"), "--only-segment", "10"] + marks)
        #expect(past.status == 64 && past.stderr.contains("--only-segment 10") && past.stderr.contains("10 segments"), "\(past.stderr)")
    }

    @Test("an input whose video packets carry no presentation times (AVI) still makes a presentation, and its segments alone are the whole's")
    func anInputWithoutPresentationTimes() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // AVI stores decode times only; B-frames make presentation order differ.
        let mp4 = try h.makeClip("b.mp4", width: 160, height: 90, seconds: 4, extra: ["-x264-params", "bframes=2:keyint=30"])
        try h.ffmpeg(["-i", mp4, "-c", "copy", "-bsf:v", "h264_mp4toannexb", h.path("in.avi")])
        let input = h.path("in.avi")
        let config = try h.write("c.json", #"{ "watermarks": [ { "text": "{email}", "size": 0.1, "start": 1, "end": 2 } ] }"#)
        let marks = ["-c", config, "--var", "email=ada@example.com", "--segment", "1"]
        let playlist = h.path("avi.m3u8")
        let whole = try h.videowm(arguments: ["transcode", input, playlist] + marks)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try h.videoFrameCount(playlist) == h.videoFrameCount(input))
        let (_, segments) = try Self.files(playlist)
        #expect(segments.count == 4)
        for k in [2, 0] {
            let alone = h.path("s\(k).m4s")
            let r = try h.videowm(arguments: ["transcode", input, alone, "--only-segment", String(k), "-v"] + marks)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(FileManager.default.contentsEqual(atPath: alone, andPath: segments[k]), "segment \(k) differs from the whole presentation's")
            // Nothing says where to seek: decoded from the start, and -v says so (30 pictures a second).
            let decoded = try #require(Self.report(r.stderr)?.decoded, "\(r.stderr)")
            #expect(decoded == (k + 1) * 30, "segment \(k) alone decoded \(decoded) pictures from the start")
        }
    }

    @Test("--render full with cuts inside long GOPs: a segment alone decodes from the keyframe before it and equals the whole presentation's, which decodes each GOP once")
    func encodedSegmentsCutInsideLongGOPs() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // 5-s GOPs with B-frames, 2-s segments: most cuts fall inside a GOP.
        let input = try h.makeClip("long-gops.mp4", width: 160, height: 90, seconds: 12,
                                   extra: ["-x264-params", "keyint=150:min-keyint=150:scenecut=0:bframes=3"])
        let config = try h.write("c.json", HLSBatchTests.config)
        let marks = ["-c", config, "--var", "email=ada@example.com", "--segment", "2", "--render", "full"]
        let playlist = h.path("full.m3u8")
        let whole = try h.videowm(arguments: ["transcode", input, playlist] + marks)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try h.videoFrameTimes(playlist) == h.videoFrameTimes(input))
        let (_, segments) = try Self.files(playlist)
        #expect(segments.count == 6)
        for k in [3, 1, 5] {
            let alone = h.path("s\(k).m4s")
            let r = try h.videowm(arguments: ["transcode", input, alone, "--only-segment", String(k), "-v"] + marks)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(FileManager.default.contentsEqual(atPath: alone, andPath: segments[k]), "segment \(k) differs from the whole presentation's")
            // From the keyframe at 0 s or 5 s (or 10 s) to the segment's end: never the whole input.
            let decoded = try #require(Self.report(r.stderr)?.decoded, "\(r.stderr)")
            #expect(decoded >= 60 && decoded <= 60 + 150, "segment \(k) decoded \(decoded) pictures")
        }
    }
}
