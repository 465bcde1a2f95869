import Foundation
import TestSupport
import Testing

/// A still decoded to RGB24 by ffmpeg: an independent reader of what videowm wrote.
struct RGBPicture {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    func mean(x: Range<Int>, y: Range<Int>) -> (Double, Double, Double) {
        meanColor(pixels, width: width, x: x, y: y)
    }

    /// Whether a rectangle is, on average, the magenta of the test logo.
    func isMagenta(x: Range<Int>, y: Range<Int>) -> Bool {
        let c = mean(x: x, y: y)
        return c.0 > 220 && c.1 < 40 && c.2 > 220
    }
}

extension Harness {
    /// `file` decoded to RGB24 at its stored size, plus that size, by ffprobe and ffmpeg.
    func picture(_ file: String, filter: String? = nil) throws -> RGBPicture {
        let size = try ffprobe(["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", file])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        guard size.count == 2 else { throw HarnessError.toolFailed("no size for \(file)") }
        var args = ["-v", "error", "-i", file]
        if let filter { args += ["-vf", filter] }
        let r = try run("ffmpeg", args + ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard r.status == 0 else { throw HarnessError.toolFailed(r.stderr) }
        var picture = RGBPicture(width: size[0], height: size[1], pixels: [UInt8](r.stdoutData))
        if filter != nil {
            // A filter may change the size; the frame's bytes say which (rows of width·3).
            picture.height = picture.pixels.count / (picture.width * 3)
        }
        return picture
    }

    /// A solid magenta logo and a config putting it bottom-right at `size` of the short side.
    func logoConfig(size: Double = 0.2, extraLayers: String = "") throws -> String {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=64x64", "-frames:v", "1", path("logo.png")])
        return try write("stills.json", """
        { "watermarks": [ { "image": "logo.png", "size": \(size), "anchor": "bottom-right", "opacity": 1 }\(extraLayers) ] }
        """)
    }

    /// Inserts an EXIF APP1 segment with IFD0 Orientation = `orientation` right after the SOI.
    func addExifOrientation(_ orientation: UInt8, toJPEG file: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: file))
        let tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0,
                             0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0,
                             0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        data.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        try data.write(to: URL(fileURLWithPath: file))
    }

    /// Inserts an APP2 ICC_PROFILE segment (one chunk) right after the SOI.
    func addColourProfile(_ profile: [UInt8], toJPEG file: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: file))
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let length = payload.count + 2
        data.insert(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        try data.write(to: URL(fileURLWithPath: file))
    }

    func files(in folder: String? = nil) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder ?? directory.path).sorted()
    }
}

@Suite("stills: stamp, thumbnail, preview, end to end")
struct StillsTests {
    // MARK: thumbnail

    @Test("thumbnail at t equals the frame at t of a lossless transcode, pixel for pixel")
    func thumbnailMatchesTranscode() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // B-frames and a keyframe every second: thumbnails seek into the middle of GOPs.
        let input = try h.makeClip("in.mp4", seconds: 4, audio: false, extra: ["-bf", "3", "-g", "30"])
        let config = try h.logoConfig(size: 0.25, extraLayers: """
        , { "text": "{email}", "size": 0.07, "y": 40, "opacity": 0.8, "color": "#FFFF00",
            "animation": { "type": "pingPong", "duration": 1500 } }
        """)
        let transcoded = try h.videowm("transcode", input, h.path("lossless.mkv"), "-c", config, "--var", "email=ada@example.com",
                                       "--codec", "h264", "--crf", "0", "-q")
        #expect(transcoded.status == 0, "\(transcoded.stderr)")
        let profile = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=profile", "-of", "csv=p=0", h.path("lossless.mkv")])
        #expect(profile.contains("High 4:4:4 Predictive"), "--crf 0 should make x264 lossless: \(profile)")

        // The pipeline's own YUV→RGB conversion (bicubic, accurate rounding, full chroma interpolation).
        let sameConversion = "scale=flags=bicubic+accurate_rnd+full_chroma_int"
        var textPositions: Set<[UInt8]> = []
        for seconds in [0, 0.5, 1.2345, 2.0, 2.99, 3.99] {
            let frameIndex = min(119, Int((seconds * 30).rounded(.down)))
            let result = try h.videowm("thumbnail", input, h.path("t.png"), "--at", String(seconds), "-c", config,
                                       "--var", "email=ada@example.com", "-y", "-q")
            #expect(result.status == 0, "\(result.stderr)")
            let thumbnail = try h.picture(h.path("t.png"))
            let frame = try h.picture(h.path("lossless.mkv"), filter: "select=eq(n\\,\(frameIndex)),\(sameConversion)")
            #expect(thumbnail.width == 320 && thumbnail.height == 240)
            #expect(frame.pixels.count == thumbnail.pixels.count)
            let differing = zip(thumbnail.pixels, frame.pixels).filter { $0 != $1 }.count
            #expect(differing == 0, "at \(seconds) s (frame \(frameIndex)): \(differing) bytes differ")
            // Logo: 60 px at a 7 px inset from the bottom-right corner.
            #expect(thumbnail.isMagenta(x: 258..<308, y: 178..<228), "logo missing at \(seconds) s")
            textPositions.insert(Array(thumbnail.pixels[(96 * 320 * 3)..<(110 * 320 * 3)]))
        }
        #expect(textPositions.count > 3, "the moving text should be in different places at different times")

