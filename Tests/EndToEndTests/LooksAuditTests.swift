import Foundation
import Testing

/// What a demanding user of issue 16's features would check beyond its examples: SDR output
/// equal to a reference worked out here from the BT.709/BT.601 formulas (8-bit, lossless),
/// 10-bit and 4:2:2 SDR input left at SDR white, 4:2:2 PQ at graphics white, TPStreams
/// placement on odd frame sizes, and tile spacing warnings from the command line.
/// (HDR stills: `HDRStillTests`; transparent and late-starting animations: `AnimatedLogoEdgeTests`.)
@Suite("marks that look as intended: beyond the examples")
struct LooksAuditTests {
    // MARK: SDR, against a reference computed here

    /// Limited-range 8-bit Y′CbCr of an sRGB colour by the textbook formulas, with BT.709's
    /// (Kr 0.2126, Kb 0.0722) or BT.601's (0.299, 0.114) weights:
    /// Y′ = 16 + 219·(Kr·R′ + Kg·G′ + Kb·B′), Cb = 128 + 224·(B′ − Y′)/(2 − 2·Kb), Cr = 128 + 224·(R′ − Y′)/(2 − 2·Kr).
    static func limitedYCbCr(_ rgb: [UInt8], kr: Double, kb: Double) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let (r, g, b) = (Double(rgb[0]) / 255, Double(rgb[1]) / 255, Double(rgb[2]) / 255)
        let luma = kr * r + (1 - kr - kb) * g + kb * b
        return (UInt8((16 + 219 * luma).rounded()), UInt8((128 + 224 * (b - luma) / (2 - 2 * kb)).rounded()),
                UInt8((128 + 224 * (r - luma) / (2 - 2 * kr)).rounded()))
    }

    /// The RGB bytes of a still, decoded by ffmpeg.
    static func stillRGB(_ h: Harness, _ file: String) throws -> [UInt8] {
        let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(r.status == 0, "\(file): \(r.stderr)")
        return [UInt8](r.stdoutData)
    }

    /// All frames of `file` as raw 8-bit 4:2:0 planes.
    func rawFrames(_ h: Harness, _ file: String, format: String = "yuv420p") throws -> [UInt8] {
        let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", format, "-"])
        #expect(r.status == 0, "\(r.stderr)")
        return [UInt8](r.stdoutData)
    }

    /// A TPStreams config on a 640×360 frame draws a 48×48 logo pixel for pixel (48 points
    /// on a 360-point short side), opaque, at 16, 16 (x 0, y 0) and at 576, 296 (x, y 100).
    /// So every byte of every output frame is known: the input's, except two squares of the
    /// logos' BT.709 colour. The output (x264 at --crf 0, lossless at 8 bits) must equal that
    /// reference byte for byte, for a BT.709-tagged input and an untagged one (which, under
    /// 720 lines, is BT.601, as players take it).
    @Test("SDR video: every output byte equals a reference worked out from the BT.709 and BT.601 formulas", arguments: [true, false])
    func sdrVideoEqualsAReference(tagged: Bool) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (width, height) = (640, 360)
        let tags = tagged ? ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv"] : []
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=10:duration=0.5", "-c:v", "libx264", "-qp", "0",
                      "-preset", "ultrafast", "-pix_fmt", "yuv420p"] + tags + [h.path("in.mp4")])
        let colors: [(name: String, x: Int, y: Int)] = [("0xFF0000", 0, 0), ("0x3366CC", 100, 100)]
        var layers: [String] = []
        var logoRGB: [String: [UInt8]] = [:]
        for color in colors {
            try h.ffmpeg(["-f", "lavfi", "-i", "color=c=\(color.name):size=48x48,format=rgb24", "-frames:v", "1", h.path("\(color.name).png")])
            logoRGB[color.name] = Array(try Self.stillRGB(h, h.path("\(color.name).png")).prefix(3))
            layers.append(#"{ "imageUrl": "\#(color.name).png", "width": 48, "height": 48, "x": \#(color.x), "y": \#(color.y), "opacity": 1, "hdrWhite": 1000 }"#)
        }
        // hdrWhite is set: it must change nothing on SDR video.
        let config = try h.write("tp.json", #"{ "watermarks": [ \#(layers.joined(separator: ", ")) ] }"#)
        let r = try h.videowm("transcode", h.path("in.mp4"), h.path("out.mp4"), "-c", config, "--crf", "0", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        var reference = try rawFrames(h, h.path("in.mp4"))
        let output = try rawFrames(h, h.path("out.mp4"))
        let frameBytes = width * height * 3 / 2
        #expect(reference.count == 5 * frameBytes && output.count == reference.count, "\(reference.count) \(output.count)")
        for frame in 0..<(reference.count / frameBytes) {
            let base = frame * frameBytes, chroma = width * height / 4
            for color in colors {
                let (y, cb, cr) = tagged ? Self.limitedYCbCr(logoRGB[color.name]!, kr: 0.2126, kb: 0.0722)
                                         : Self.limitedYCbCr(logoRGB[color.name]!, kr: 0.299, kb: 0.114)
                let left = color.x == 0 ? 16 : width - 16 - 48, top = color.y == 0 ? 16 : height - 16 - 48
                for row in top..<(top + 48) { for column in left..<(left + 48) { reference[base + row * width + column] = y } }
                for row in (top / 2)..<((top + 48) / 2) {
                    for column in (left / 2)..<((left + 48) / 2) {
                        reference[base + width * height + row * width / 2 + column] = cb
                        reference[base + width * height + chroma + row * width / 2 + column] = cr
                    }
                }
            }
        }
        let differing = zip(reference, output).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(output.count) bytes differ from the reference")
        #expect(logoRGB["0xFF0000"] == [255, 0, 0] && logoRGB["0x3366CC"] == [0x33, 0x66, 0xCC], "\(logoRGB)")
    }

    /// The mode of the 10-bit luma samples above `floor` in the first frame (as yuv422p10le or yuv420p10le).
    func lumaMode(_ h: Harness, _ file: String, width: Int, height: Int, format: String, above floor: Int = 200) throws -> Int? {
        let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", format, "-"])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = [UInt8](r.stdoutData)
        var counts: [Int: Int] = [:]
        for i in 0..<(width * height) {
            let value = Int(bytes[2 * i]) | Int(bytes[2 * i + 1]) << 8
            if value > floor { counts[value, default: 0] += 1 }
        }
        return counts.max { $0.value < $1.value }?.key
    }

    /// 10-bit SDR is not HDR: white text on 10-bit 4:2:0 and 4:2:2 BT.709 video (and on
    /// BT.2020 SDR, transfer bt2020-10) is the top of the range, 940, not graphics white.
    @Test("white text on 10-bit SDR video (4:2:0, 4:2:2, BT.2020 SDR) stays at 940",
          arguments: [("yuv420p10le", "bt709", "bt709", "bt709"), ("yuv422p10le", "bt709", "bt709", "bt709"),
                      ("yuv420p10le", "bt2020", "bt2020-10", "bt2020nc")])
    func tenBitSDR(format: String, primaries: String, transfer: String, matrix: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180:rate=10:duration=0.5", "-c:v", "libx265", "-preset", "ultrafast",
                      "-x265-params", "log-level=error", "-pix_fmt", format, "-color_primaries", primaries, "-color_trc", transfer,
                      "-colorspace", matrix, "-color_range", "tv", h.path("in.mkv")])
        let config = try h.write("c.json", LooksEndToEndTests.whiteText)
        let r = try h.videowm("transcode", h.path("in.mkv"), h.path("out.mkv"), "-c", config, "--codec", "hevc", "--crf", "4", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        let outFormat = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", h.path("out.mkv")])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(outFormat == format, "the output's pixel format \(outFormat)")
        let mode = try lumaMode(h, h.path("out.mkv"), width: 320, height: 180, format: format)
        #expect(mode.map { abs($0 - 940) <= 4 } == true, "\(format) \(transfer): white text at \(String(describing: mode)), expected 940")
    }

    /// 4:2:2 10-bit PQ (as ProRes-like HDR masters come) is HDR too: white text at 573 ± 25,
    /// and the output keeps 4:2:2.
    @Test("white text on 10-bit 4:2:2 PQ video lands at graphics white")
    func hdrFourTwoTwo() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180:rate=10:duration=0.5", "-c:v", "libx265", "-preset", "ultrafast",
                      "-x265-params", "log-level=error", "-pix_fmt", "yuv422p10le", "-color_primaries", "bt2020", "-color_trc", "smpte2084",
                      "-colorspace", "bt2020nc", "-color_range", "tv", h.path("in.mkv")])
        let config = try h.write("c.json", LooksEndToEndTests.whiteText)
        let r = try h.videowm("transcode", h.path("in.mkv"), h.path("out.mkv"), "-c", config, "--codec", "hevc", "--crf", "4", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        let outFormat = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", h.path("out.mkv")])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(outFormat == "yuv422p10le")
        let mode = try lumaMode(h, h.path("out.mkv"), width: 320, height: 180, format: "yuv422p10le")
        #expect(mode.map { abs($0 - 573) <= 25 } == true, "4:2:2 PQ: white text at \(String(describing: mode))")
    }

    // MARK: TPStreams on other frame sizes

    /// The SDK's `left = inset + (W − w − 2·inset)·x/100` with inset 16 points and a 48-point
    /// logo, a point being (short side / 360) px: on odd and unusual picture sizes (stamped,
    /// so no chroma subsampling) every logo is within a pixel of where the formula puts it.
    @Test("TPStreams logos on odd and unusual sizes land where the SDK's formula puts them",
          arguments: [(641, 359), (1001, 1999), (1920, 1080), (853, 480)])
    func tpStreamsOddSizes(width: Int, height: Int) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let colors = LooksEndToEndTests.colors
        var layers: [String] = []
        for (index, color) in colors.enumerated() {
            try h.ffmpeg(["-f", "lavfi", "-i", "color=c=\(color.name):size=64x64", "-frames:v", "1", h.path("\(color.name).png")])
            layers.append(#"{ "imageUrl": "\#(color.name).png", "width": 48, "height": 48, "x": \#([0, 50, 100][index % 3]), "y": \#([0, 50, 100][index / 3]) }"#)
        }
        let config = try h.write("tp.json", #"{ "watermarks": [ \#(layers.joined(separator: ", ")) ] }"#)
        // An odd size needs RGB from the start: lavfi's colour source in 4:2:0 would round it.
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=\(width)x\(height),format=rgb24", "-frames:v", "1", h.path("in.png")])
        let r = try h.videowm("stamp", h.path("in.png"), "-o", h.path("out.png"), "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        let frame = try Self.stillRGB(h, h.path("out.png"))
        try #require(frame.count == width * height * 3)
        let point = Double(min(width, height)) / 360
        let side = 48 * point, inset = 16 * point
        let audit = LooksEndToEndTests()
        for (index, color) in colors.enumerated() {
            let (x, y) = (Double([0, 50, 100][index % 3]), Double([0, 50, 100][index / 3]))
            let left = inset + (Double(width) - side - 2 * inset) * x / 100
            let top = inset + (Double(height) - side - 2 * inset) * y / 100
            guard let found = audit.bounds(of: color.rgb, in: frame, width: width, height: height) else {
                Issue.record("\(width)×\(height): no \(color.name) logo"); continue
            }
            let edges = [(Double(found.x), left), (Double(found.y), top), (Double(found.maxX), left + side), (Double(found.maxY), top + side)]
            #expect(edges.allSatisfy { abs($0.0 - $0.1) <= 1 },
                    "\(width)×\(height) \(color.name) at \(x), \(y): \(found), the SDK's box \(left), \(top) + \(side)")
        }
    }

    // MARK: Tiling, from the command line

    /// The contract's sparse example (spacing 0.12) and 0.3 warn once on stderr, naming the clean
    /// square; the dense default and 0.03 say nothing; 0.12 and 0.3 give different pictures.
    @Test("tile spacing: a sparse pattern warns once with its clean square, a dense one does not")
    func tileSpacingWarnings() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=640x360", "-frames:v", "1", "-pix_fmt", "rgb24", h.path("in.png")])
        var pictures: [String: Data] = [:]
        for spacing in ["0.12", "0.3", "0.03", "none"] {
            let tile = spacing == "none" ? "{ \"angle\": -30 }" : "{ \"angle\": -30, \"spacing\": \(spacing) }"
            let config = try h.write("\(spacing).json", #"{ "watermarks": [ { "text": "CONFIDENTIAL", "size": 0.04, "opacity": 0.5, "tile": \#(tile) } ] }"#)
            let r = try h.videowm("stamp", h.path("in.png"), "-o", h.path("\(spacing).png"), "-c", config)
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = r.stderr.components(separatedBy: "\n").filter { $0.contains("clean square") }
            let sparse = spacing == "0.12" || spacing == "0.3"
            #expect(warnings.count == (sparse ? 1 : 0), "spacing \(spacing): \(r.stderr)")
            if sparse { #expect(warnings.first?.range(of: #"\d+ px"#, options: .regularExpression) != nil, "\(warnings)") }
            pictures[spacing] = FileManager.default.contents(atPath: h.path("\(spacing).png"))
        }
        #expect(pictures["0.12"] != nil && pictures["0.12"] != pictures["0.3"])
    }
}
