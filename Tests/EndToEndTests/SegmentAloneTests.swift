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

    @Test("segment 35 of a 10-minute input decodes its own GOPs only, segment 37 is read and not decoded, and both are the whole presentation's")
    func aSegmentOfALongInputDecodesItsGOPsOnly() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("long.mp4", width: 160, height: 90, seconds: 600,
                                   extra: ["-x264-params", "keyint=60:min-keyint=60:scenecut=0:bframes=2"])
        let config = try h.write("c.json", HLSBatchTests.config)
        let marks = ["-c", config, "--var", "email=ada@example.com", "--segment", "6"]
        let playlist = h.path("long.m3u8")
        let whole = try h.videowm(arguments: ["transcode", input, playlist] + marks)
        #expect(whole.status == 0, "\(whole.stderr)")
        let (_, segments) = try Self.files(playlist)
        #expect(segments.count == 100)
        for (k, marked) in [(35, true), (37, false)] {
            let alone = h.path("s\(k).m4s")
            let started = Date()
            let r = try h.videowm(arguments: ["transcode", input, alone, "--only-segment", String(k), "-v"] + marks)
            let seconds = Date().timeIntervalSince(started)
            #expect(r.status == 0, "\(r.stderr)")
            let report = try #require(Self.report(r.stderr), "\(r.stderr)")
            // 6 s of 30 fps: its own three 2-s GOPs, nothing before them.
            #expect(report.shared == !marked && report.decoded == (marked ? 180 : 0), "segment \(k): \(r.stderr)")
            #expect(FileManager.default.contentsEqual(atPath: alone, andPath: segments[k]), "segment \(k) differs from the whole presentation's")
            #expect(seconds < 20, "segment \(k) took \(seconds) s: it should not read the 10 minutes before it")
        }
    }
}
