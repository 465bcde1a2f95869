import Foundation
import Testing

/// Outputs play to their end in a browser: scripts/play-in-chromium (headless Chromium, installed by
/// scripts/setup) on videowm's outputs, and the harness itself shown to fail on a damaged stream, so a
/// pass means something. Smart rendering's seams (docs/design/smart-rendering.md) are judged the same way.
@Suite("Chromium playback")
struct ChromiumPlaybackTests {
    static let player = PackageRoot.path("scripts/play-in-chromium")

    /// Runs the player; exit 2 (no Chromium) is a failure too, since scripts/setup installs it.
    func play(_ h: Harness, _ file: String, mse: String? = nil) throws -> Harness.Result {
        let result = try h.run(Self.player, [file] + (mse.map { ["--mse", $0] } ?? []))
        #expect(result.status != 2, "Chromium is missing: run scripts/setup (\(result.stderr))")
        return result
    }

    @Test("a transcoded MP4 and an MPEG-TS with the AAC copied (through Media Source Extensions) play to the end")
    func transcodedOutputsPlay() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 3)
        let config = try h.write("config.json", #"{ "watermarks": [ { "text": "ada@example.com", "opacity": 0.8 } ] }"#)
        for output in ["out.mp4", "out.ts"] {
            let transcode = try h.videowm("transcode", input, h.path(output), "-c", config)
            #expect(transcode.status == 0, "stderr: \(transcode.stderr)")
            // The AAC goes into the .ts as it is (ADTS framing added by the muxer), not re-encoded.
            #expect(!transcode.stderr.contains("re-encoded"), "stderr: \(transcode.stderr)")
        }
        #expect(try h.packetChecksums(h.path("out.ts"), stream: "a:0").count == h.packetChecksums(input, stream: "a:0").count)
        let mp4 = try play(h, h.path("out.mp4"))
        #expect(mp4.status == 0, "\(mp4.stdout)")
        #expect(mp4.stdout.contains("\"frames\": 90"), "\(mp4.stdout)")
        let ts = try play(h, h.path("out.ts"), mse: #"video/mp2t; codecs="avc1.64001e,mp4a.40.2""#)
        #expect(ts.status == 0, "\(ts.stdout)")
    }

    @Test("a smart-rendered MP4 (re-encoded GOPs spliced between copied ones) plays to the end, every frame")
    func smartRenderedOutputPlays() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 10, extra: ["-x264-params", "keyint=60:min-keyint=60:scenecut=0"])
        let config = try h.write("config.json", #"{ "watermarks": [ { "text": "ada@example.com", "opacity": 1, "start": 3, "end": 5 } ] }"#)
        let transcode = try h.videowm("transcode", input, h.path("out.mp4"), "-c", config, "--render", "smart")
        #expect(transcode.status == 0, "stderr: \(transcode.stderr)")
        #expect(transcode.stderr.contains("re-encoded 4.0 s of 10.0 s"), "stderr: \(transcode.stderr)")
        let result = try play(h, h.path("out.mp4"))
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("\"frames\": 300"), "\(result.stdout)")
    }

    @Test("a stream with damaged packets is reported as a decode error, not as played")
    func damagedStreamFails() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 2, audio: false)
        try h.ffmpeg(["-i", input, "-c", "copy", "-bsf:v", "noise=amount=5", h.path("damaged.mp4")])
        let result = try play(h, h.path("damaged.mp4"))
        #expect(result.status == 1)
        #expect(result.stdout.contains("\"ended\": false"), "\(result.stdout)")
    }
}

/// The package's root, found from this file's path.
enum PackageRoot {
    static func path(_ relative: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(relative).path
    }
}
