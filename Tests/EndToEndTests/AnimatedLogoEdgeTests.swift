import Foundation
import Testing

/// Animated logos beyond issue 16's opaque example: transparency, and a video whose
/// timestamps do not start at zero.
@Suite("animated logos: transparency and late-starting timestamps")
struct AnimatedLogoEdgeTests {
    // MARK: A transparent GIF

    /// A 3-frame GIF, 0.5 s a frame, each a 40×40 square with a transparent field and a 16×16
    /// coloured square at a different place (top left, centre, bottom right): over grey video
    /// the transparent field shows the video, and a square of an earlier frame does not linger.
    @Test("a transparent animated GIF shows the video through it, and no frame lingers")
    func transparentGIF() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        for (index, (color, offset)) in [("red", 0), ("lime", 12), ("blue", 24)].enumerated() {
            try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black@0.0:size=40x40,format=rgba", "-f", "lavfi", "-i", "color=c=\(color):size=16x16,format=rgba",
                          "-filter_complex", "[0][1]overlay=\(offset):\(offset)", "-frames:v", "1", h.path("t\(index + 1).png")])
        }
        try h.ffmpeg(["-framerate", "2", "-i", h.path("t%d.png"), "-filter_complex",
                      "split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse=alpha_threshold=128", "-gifflags", "-transdiff",
                      h.path("logo.gif")])
        // The logo is 40 px drawn 120 px wide (size 0.5 of 240), centred at 160, 120: 3 px of video per logo pixel.
        let config = try h.write("c.json", #"{ "watermarks": [ { "image": "logo.gif", "size": 0.5, "x": 50, "y": 50, "opacity": 1 } ] }"#)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=10:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", h.path("in.mp4")])
        let r = try h.videowm("transcode", h.path("in.mp4"), h.path("out.mp4"), "-c", config, "--crf", "10", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        // Logo pixel (lx, ly) covers video pixels 100 + 3·lx …, 60 + 3·ly …; sample their centres.
        func colorAt(_ frame: [UInt8], logoX: Int, logoY: Int) -> String {
            let i = ((60 + 3 * logoY + 1) * 320 + 100 + 3 * logoX + 1) * 3
            switch (Int(frame[i]), Int(frame[i + 1]), Int(frame[i + 2])) {
            case let (r, g, b) where abs(r - g) < 20 && abs(g - b) < 20 && r > 100 && r < 160: return "grey"
            case let (r, g, b) where r > 180 && g < 80 && b < 80: return "red"
            case let (r, g, b) where g > 180 && r < 80 && b < 80: return "green"
            case let (r, g, b) where b > 180 && r < 80 && g < 80: return "blue"
            case let (r, g, b): return "other (\(r), \(g), \(b))"
            }
        }
        // Squares at 0…15, 12…27, 24…39: sample inside each one and at a corner no frame covers.
        let probes = [("top left", 4, 4), ("centre", 20, 20), ("bottom right", 35, 35), ("empty corner", 36, 3)]
        for (t, shown) in [(0.2, "red"), (0.7, "green"), (1.2, "blue"), (1.7, "red")] {
            let frame = try h.rgbFrame(h.path("out.mp4"), at: t, width: 320, height: 240)
            for (name, x, y) in probes {
                let expected: String
                switch (name, shown) {
                case ("top left", "red"), ("centre", "green"), ("bottom right", "blue"): expected = shown
                default: expected = "grey"
                }
                #expect(colorAt(frame, logoX: x, logoY: y) == expected, "\(t) s, \(name): \(colorAt(frame, logoX: x, logoY: y))")
            }
        }
    }

    /// An MPEG-TS whose timestamps start at 11.4 s: the GIF (0.5 s a frame) still starts
    /// with the video's first frame — frames 0, 6, 12, 16 (0, 0.6, 1.2, 1.6 s) show red,
    /// green, blue, red. Decoded whole (no seeking), frame by frame.
    @Test("an animated logo is timed from the video's first frame when timestamps start late")
    func animationFromTheFirstFrameOfALateStartingStream() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let logo = try LooksEndToEndTests().animatedLogo(h, "logo.gif", LooksEndToEndTests.gifArguments)
        let config = try h.write("c.json", #"{ "watermarks": [ { "image": "\#(logo)", "size": 0.3, "x": 50, "y": 50 } ] }"#)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=10:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", "-output_ts_offset", "10", h.path("in.ts")])
        let r = try h.videowm("transcode", h.path("in.ts"), h.path("out.ts"), "-c", config, "--crf", "10", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        let start = try h.ffprobe(["-show_entries", "format=start_time", "-of", "csv=p=0", h.path("out.ts")])
        #expect((Double(start.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 10, "start \(start)")
        let decoded = try h.run("ffmpeg", ["-v", "error", "-i", h.path("out.ts"), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let frames = [UInt8](decoded.stdoutData), size = 320 * 240 * 3
        try #require(frames.count == 20 * size, "\(frames.count / size) frames")
        for (index, expected) in [(0, "red"), (6, "green"), (12, "blue"), (16, "red")] {
            let frame = Array(frames[(index * size)..<((index + 1) * size)])
            #expect(LooksEndToEndTests().centreColor(frame, width: 320, height: 240) == expected, "frame \(index)")
        }
    }
}
