import Foundation
import Testing

@Suite("transcode, end to end")
struct TranscodeTests {
    /// A config with a solid magenta logo top-left (easy to find in the output) and an e-mail.
    func makeConfig(_ h: Harness) throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=64x64", "-frames:v", "1", h.path("logo.png")])
        return try h.write("config.json", """
        { "watermarks": [
            { "image": "logo.png", "size": 0.25, "anchor": "top-left", "opacity": 1 },
            { "text": "{email}", "size": 0.06, "anchor": "bottom-right", "opacity": 0.8, "color": "#FFFF00" }
        ] }
        """)
    }

    @Test("every frame and timestamp survives, audio is copied bit for bit, the mark is where the config puts it")
    func markedTranscodeKeepsEverything() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4")
        let config = try makeConfig(h)
        let result = try h.videowm("transcode", input, h.path("out.mp4"), "-c", config, "--var", "email=ada@example.com", "--crf", "16")
        #expect(result.status == 0, "stderr: \(result.stderr)")

        #expect(try h.videoFrameCount(h.path("out.mp4")) == h.videoFrameCount(input))
        #expect(try h.videoFrameTimes(h.path("out.mp4")) == h.videoFrameTimes(input))
        #expect(try h.packetChecksums(h.path("out.mp4"), stream: "a") == h.packetChecksums(input, stream: "a"))

        let original = try h.rgbFrame(input, at: 1.0, width: 320, height: 240)
        let marked = try h.rgbFrame(h.path("out.mp4"), at: 1.0, width: 320, height: 240)
        // Logo: 0.25 × 240 = 60 px square at the 0.03 × 240 ≈ 7 px inset.
        let logo = meanColor(marked, width: 320, x: 12..<60, y: 12..<60)
        #expect(logo.0 > 235 && logo.1 < 25 && logo.2 > 235, "logo colour \(logo)")
        // Far from both marks the picture is the input's, within encoding noise.
        #expect(meanDifference(original, marked, width: 320, x: 100..<300, y: 20..<150) < 3)
    }

    @Test("an existing output is refused without -y and left untouched")
    func existingOutputIsKept() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 0.5, audio: false)
        let config = try makeConfig(h)
        let existing = try h.write("out.mp4", "precious")
        let result = try h.videowm("transcode", input, existing, "-c", config, "--var", "email=x@example.com")
        #expect(result.status == 73)
        #expect(result.stderr.contains("out.mp4"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.directory.path).filter { $0.contains("partial") }.isEmpty)

        let replaced = try h.videowm("transcode", input, existing, "-c", config, "--var", "email=x@example.com", "-y")
        #expect(replaced.status == 0, "stderr: \(replaced.stderr)")
        #expect(try h.videoFrameCount(existing) == 15)
    }

    @Test("the input named as output, by any path, is refused and untouched")
    func outputThatIsTheInput() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 0.5, audio: false)
        let config = try makeConfig(h)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        try FileManager.default.createSymbolicLink(atPath: h.path("link.mp4"), withDestinationPath: input)
        try FileManager.default.linkItem(atPath: input, toPath: h.path("hard.mp4"))
        for output in [input, h.path("./in.mp4"), h.path("link.mp4"), h.path("hard.mp4")] {
            let result = try h.videowm("transcode", input, output, "-c", config, "--var", "email=x@example.com", "-y")
            #expect(result.status == 73, "\(output): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
    }

    @Test("bad input gets one clear line and the contract's exit code, and no output")
    func badInputs() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 0.5, audio: false)
        let config = try makeConfig(h)
        let notVideo = try h.write("notes.txt", "this is not a video")
        let badJSON = try h.write("bad.json", "{ \"watermarks\": [ { \"text\": \"x\", ")
        let unknownField = try h.write("unknown.json", ##"{ "watermarks": [ { "text": "x" }, { "text": "y", "opacity": 0.5, "colour": "#fff" } ] }"##)
        let badOpacity = try h.write("opacity.json", #"{ "watermarks": [ { "text": "x", "opacity": "half" } ] }"#)
        let missingLogo = try h.write("logo.json", #"{ "watermarks": [ { "image": "nope.png" } ] }"#)
        let cases: [(args: [String], status: Int32, mentions: String)] = [
            (["transcode", h.path("missing.mp4"), h.path("o1.mp4"), "-c", config, "--var", "email=a"], 66, "missing.mp4"),
            (["transcode", notVideo, h.path("o2.mp4"), "-c", config, "--var", "email=a"], 65, "notes.txt"),
            (["transcode", input, h.path("o3.mp4"), "-c", badJSON], 64, "bad.json"),
            (["transcode", input, h.path("o4.mp4"), "-c", unknownField], 64, "watermarks[1].colour"),
            (["transcode", input, h.path("o5.mp4"), "-c", badOpacity], 64, "watermarks[0].opacity"),
            (["transcode", input, h.path("o6.mp4"), "-c", missingLogo], 66, "nope.png"),
            (["transcode", input, h.path("o7.mp4"), "-c", config], 64, "{email}"),
            (["transcode", input, h.path("no/such/dir/o8.mp4"), "-c", config, "--var", "email=a"], 73, "o8.mp4"),
            (["transcode", input, h.path("o9.mp4"), "-c", h.path("none.json")], 66, "none.json"),
            (["transcode", input, "-c", config], 64, "transcode"),
            (["frobnicate"], 64, "frobnicate"),
        ]
        for c in cases {
            let result = try h.videowm(arguments: c.args)
            #expect(result.status == c.status, "\(c.args): \(result.stderr)")
            #expect(result.stderr.contains(c.mentions), "\(c.args): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(c.args): \(result.stderr)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: h.directory.path).filter { $0.hasSuffix(".mp4") && $0 != "in.mp4" || $0.contains("partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