        // Outside the marks the lossless output is the input, so the comparison above is the mark's.
        let original = try h.picture(input, filter: "select=eq(n\\,37),\(sameConversion)")
        let marked = try h.picture(h.path("lossless.mkv"), filter: "select=eq(n\\,37),\(sameConversion)")
        #expect(meanDifference(original.pixels, marked.pixels, width: 320, x: 0..<320, y: 0..<60) == 0)
    }

    @Test("a rotated phone video's thumbnail is upright with the mark bottom-right as seen")
    func thumbnailOfRotatedVideo() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let stored = try h.makeClip("stored.mp4", seconds: 1, audio: false)
        try setDisplayMatrixRotatedClockwise(mp4: stored, to: h.path("phone.mp4"))
        let config = try h.logoConfig(size: 0.25)
        let result = try h.videowm("thumbnail", h.path("phone.mp4"), h.path("t.png"), "--at", "0.5", "-c", config)
        #expect(result.status == 0, "\(result.stderr)")
        let thumbnail = try h.picture(h.path("t.png"))
        #expect(thumbnail.width == 240 && thumbnail.height == 320)
        #expect(thumbnail.isMagenta(x: 180..<228, y: 258..<306), "logo not at the upright bottom-right")
        #expect(!thumbnail.isMagenta(x: 12..<60, y: 258..<306) && !thumbnail.isMagenta(x: 180..<228, y: 12..<60))
        // The picture itself is the one ffmpeg shows (it applies the rotation when decoding).
        let upright = try h.picture(h.path("phone.mp4"), filter: "select=eq(n\\,15)")
        #expect(upright.width * upright.height == 240 * 320)
        #expect(meanDifference(upright.pixels, thumbnail.pixels, width: 240, x: 0..<240, y: 0..<200) < 3)
    }

    @Test("thumbnail past the end is a usage error; bad videos are named with their exit code")
    func thumbnailErrors() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1, audio: false)
        let config = try h.logoConfig()
        let garbage = h.path("noise.mp4")
        try Data((0..<20000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }).write(to: URL(fileURLWithPath: garbage))
        let cases: [([String], Int32, String)] = [
            (["thumbnail", input, h.path("a.png"), "--at", "30", "-c", config], 64, "lasts only"),
            (["thumbnail", h.path("nope.mp4"), h.path("b.png"), "--at", "0", "-c", config], 66, "nope.mp4"),
            (["thumbnail", garbage, h.path("c.png"), "--at", "0", "-c", config], 65, "noise.mp4"),
            (["thumbnail", input, h.path("d.gif"), "--at", "0", "-c", config], 64, "d.gif"),
            (["thumbnail", input, h.path("e.png"), "-c", config], 64, "--at"),
        ]
        for (args, status, mention) in cases {
            let r = try h.videowm(arguments: args)
            #expect(r.status == status, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(mention), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        let end = try h.videowm("thumbnail", input, h.path("end.png"), "--at", "0.99", "-c", config)
        #expect(end.status == 0, "\(end.stderr)")
        #expect(try h.files().filter { $0.hasSuffix(".png") && $0 != "logo.png" && $0 != "end.png" || $0.contains("partial") }.isEmpty)
    }

    // MARK: stamp

    @Test("JPEGs in each of the 8 EXIF orientations come out upright with the mark bottom-right as seen",
          arguments: 1...8)
    func exifOrientation(orientation: Int) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.logoConfig()
        // The upright scene: 200×120 grey with a red block near the top-left corner. The stored
        // picture is that scene put through the inverse of the orientation's transform.
        let storing = ["", "hflip", "hflip,vflip", "vflip", "transpose=cclock_flip", "transpose=cclock",
                       "transpose=clock_flip", "transpose=clock"][orientation - 1]
        let scene = "drawbox=x=10:y=10:w=60:h=30:color=red:t=fill" + (storing.isEmpty ? "" : "," + storing)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=200x120", "-vf", scene, "-frames:v", "1", "-q:v", "2", h.path("photo.jpg")])
        try h.addExifOrientation(UInt8(orientation), toJPEG: h.path("photo.jpg"))
        let tags = try h.ffprobe(["-show_entries", "frame_tags=Orientation", "-of", "csv=p=0", h.path("photo.jpg")])
        // ffprobe prints the short right-aligned, then a separator: "    6,".
        #expect(Int(tags.filter(\.isNumber)) == orientation, "test input: \(tags)")

        for output in ["upright.png", "upright.jpg"] {
            let r = try h.videowm("stamp", h.path("photo.jpg"), "-o", h.path(output), "-c", config)
            #expect(r.status == 0, "\(r.stderr)")
            let picture = try h.picture(h.path(output))
            #expect(picture.width == 200 && picture.height == 120, "orientation \(orientation): \(picture.width)×\(picture.height)")
            let red = picture.mean(x: 20..<60, y: 15..<35)
            #expect(red.0 > 180 && red.1 < 60 && red.2 < 60, "orientation \(orientation): the red block is not top-left: \(red)")
            // Logo: 24 px at a 3.6 px inset from the bottom-right corner.
            #expect(picture.isMagenta(x: 176..<192, y: 96..<112), "orientation \(orientation): logo not bottom-right")
            for corner in [(4..<20, 96..<112), (176..<192, 4..<20), (4..<20, 4..<20)] {
                #expect(!picture.isMagenta(x: corner.0, y: corner.1), "orientation \(orientation): logo in another corner")
            }
            // Nothing left that would make a viewer turn it again.
            let left = try h.ffprobe(["-show_entries", "frame_tags=Orientation", "-of", "csv=p=0", h.path(output)])
            let orientationLeft = left.contains { $0.isNumber }
            #expect(!orientationLeft, "\(output) still carries an orientation: \(left)")
        }
    }

    @Test("PNG, JPEG and WebP in and out; --quality; the colour profile is kept where the format allows")
    func formats() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.logoConfig()
        for ext in ["png", "jpg", "webp"] {
            try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=300x200", "-frames:v", "1", h.path("in.\(ext)")])
        }
        for input in ["in.png", "in.jpg", "in.webp"] {
            for (ext, codec) in [("png", "png"), ("jpg", "mjpeg"), ("webp", "webp")] {
                let output = "from-\((input as NSString).pathExtension).\(ext)"
                let r = try h.videowm("stamp", h.path(input), "-o", h.path(output), "-c", config)
                #expect(r.status == 0, "\(input) → \(output): \(r.stderr)")
                let found = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0", h.path(output)])
                #expect(found.trimmingCharacters(in: .whitespacesAndNewlines) == codec, "\(output): \(found)")
                let picture = try h.picture(h.path(output))
                #expect(picture.width == 300 && picture.height == 200)
                // Logo: 40 px at a 6 px inset.
                #expect(picture.isMagenta(x: 258..<290, y: 158..<190), "\(output): no logo")
            }
        }

        // Levels survive every format (WebP's YUV is limited range, JPEG's full range).
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=0x20A0E0:size=64x64", "-frames:v", "1", h.path("flat.png")])
        for ext in ["png", "jpg", "webp"] {
            let r = try h.videowm("stamp", h.path("flat.png"), "-o", h.path("flat-out.\(ext)"), "-c", config, "-q")
            #expect(r.status == 0, "\(r.stderr)")
            let c = try h.picture(h.path("flat-out.\(ext)")).mean(x: 0..<30, y: 0..<30)
            // A range mix-up would move 32 and 224 by 13 and 18 levels; lossy coding moves them by a few.
            #expect(abs(c.0 - 32) < 5 && abs(c.1 - 160) < 5 && abs(c.2 - 224) < 5, "\(ext): \(c)")
        }

        for quality in ["30", "95"] {
            let r = try h.videowm("stamp", h.path("in.png"), "-o", h.path("q\(quality).jpg"), "-c", config, "--quality", quality)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let low = try FileManager.default.attributesOfItem(atPath: h.path("q30.jpg"))[.size] as? Int ?? 0
        let high = try FileManager.default.attributesOfItem(atPath: h.path("q95.jpg"))[.size] as? Int ?? 0
        #expect(low > 0 && high > 2 * low, "quality 30: \(low) bytes, 95: \(high) bytes")
        #expect(try h.videowm("stamp", h.path("in.png"), "-o", h.path("q0.jpg"), "-c", config, "--quality", "0").status == 64)

        let profile = (0..<600).map { UInt8($0 % 253) }
        try h.addColourProfile(profile, toJPEG: h.path("in.jpg"))
        for (output, kept) in [("icc.jpg", true), ("icc.png", true), ("icc.webp", true)] {
            let r = try h.videowm("stamp", h.path("in.jpg"), "-o", h.path(output), "-c", config)
            #expect(r.status == 0, "\(r.stderr)")
            let side = try h.ffprobe(["-show_frames", "-show_entries", "frame_side_data", h.path(output)])
            #expect(side.contains("ICC profile") == kept, "\(output): \(side)")
        }
    }

    @Test("bad images are named with the contract's exit code, nothing is written, and -d carries on past them")
    func badImages() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.logoConfig()
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1", h.path("good.jpg")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1", h.path("good.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1", h.path("good.webp")])
        try Data().write(to: URL(fileURLWithPath: h.path("empty.jpg")))
        for name in ["good.jpg", "good.png", "good.webp"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: h.path(name)))
            try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: h.path("cut-" + name)))
        }
        // Deterministic noise (a 64-bit LCG's high bytes).
        var state: UInt64 = 42
        func noise(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in state = state &* 6364136223846793005 &+ 1442695040888963407; return UInt8(state >> 56) }
        }
        try Data(noise(50_000)).write(to: URL(fileURLWithPath: h.path("noise.jpg")))
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + noise(3000))
            .write(to: URL(fileURLWithPath: h.path("noise-after-header.jpg")))
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)

        let cases: [(String, Int32)] = [("missing.jpg", 66), ("empty.jpg", 65), ("cut-good.jpg", 65), ("cut-good.png", 65),
                                        ("cut-good.webp", 65), ("noise.jpg", 65), ("noise-after-header.jpg", 65)]
        for (name, status) in cases {
            let r = try h.videowm("stamp", h.path(name), "-o", h.path("out/one.png"), "-c", config)
            #expect(r.status == status, "\(name): \(r.stderr)")
            #expect(r.stderr.contains(name), "\(name): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(name): \(r.stderr)")
        }
        #expect(try h.files(in: h.path("out")).isEmpty, "nothing may be written for a bad input")

        // Many inputs: the good ones are stamped, each bad one gets its line, the exit code is the first failure's.
        let many = try h.videowm(arguments: ["stamp", h.path("good.jpg"), h.path("empty.jpg"), h.path("missing.jpg"), h.path("good.png"),
                                             h.path("noise.jpg"), h.path("good.webp"), "-d", h.path("out"), "-c", config, "-q"])
        #expect(many.status == 65, "\(many.stderr)")
        let lines = many.stderr.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].contains("empty.jpg") && lines[1].contains("missing.jpg") && lines[2].contains("noise.jpg"),
                "\(many.stderr)")
        #expect(try h.files(in: h.path("out")) == ["good.jpg", "good.png", "good.webp"])

        // An existing output is kept without -y; the same name twice in one run is refused even with -y.
        try Data("precious".utf8).write(to: URL(fileURLWithPath: h.path("out/good.jpg")))
        let again = try h.videowm("stamp", h.path("good.jpg"), "-d", h.path("out"), "-c", config)
        #expect(again.status == 73 && again.stderr.contains("good.jpg"), "\(again.stderr)")
        #expect(try String(contentsOfFile: h.path("out/good.jpg"), encoding: .utf8) == "precious")
        try FileManager.default.createDirectory(atPath: h.path("other"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: h.path("good.png"), toPath: h.path("other/good.png"))
        let twice = try h.videowm("stamp", h.path("good.png"), h.path("other/good.png"), "-d", h.path("out"), "-c", config, "-y")
        #expect(twice.status == 73 && twice.stderr.contains("other/good.png"), "\(twice.stderr)")
        let missingFolder = try h.videowm("stamp", h.path("good.png"), "-d", h.path("nowhere"), "-c", config)
        #expect(missingFolder.status == 73 && missingFolder.stderr.contains("nowhere"), "\(missingFolder.stderr)")
        #expect(try h.files(in: h.path("out")).allSatisfy { !$0.contains("partial") })
    }

    /// Peak memory of a running process as the kernel counts it (VmHWM, in kB).
    static func peakMemoryKilobytes(pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    // The limit only catches a hang. With the whole suite running in parallel on a loaded 2-core
    // machine the stamp alone ran over 6 minutes and the test about 20 (3 minutes failed it).
    @Test("stamping 100 twelve-megapixel JPEGs keeps peak memory bounded by one image", .timeLimit(.minutes(20)))
    func memoryStaysBounded() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.logoConfig()
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=4000x3000", "-frames:v", "1", "-q:v", "4", h.path("photo.jpg")])
        let inputs = try (0..<100).map { index in
            let name = h.path(String(format: "photo-%03d.jpg", index))
            try FileManager.default.copyItem(atPath: h.path("photo.jpg"), toPath: name)
            return name
        }
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)

        let started = Date()
        let process = try ChildProcess(Harness.videowmPath, ["stamp"] + inputs + ["-d", h.path("out"), "-c", config, "-q"],
                                       stdout: .null, stderr: .null)
        // The high-water mark once ten files are done, and the last one seen before the end:
        // with memory bounded by one image the two are the same.
        var afterTen: Int?
        var atEnd: Int?
        while process.isRunning {
            if let peak = Self.peakMemoryKilobytes(pid: process.processIdentifier) {
                atEnd = peak
                if afterTen == nil, (try? h.files(in: h.path("out")).count(where: { !$0.hasPrefix(".") })) ?? 0 >= 10 {
                    afterTen = peak
                }
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        #expect(process.terminationStatus == 0)
        #expect(try h.files(in: h.path("out")).count == 100)
        let ten = try #require(afterTen), hundred = try #require(atEnd)
        print("stamp of 100 × 12 MP JPEGs: \(String(format: "%.1f", seconds)) s; peak RSS after 10: \(ten / 1024) MB, after 100: \(hundred / 1024) MB")
        #expect(hundred < 400 * 1024, "peak \(hundred / 1024) MB")
        #expect(hundred - ten < 16 * 1024, "grew from \(ten / 1024) MB to \(hundred / 1024) MB between 10 and 100 images")
    }

    // MARK: preview

    @Test("preview writes a sheet of N marked, labelled tiles in a grid")
    func contactSheet() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 2, audio: false)
        let config = try h.logoConfig(size: 0.25)
        let result = try h.videowm("preview", input, "-c", config, "-o", h.path("sheet.png"), "--frames", "6")
        #expect(result.status == 0, "\(result.stderr)")
        // 320×240 tiles (never upscaled), 3 columns × 2 rows, 8 px gutters, 28 px label strips.
        let sheet = try h.picture(h.path("sheet.png"))
        #expect(sheet.width == 8 + 3 * (320 + 8) && sheet.height == 8 + 2 * (240 + 28 + 8), "\(sheet.width)×\(sheet.height)")
        var tiles = 0
        for row in 0..<2 {
            for column in 0..<3 {
                let x = 8 + column * 328, y = 8 + row * 276
                // Each tile is a marked frame: the 60 px logo at its bottom-right, 7 px in.
                #expect(sheet.isMagenta(x: (x + 258)..<(x + 308), y: (y + 178)..<(y + 228)), "tile \(tiles) has no logo")
                // Its label: light text on the dark strip below.
                var lightPixels = 0
                for yy in (y + 240)..<(y + 268) {
                    for xx in x..<(x + 120) where sheet.pixels[(yy * sheet.width + xx) * 3] > 150 { lightPixels += 1 }
                }
                #expect(lightPixels > 50, "tile \(tiles) has no label")
                tiles += 1
            }
        }
        #expect(tiles == 6)
        let gutter = sheet.mean(x: 0..<8, y: 0..<sheet.height)
        #expect(gutter.0 < 40 && gutter.1 < 40 && gutter.2 < 40)

        let defaults = try h.videowm("preview", input, "-c", config, "-o", h.path("twelve.png"))
        #expect(defaults.status == 0, "\(defaults.stderr)")
        let twelve = try h.picture(h.path("twelve.png"))
        #expect(twelve.width == 8 + 4 * 328 && twelve.height == 8 + 3 * 276, "12 frames: \(twelve.width)×\(twelve.height)")

        let again = try h.videowm("preview", input, "-c", config, "-o", h.path("sheet.png"))
        #expect(again.status == 73 && again.stderr.contains("sheet.png"), "\(again.stderr)")
        for (args, status, mention) in [(["preview", h.path("gone.mp4"), "-c", config, "-o", h.path("x.png")], Int32(66), "gone.mp4"),
                                        (["preview", config, "-c", config, "-o", h.path("y.png")], 65, "stills.json"),
                                        (["preview", input, "-c", config, "-o", h.path("z.png"), "--frames", "0"], 64, "--frames"),
                                        (["preview", input, "-c", config], 64, "-o")] {
            let r = try h.videowm(arguments: args)
            #expect(r.status == status && r.stderr.contains(mention), "\(args): \(r.stderr)")
        }
        #expect(try h.files().filter { ["x.png", "y.png", "z.png"].contains($0) || $0.contains("partial") }.isEmpty)
    }
}
