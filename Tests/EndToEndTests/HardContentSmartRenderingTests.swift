import Foundation
import Testing

/// Smart rendering of content no re-encode matches short of lossless (issue 44): x264 files of
/// cellular automata and hard scene cuts, made with x264's defaults (High profile). The span-quality
/// search once asked x264 for CRF 0, its lossless mode, which High refuses: `avcodec_open2` failed and
/// the default `--render auto` exited 64 blaming the user. Now every span stays above the profile's
/// lossless CRF and within twice the bytes it replaces, the input's profile and level are kept, and
/// without `-v` stderr carries only videowm's own lines.
@Suite("smart rendering of hard content, end to end")
struct HardContentSmartRenderingTests {
    /// A mark shown 3 s of every 12 s, moving.
    static let marks = """
    { "watermarks": [ { "text": "ada@example.com", "size": 0.05, "opacity": 0.6, "y": 50, "interval": 3000, "skip": 9000,
                        "animation": { "type": "pingPong", "duration": 4000 } } ] }
    """

    /// The three inputs of issue 44, shortened: 12 s of ffmpeg's `life` and `cellauto` sources with
    /// closed 2-s GOPs, and 20 s of five synthetic scenes (a test pattern, a fractal, life, cellular
    /// automata, colour bars) with open GOPs and AAC audio; all 640×360, x264 at its defaults (High).
    static let inputNames = ["life", "cellauto", "scenes"]

    static func makeInput(_ name: String, _ h: Harness) throws -> String {
        let x264 = ["-c:v", "libx264", "-pix_fmt", "yuv420p"], output = h.path("\(name).mp4")
        switch name {
        case "life":
            try h.ffmpeg(["-f", "lavfi", "-i", "life=s=640x360:mold=10:r=30:ratio=0.1:death_color=#C83232:life_color=#00ff00",
                          "-t", "12"] + x264 + ["-x264-params", "keyint=60", output])
        case "cellauto":
            try h.ffmpeg(["-f", "lavfi", "-i", "cellauto=s=640x360:rule=110:r=30", "-t", "12"] + x264 + ["-x264-params", "keyint=60", output])
        default:
            let scenes = ["testsrc2=s=640x360:r=30", "mandelbrot=s=640x360:r=30", "life=s=640x360:r=30:mold=5",
                          "cellauto=s=640x360:r=30", "smptehdbars=s=640x360:r=30"]
            var arguments: [String] = []
            for scene in scenes { arguments += ["-f", "lavfi", "-t", "4", "-i", scene] }
            arguments += ["-f", "lavfi", "-i", "sine=f=440:d=20"]
            let chain = scenes.indices.map { "[\($0)]format=yuv420p,setpts=PTS-STARTPTS[s\($0)]" }.joined(separator: ";")
            let labels = scenes.indices.map { "[s\($0)]" }.joined()
            arguments += ["-filter_complex", "\(chain);\(labels)concat=n=\(scenes.count):v=1:a=0[v]", "-map", "[v]", "-map", "\(scenes.count):a"]
            arguments += x264 + ["-x264-params", "open-gop=1:keyint=60", "-c:a", "aac", "-t", "20", output]
            try h.ffmpeg(arguments)
        }
        return output
    }

    @Test("auto and smart transcode hard x264 content: exit 0, every frame at its time, profile and level kept, spans within twice their bytes")
    func hardContentTranscodes() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("marks.json", Self.marks)
        for name in Self.inputNames {
            let input = (name: name, path: try Self.makeInput(name, h))
            let stream = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=profile,level", "-of", "csv=p=0", input.path])
            for mode in ["auto", "smart"] {
                let output = h.path("\(input.name)-\(mode).mp4")
                let result = try h.videowm("transcode", input.path, output, "-c", config, "--render", mode, "-v")
                #expect(result.status == 0, "\(input.name), --render \(mode): \(result.stderr)")
                guard result.status == 0 else { continue }
                #expect(result.stderr.contains("re-encoded"), "\(input.name), \(mode): smart rendering was not used: \(result.stderr)")
                #expect(try h.videoFrameTimes(output) == h.videoFrameTimes(input.path), "\(input.name), \(mode): frames or times differ")
                #expect(try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=profile,level", "-of", "csv=p=0", output]) == stream,
                        "\(input.name), \(mode): profile or level changed")
                // Each span's CRF, said with -v: never x264's lossless CRF, which High refuses.
                let crfs = Self.spanCRFs(result.stderr)
                #expect(!crfs.isEmpty && crfs.allSatisfy { $0 >= 1 }, "\(input.name), \(mode): \(result.stderr)")
                let spans = try SmartRenderingQualityTests.spans(h, input: input.path, output: output, rect: (0, 0, 2, 2))
                #expect(!spans.isEmpty, "\(input.name), \(mode): no span re-encoded")
                for span in spans {
                    #expect(span.bytesWritten <= 2 * span.bytesReplaced, "\(input.name), \(mode): \(span)")
                }
            }
        }
    }

    @Test("without -v, stderr carries only videowm's own lines on the open-GOP input (no 'mmco', no x264 log)")
    func quietCLibraries() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("marks.json", Self.marks)
        let scenes = try Self.makeInput("scenes", h)
        for mode in ["auto", "smart"] {
            let result = try h.videowm("transcode", scenes, h.path("out-\(mode).mp4"), "-c", config, "--render", mode)
            #expect(result.status == 0, "\(mode): \(result.stderr)")
            let foreign = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("videowm: ") }
            #expect(foreign.isEmpty, "\(mode): lines not videowm's own: \(foreign)")
        }
        // With -v, FFmpeg's own warnings are what the user asked for.
        let verbose = try h.videowm("transcode", scenes, h.path("out-v.mp4"), "-c", config, "-v")
        #expect(verbose.status == 0 && verbose.stderr.contains("span 1"), "\(verbose.stderr)")
    }

    /// The CRFs `-v` reports, one per span ("span 2 (…): CRF 14.25 (trials …").
    static func spanCRFs(_ stderr: String) -> [Double] {
        stderr.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "): CRF ") else { return nil }
            return Double(line[range.upperBound...].prefix { !$0.isWhitespace && $0 != "(" })
        }
    }
}
