import Foundation
import Testing

/// `--render` for `.m3u8` outputs: a transcode's presentation, like a batch row's, copies the
/// segments in which no mark shows (`auto` and `smart`), and `full` re-encodes every segment.
@Suite("HLS presentations: smart rendering by segments")
struct HLSRenderingTests {
    /// 60 s, 2-s closed GOPs, B-frames; the mark shows at 0–6 s and 30–36 s (HLSBatchTests.config).
    static func inputs(_ h: Harness) throws -> (input: String, config: String) {
        (try HLSBatchTests.lecture(h), try h.write("c.json", HLSBatchTests.config))
    }

    /// Indices of the frames whose hash equals the input's frame at the same place.
    static func unchangedFrames(_ h: Harness, _ output: String, input: String) throws -> Set<Int> {
        let original = try HLSBatchTests.frameHashes(h, input)
        let written = try HLSBatchTests.frameHashes(h, output)
        #expect(written.count == original.count)
        return Set(zip(original, written).enumerated().filter { $0.element.0 == $0.element.1 }.map(\.offset))
    }

    @Test("transcode to .m3u8 copies the segments no mark touches: frames outside them are the input's own, the summary says 20% re-encoded")
    func transcodeCopiesUnmarkedSegments() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, config) = try Self.inputs(h)
        let playlist = h.path("out/lecture.m3u8")
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let r = try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=ada@example.com", "--segment", "6")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("re-encoded 12.0 s of 60.0 s (20%)"), "\(r.stderr)")
        #expect(try h.videoFrameTimes(playlist) == h.videoFrameTimes(input))
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", playlist, "-map", "0", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")

        // 30 fps: the marked segments are frames 0–179 and 900–1079.
        let unchanged = try Self.unchangedFrames(h, playlist, input: input)
        let marked = Set(0..<180).union(900..<1080)
        let copied = Set(0..<1800).subtracting(marked)
        #expect(copied.isSubset(of: unchanged), "\(copied.subtracting(unchanged).count) frames of unmarked segments differ from the input's")
        #expect(marked.intersection(unchanged).count < 18, "the marked segments' frames are the input's")
        // Nothing but the presentation's own files beside it.
        let files = try FileManager.default.contentsOfDirectory(atPath: h.path("out")).filter { !$0.hasPrefix("lecture") }
        #expect(files.isEmpty, "\(files)")
    }

    @Test("--render full re-encodes every segment of a transcode's and a batch's presentation, sharing none")
    func fullRendersEverySegment() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, config) = try Self.inputs(h)
        let playlist = h.path("full.m3u8")
        let r = try h.videowm("transcode", input, playlist, "-c", config, "--var", "email=ada@example.com", "--render", "full", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.videoFrameCount(playlist) == 1800)
        #expect(try Self.unchangedFrames(h, playlist, input: input).count < 180, "a full render copied frames")

        let csv = try h.write("two.csv", "id,email\nalice,alice@example.com\nbob,bob@example.com\n")
        try FileManager.default.createDirectory(atPath: h.path("b"), withIntermediateDirectories: true)
        let b = try h.videowm("batch", input, "-c", config, "--vars", csv, "--output", h.path("b/{id}.m3u8"), "--render", "full", "-q")
        #expect(b.status == 0, "\(b.stderr)")
        for student in ["alice", "bob"] {
            let files = try HLSBatchTests.files(of: h.path("b/\(student).m3u8"))
            #expect(!files.isEmpty && files.allSatisfy { !$0.contains("/") }, "\(student) lists shared files: \(files)")
            #expect(try h.videoFrameCount(h.path("b/\(student).m3u8")) == 1800)
        }
        #expect(!FileManager.default.fileExists(atPath: h.path("b/shared-segments")))
    }

    @Test("--render smart to .m3u8 is refused with 64 naming the input where segments cannot be copied (HEVC), and nothing is written")
    func smartRefusedWhereSegmentsCannotBeCopied() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("hevc.mp4", width: 192, height: 108, seconds: 4, extra: ["-c:v", "libx265", "-x265-params", "log-level=none"])
        let config = try h.write("c.json", HLSBatchTests.config)
        let r = try h.videowm("transcode", input, h.path("o.m3u8"), "-c", config, "--var", "email=a@b.c", "--render", "smart")
        #expect(r.status == 64, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(input) && lines[0].contains("--render smart"), "\(r.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: h.path(".")).filter { $0.hasPrefix("o") || $0.hasPrefix(".o") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("auto says nothing for an always-on mark (a full render is what it costs) and one line for an input it cannot cut (HEVC)")
    func autoNoticeOnlyWhereTheUserCouldAct() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 192, height: 108, seconds: 4)
        let always = try h.write("always.json", #"{ "watermarks": [ { "text": "{email}", "size": 0.1 } ] }"#)
        let r = try h.videowm("transcode", input, h.path("a.m3u8"), "-c", always, "--var", "email=a@b.c")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("render:"), "\(r.stderr)")

        let hevc = try h.makeClip("hevc.mp4", width: 192, height: 108, seconds: 4, extra: ["-c:v", "libx265", "-x265-params", "log-level=none"])
        // Visible 1 s of every 3: the marks do hide, so copying would have paid.
        let timed = try h.write("timed.json", #"{ "watermarks": [ { "text": "{email}", "size": 0.12, "interval": 1000, "skip": 2000 } ] }"#)
        let n = try h.videowm("transcode", hevc, h.path("n.m3u8"), "-c", timed, "--var", "email=a@b.c")
        #expect(n.status == 0, "\(n.stderr)")
        #expect(n.stderr.split(separator: "\n").filter { $0.contains("render: full (") }.count == 1, "\(n.stderr)")
    }
}
