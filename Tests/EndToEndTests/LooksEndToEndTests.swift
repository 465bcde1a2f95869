import Foundation
import Testing

/// The issue's "done when" lines, end to end: marks on HDR video at graphics white, TPStreams
/// configs placed as the SDK places them, and animated logos playing by presentation time.
/// Media are made with ffmpeg's lavfi sources; outputs are read back with ffmpeg.
@Suite("marks that look as intended, end to end")
struct LooksEndToEndTests {
    // MARK: HDR

    /// A one-second 10-bit black clip tagged with `transfer` (and BT.2020), made by libx265.
    func hdrClip(_ h: Harness, transfer: String) throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180:rate=10:duration=1", "-c:v", "libx265", "-preset", "ultrafast",
                      "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
                      "-color_trc", transfer, "-colorspace", "bt2020nc", "-color_range", "tv", h.path("\(transfer).mp4")])
        return h.path("\(transfer).mp4")
    }

    /// The most common luma code, among samples well above black, of the first frame (10-bit).
    func brightLumaMode(_ h: Harness, _ file: String, width: Int, height: Int, bitDepth: Int) throws -> Int? {
        let format = bitDepth > 8 ? "yuv420p10le" : "yuv420p"
        let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", format, "-"])
        #expect(r.status == 0, "\(r.stderr)")
        var counts: [Int: Int] = [:]
        let bytes = [UInt8](r.stdoutData)
        for i in 0..<(width * height) {
            let value = bitDepth > 8 ? Int(bytes[2 * i]) | Int(bytes[2 * i + 1]) << 8 : Int(bytes[i])
            if value > (bitDepth > 8 ? 200 : 50) { counts[value, default: 0] += 1 }
        }
        return counts.max { $0.value < $1.value }?.key
    }

    static let whiteText = #"{ "watermarks": [ { "text": "HDR WHITE", "size": 0.2, "opacity": 1, "x": 50, "y": 50 } ] }"#

    /// White text on 10-bit PQ is written at luma 573 ± 25 (PQ of 203 nits), on HLG at 721 ± 25
    /// (75 %), and the output keeps its HDR tags.
    @Test("white text on 10-bit PQ and HLG video lands at BT.2408 graphics white", arguments: [("smpte2084", 573), ("arib-std-b67", 721)])
    func hdrVideo(transfer: String, expected: Int) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try hdrClip(h, transfer: transfer)
        let config = try h.write("c.json", Self.whiteText)
        let r = try h.videowm("transcode", input, h.path("out.mkv"), "-c", config, "--codec", "hevc", "--crf", "4", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        let mode = try brightLumaMode(h, h.path("out.mkv"), width: 320, height: 180, bitDepth: 10)
        #expect(mode.map { abs($0 - expected) <= 25 } == true, "\(transfer): white text at luma \(String(describing: mode)), expected \(expected) ± 25")
        print("HDR \(transfer): white text luma \(String(describing: mode))")
        let tags = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=color_transfer,color_primaries", "-of", "csv=p=0", h.path("out.mkv")])
        #expect(tags.contains(transfer) && tags.contains("bt2020"), "\(tags)")
        // hdrWhite moves it: 1000 nits on HLG is the top of the signal (940).
        if transfer == "arib-std-b67" {
            let bright = try h.write("b.json", #"{ "watermarks": [ { "text": "HDR WHITE", "size": 0.2, "opacity": 1, "x": 50, "y": 50, "hdrWhite": 1000 } ] }"#)
            #expect(try h.videowm("transcode", input, h.path("bright.mkv"), "-c", bright, "--codec", "hevc", "--crf", "4", "--preset", "ultrafast").status == 0)
            let peak = try brightLumaMode(h, h.path("bright.mkv"), width: 320, height: 180, bitDepth: 10)
            #expect(peak.map { abs($0 - 940) <= 25 } == true, "hdrWhite 1000 on HLG: \(String(describing: peak))")
        }
    }

    /// SDR is unchanged: white text is 235 on 8-bit BT.709 video, and `hdrWhite` changes no
    /// byte of an SDR output (the stills path is deterministic, so whole files compare).
    @Test("SDR video and stills are marked as before")
    func sdrUnchanged() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180:rate=10:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", h.path("sdr.mp4")])
        let config = try h.write("c.json", Self.whiteText)
        #expect(try h.videowm("transcode", h.path("sdr.mp4"), h.path("out.mp4"), "-c", config, "--crf", "4").status == 0)
        let mode = try brightLumaMode(h, h.path("out.mp4"), width: 320, height: 180, bitDepth: 8)
        #expect(mode.map { abs($0 - 235) <= 2 } == true, "SDR white text at \(String(describing: mode))")
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180", "-frames:v", "1", h.path("photo.png")])
        let other = try h.write("d.json", #"{ "watermarks": [ { "text": "HDR WHITE", "size": 0.2, "opacity": 1, "x": 50, "y": 50, "hdrWhite": 1000 } ] }"#)
        #expect(try h.videowm("stamp", h.path("photo.png"), "-o", h.path("a.png"), "-c", config).status == 0)
        #expect(try h.videowm("stamp", h.path("photo.png"), "-o", h.path("b.png"), "-c", other).status == 0)
        #expect(FileManager.default.contents(atPath: h.path("a.png")) == FileManager.default.contents(atPath: h.path("b.png")))
    }

    // MARK: TPStreams

    /// Nine colours far apart (as lavfi `color` sources: 0xRRGGBB), one per logo.
    static let colors: [(name: String, rgb: (Int, Int, Int))] = [
        ("0xFF0000", (255, 0, 0)), ("0x00FF00", (0, 255, 0)), ("0x0000FF", (0, 0, 255)), ("0xFFFF00", (255, 255, 0)),
        ("0xFF00FF", (255, 0, 255)), ("0x00FFFF", (0, 255, 255)), ("0xFFFFFF", (255, 255, 255)), ("0xFF8000", (255, 128, 0)),
        ("0x8000FF", (128, 0, 255)),
    ]

    /// The bounding box of the pixels within 60 of `color` in every channel (`rgb` is W×H RGB24).
    func bounds(of color: (Int, Int, Int), in rgb: [UInt8], width: Int, height: Int) -> (x: Int, y: Int, maxX: Int, maxY: Int)? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                guard abs(Int(rgb[i]) - color.0) < 60, abs(Int(rgb[i + 1]) - color.1) < 60, abs(Int(rgb[i + 2]) - color.2) < 60 else { continue }
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return maxX < 0 ? nil : (minX, minY, maxX + 1, maxY + 1)
    }

    /// A TPStreams config with a 48-point logo at each x, y ∈ {0, 50, 100} (a colour each):
    /// 16 px from the edges on 640×360 and 360×640 and 32 px (96 px logos) on 1280×720,
    /// centred at 50 — the SDK's `left = 16 + (W − w − 32)·x/100` in points.
    @Test("TPStreams images land 16 points from the edges, as the SDK places them", arguments: [(640, 360), (360, 640), (1280, 720)])
    func tpStreamsImages(width: Int, height: Int) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        var layers: [String] = []
        for (index, color) in Self.colors.enumerated() {
            try h.ffmpeg(["-f", "lavfi", "-i", "color=c=\(color.name):size=64x64", "-frames:v", "1", h.path("\(color.name).png")])
            let (x, y) = ([0, 50, 100][index % 3], [0, 50, 100][index / 3])
            layers.append(#"{ "imageUrl": "\#(color.name).png", "width": 48, "height": 48, "x": \#(x), "y": \#(y) }"#)
        }
        let config = try h.write("tp.json", #"{ "watermarks": [ \#(layers.joined(separator: ", ")) ] }"#)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=\(width)x\(height):rate=10:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", h.path("in.mp4")])
        let r = try h.videowm("thumbnail", h.path("in.mp4"), h.path("thumb.png"), "--at", "0.5", "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        let frame = try h.rgbFrame(h.path("thumb.png"), at: 0, width: width, height: height)
        let point = Double(min(width, height)) / 360
        let side = Int(48 * point), inset = Int(16 * point)
        for (index, color) in Self.colors.enumerated() {
            let (x, y) = ([0, 50, 100][index % 3], [0, 50, 100][index / 3])
            let left = inset + Int((Double(width - side - 2 * inset) * Double(x) / 100).rounded())
            let top = inset + Int((Double(height - side - 2 * inset) * Double(y) / 100).rounded())
            guard let found = bounds(of: color.rgb, in: frame, width: width, height: height) else {
                Issue.record("\(width)×\(height): no \(color.name) logo"); continue
            }
            // Within a pixel: chroma subsampling softens the edges of a 4:2:0 frame.
            #expect(abs(found.x - left) <= 1 && abs(found.y - top) <= 1 && abs(found.maxX - (left + side)) <= 1
                    && abs(found.maxY - (top + side)) <= 1,
                    "\(width)×\(height) \(color.name) at \(x), \(y): \(found), expected \(left), \(top) + \(side)")
        }
    }

    /// `width: 96, height: 48` with a square logo: 48×48, centred in the 96×48 box at the
    /// inset; and the first entry is drawn over the second.
    @Test("TPStreams width and height are a box the image is fitted into; earlier entries on top")
    func tpStreamsBoxAndStacking() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=64x64", "-frames:v", "1", h.path("red.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=blue:size=64x64", "-frames:v", "1", h.path("blue.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=640x360", "-frames:v", "1", h.path("in.png")])
        let config = try h.write("tp.json", """
        { "watermarks": [
          { "imageUrl": "red.png", "width": 96, "height": 48, "x": 0, "y": 0 },
          { "imageUrl": "red.png", "x": 50, "y": 50 },
          { "imageUrl": "blue.png", "width": 96, "height": 96, "x": 50, "y": 50 }
        ] }
        """)
        let r = try h.videowm("stamp", h.path("in.png"), "-o", h.path("out.png"), "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        let frame = try h.rgbFrame(h.path("out.png"), at: 0, width: 640, height: 360)
        let corner = bounds(of: (255, 0, 0), in: Array(frame), width: 640, height: 120)
        #expect(corner.map { [$0.x, $0.y, $0.maxX, $0.maxY] } == [16 + 24, 16, 16 + 24 + 48, 16 + 48], "\(String(describing: corner))")
        // The centre: the red 48-pt logo (first) over the blue 96-pt one (second).
        let centre = (180 * 640 + 320) * 3
        #expect(frame[centre] > 240 && frame[centre + 1] < 16 && frame[centre + 2] < 16, "centre: the first entry's red")
        let ring = (180 * 640 + 320 - 40) * 3
        #expect(frame[ring] < 16 && frame[ring + 1] < 16 && frame[ring + 2] > 240, "around it: the later entry's blue")
    }

    // MARK: Animated logos

    /// Three frames (red, green, blue) of 0.5 s each, as `extension` made by ffmpeg.
    func animatedLogo(_ h: Harness, _ name: String, _ arguments: [String]) throws -> String {
        for (index, color) in ["red", "lime", "blue"].enumerated() {
            try h.ffmpeg(["-f", "lavfi", "-i", "color=c=\(color):size=40x40", "-frames:v", "1", h.path("f\(index + 1).png")])
        }
        try h.ffmpeg(["-framerate", "2", "-i", h.path("f%d.png")] + arguments + [h.path(name)])
        return name
    }

    /// The colour at the centre of an RGB frame, as a name.
    func centreColor(_ rgb: [UInt8], width: Int, height: Int) -> String {
        let i = ((height / 2) * width + width / 2) * 3
        switch (rgb[i] > 128, rgb[i + 1] > 128, rgb[i + 2] > 128) {
        case (true, false, false): return "red"
        case (false, true, false): return "green"
        case (false, false, true): return "blue"
        default: return "other (\(rgb[i]), \(rgb[i + 1]), \(rgb[i + 2]))"
        }
    }

    static let gifArguments = ["-filter_complex", "split[a][b];[a]palettegen[p];[b][p]paletteuse"]

    /// A 3-frame GIF at 0.5 s a frame: frame 2 at 0.6 s and frame 1 again at 1.6 s in the
    /// video; `stamp --at 0.6` and `thumbnail --at 1.2` show frames 2 and 3; `"animate": false`
    /// keeps frame 1.
    @Test("an animated GIF logo plays by presentation time in video, stamp and thumbnail")
    func animatedGIF() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let logo = try animatedLogo(h, "logo.gif", Self.gifArguments)
        let config = try h.write("c.json", #"{ "watermarks": [ { "image": "\#(logo)", "size": 0.3, "x": 50, "y": 50 } ] }"#)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=10:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", h.path("in.mp4")])
        let r = try h.videowm("transcode", h.path("in.mp4"), h.path("out.mp4"), "-c", config, "--crf", "10", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        for (t, expected) in [(0.0, "red"), (0.6, "green"), (1.2, "blue"), (1.6, "red")] {
            let frame = try h.rgbFrame(h.path("out.mp4"), at: t, width: 320, height: 240)
            #expect(centreColor(frame, width: 320, height: 240) == expected, "video at \(t) s")
        }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240", "-frames:v", "1", h.path("photo.png")])
        #expect(try h.videowm("stamp", h.path("photo.png"), "-o", h.path("at.png"), "-c", config, "--at", "0.6").status == 0)
        #expect(centreColor(try h.rgbFrame(h.path("at.png"), at: 0, width: 320, height: 240), width: 320, height: 240) == "green")
        #expect(try h.videowm("thumbnail", h.path("in.mp4"), h.path("thumb.png"), "--at", "1.2", "-c", config).status == 0)
        #expect(centreColor(try h.rgbFrame(h.path("thumb.png"), at: 0, width: 320, height: 240), width: 320, height: 240) == "blue")
        let still = try h.write("s.json", #"{ "watermarks": [ { "image": "\#(logo)", "size": 0.3, "x": 50, "y": 50, "animate": false } ] }"#)
        #expect(try h.videowm("stamp", h.path("photo.png"), "-o", h.path("still.png"), "-c", still, "--at", "0.6").status == 0)
        #expect(centreColor(try h.rgbFrame(h.path("still.png"), at: 0, width: 320, height: 240), width: 320, height: 240) == "red")
    }

    /// APNG (even named .png) and animated WebP (decoded with libwebp) play the same way.
    @Test("animated APNG and WebP logos play too", arguments: [("logo.png", ["-plays", "0", "-f", "apng"]),
                                                             ("logo.webp", ["-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0"])])
    func animatedAPNGAndWebP(name: String, arguments: [String]) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let logo = try animatedLogo(h, name, arguments)
        let config = try h.write("c.json", #"{ "watermarks": [ { "image": "\#(logo)", "size": 0.3, "x": 50, "y": 50 } ] }"#)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240", "-frames:v", "1", h.path("photo.png")])
        for (t, expected) in [("0.6", "green"), ("1.2", "blue"), ("1.6", "red")] {
            #expect(try h.videowm("stamp", h.path("photo.png"), "-o", h.path("at-\(t).png"), "-c", config, "--at", t).status == 0)
            #expect(centreColor(try h.rgbFrame(h.path("at-\(t).png"), at: 0, width: 320, height: 240), width: 320, height: 240) == expected,
                    "\(name) at \(t) s")
        }
    }
}
