import Foundation
import Testing

/// `--scale`/`--width`/`--height`/`--max-size`: outputs at another size, with the marks laid
/// out and drawn on the output's picture (scaled first, then marked).
@Suite("scaled outputs")
struct ScaledOutputTests {
    /// Two text marks, sized from the picture's short side.
    static let config = #"""
    { "watermarks": [
        { "text": "Scaled 720", "size": 0.08, "anchor": "bottom-right", "opacity": 0.9 },
        { "text": "ada@example.com", "size": 0.05, "anchor": "top-left", "color": "#FF2020", "opacity": 0.75 } ] }
    """#

    /// The decoded video's frames, one MD5 each (framemd5), without the header lines.
    static func frameHashes(_ h: Harness, _ file: String) throws -> [String] {
        let r = try h.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", file, "-map", "0:v:0", "-f", "framemd5", "-"])
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
    }

    @Test("transcode --height 720 of 1080p: 1280×720, the same pixels as marking a 720p input directly")
    func heightOf1080p() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", Self.config)
        // Lossless throughout (ffv1 in, x264 at CRF 0 out), so the pixels can be compared exactly.
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=0.12", "-pix_fmt", "yuv420p",
                      "-c:v", "ffv1", h.path("in1080.mkv")])
        // The 720p reference: swscale's Lanczos with the flags videowm uses, through ffmpeg's own filter.
        try h.ffmpeg(["-i", h.path("in1080.mkv"), "-vf", "scale=1280:720:flags=lanczos+accurate_rnd+full_chroma_int",
                      "-c:v", "ffv1", h.path("in720.mkv")])
        let scaled = h.path("scaled.mkv"), direct = h.path("direct.mkv"), plain = h.path("plain.mkv")
        let lossless = ["--crf", "0", "--preset", "ultrafast", "-q"]
        var r = try h.videowm(arguments: ["transcode", h.path("in1080.mkv"), scaled, "-c", config, "--height", "720"] + lossless)
        #expect(r.status == 0, "\(r.stderr)")
        r = try h.videowm(arguments: ["transcode", h.path("in720.mkv"), direct, "-c", config] + lossless)
        #expect(r.status == 0, "\(r.stderr)")
        let size = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=width,height,sample_aspect_ratio", "-of", "csv=p=0", scaled])
        #expect(size.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("1280,720"), "\(size)")
        let scaledHashes = try Self.frameHashes(h, scaled)
        #expect(scaledHashes.count == 3)
        #expect(scaledHashes == (try Self.frameHashes(h, direct)))
        // And the marks are there: the same encode of the unmarked 720p picture differs.
        r = try h.videowm(arguments: ["transcode", h.path("in720.mkv"), plain, "-c", try h.write("none.json", #"{ "watermarks": [] }"#)] + lossless)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.frameHashes(h, plain) != scaledHashes)

        // thumbnail --height 720 is that transcode's frame (through the pipeline's own RGB conversion).
        r = try h.videowm("thumbnail", h.path("in1080.mkv"), h.path("t.png"), "--at", "0.04", "-c", config, "--height", "720", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        let thumbnail = try h.picture(h.path("t.png"))
        // The pipeline's own conversion; untagged HD is BT.709 to videowm (and to players), while
        // ffmpeg's scale filter would assume BT.601, so the matrix is named.
        let frame = try h.picture(scaled, filter: "select=eq(n\\,1),scale=in_color_matrix=bt709:flags=bicubic+accurate_rnd+full_chroma_int")
        #expect(thumbnail.width == 1280 && thumbnail.height == 720)
        try #require(thumbnail.pixels.count == frame.pixels.count)
        // Counted, not compared as arrays: a failed == would describe both 2.7-MB arrays.
        var differing = 0, largest = 0
        for (a, b) in zip(thumbnail.pixels, frame.pixels) where a != b {
            differing += 1
            largest = max(largest, abs(Int(a) - Int(b)))
        }
        #expect(differing == 0, "\(differing) bytes differ, by up to \(largest)")
    }

    @Test("sizes follow the displayed shape; smaller requests only, unless --upscale; one size option at a time")
    func sizesAndRefusals() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", Self.config)
        let clip = try h.makeClip("in.mp4", width: 320, height: 240, seconds: 0.2, audio: false)
        func size(_ file: String) throws -> String {
            try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", file])
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        for (options, expected) in [(["--max-size", "101"], "100,76"), (["--width", "160"], "160,120"), (["--scale", "100x100"], "100,76"),
                                    (["--height", "480"], "320,240"), (["--height", "480", "--upscale"], "640,480")] {
            let out = h.path("o\(options.joined()).mp4")
            let r = try h.videowm(arguments: ["transcode", clip, out, "-c", config, "-q"] + options)
            #expect(r.status == 0, "\(options): \(r.stderr)")
            #expect(try size(out) == expected, "\(options)")
        }
        for options in [["--width", "160", "--height", "90"], ["--scale", "160"], ["--max-size", "0"], ["--upscale"]] {
            let r = try h.videowm(arguments: ["transcode", clip, h.path("bad.mp4"), "-c", config] + options)
            #expect(r.status == 64 && r.stderr.contains(options[0]), "\(options): \(r.stderr)")
        }
    }
}
