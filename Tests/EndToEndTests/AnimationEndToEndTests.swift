import Foundation
import Testing

@Suite("animation, end to end")
struct AnimationEndToEndTests {
    /// Columns where the frame is mostly magenta (the logo) on a grey background.
    func logoColumns(_ rgb: [UInt8], width: Int, height: Int) -> ClosedRange<Int>? {
        var columns: [Int] = []
        for x in 0..<width {
            var hits = 0
            for y in 0..<height {
                let i = (y * width + x) * 3
                if rgb[i] > 200 && rgb[i + 1] < 60 && rgb[i + 2] > 200 { hits += 1 }
            }
            if hits > 10 { columns.append(x) }
        }
        guard let first = columns.first, let last = columns.last else { return nil }
        return first...last
    }

    @Test("pingPong: the mark is at 0, 50, 100, 50, 0 % of its travel at t = 0, d/2, d, 3d/2, 2d")
    func pingPongPositionsFollowPresentationTime() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30:duration=4.2", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", h.path("in.mp4")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=40x40", "-frames:v", "1", h.path("logo.png")])
        let config = try h.write("c.json", #"{ "watermarks": [ { "image": "logo.png", "size": 0.2, "y": 50, "animation": { "type": "pingPong", "duration": 2000 } } ] }"#)
        let r = try h.videowm("transcode", h.path("in.mp4"), h.path("out.mp4"), "-c", config, "--crf", "12")
        #expect(r.status == 0, "\(r.stderr)")
        // Logo 0.2 × 240 = 48 px; inset 0.03 × 240 = 7.2 px; travel = 320 − 48 − 14.4.
        let inset = 7.2, logo = 48.0, travel = 320 - logo - 2 * inset
        for (t, expectedPercent) in [(0.0, 0.0), (1.0, 50.0), (2.0, 100.0), (3.0, 50.0), (4.0, 0.0)] {
            let frame = try h.rgbFrame(h.path("out.mp4"), at: t, width: 320, height: 240)
            guard let columns = logoColumns(frame, width: 320, height: 240) else {
                Issue.record("no mark at t = \(t)")
                continue
            }
            let percent = (Double(columns.lowerBound) - inset) / travel * 100
            #expect(abs(percent - expectedPercent) <= 2, "t = \(t): mark at \(columns), \(percent)% of travel")
        }
    }

    @Test("random motion: byte-identical across runs, different for different e-mails")
    func randomMotionIsDeterministicPerStudent() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 2, audio: true)
        let config = try h.write("c.json", #"{ "watermarks": [ { "text": "{email}", "size": 0.08, "opacity": 1, "animation": { "type": "random", "duration": 400, "ease": 100 } } ] }"#)
        for (name, email) in [("a1.mp4", "ada@example.com"), ("a2.mp4", "ada@example.com"), ("b.mp4", "bob@example.com")] {
            let r = try h.videowm("transcode", input, h.path(name), "-c", config, "--var", "email=\(email)")
            #expect(r.status == 0, "\(r.stderr)")
        }
        let a1 = try Data(contentsOf: URL(fileURLWithPath: h.path("a1.mp4")))
        let a2 = try Data(contentsOf: URL(fileURLWithPath: h.path("a2.mp4")))
        #expect(a1 == a2, "two runs with the same input, config and variables differ")
        // Same frame, different students: the e-mail lands elsewhere.
        let fa = try h.rgbFrame(h.path("a1.mp4"), at: 1.0, width: 320, height: 240)
        let fb = try h.rgbFrame(h.path("b.mp4"), at: 1.0, width: 320, height: 240)
        #expect(meanDifference(fa, fb, width: 320, x: 0..<320, y: 0..<240) > 1)
    }
}
