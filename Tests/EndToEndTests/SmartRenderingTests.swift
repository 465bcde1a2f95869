import Foundation
import Testing

/// `--render auto|full|smart` (issue 13, docs/design/smart-rendering.md) judged from outside: the output decodes
/// cleanly under `ffmpeg -xerror`, keeps every frame and presentation time, frames outside the re-encoded
/// GOPs decode bit-identical to the input's (framemd5), and every frame the config marks differs.
/// Inputs are 20 s 320×240 clips generated here, with the GOP structures the splice must handle.
@Suite("smart rendering, end to end")
struct SmartRenderingTests {
    /// A yellow e-mail across the middle, opaque: no frame it is drawn on can decode as the input's.
    func config(_ h: Harness, _ timing: String) throws -> String {
        try h.write("config.json", """
        { "watermarks": [ { "text": "student@example.com", "size": 0.1, "anchor": "center", "opacity": 1,
                            "color": "#FFFF00", \(timing) } ] }
        """)
    }

    /// 20 s of moving test pattern, 2 s closed GOPs with B-frames (x264 otherwise at its defaults), AAC audio.
    func twoSecondGOPClip(_ h: Harness, _ name: String = "in.mp4") throws -> String {
        try h.makeClip(name, seconds: 20, extra: ["-preset", "veryfast", "-x264-params", "keyint=60:min-keyint=60:scenecut=0"])
    }

    /// Four different 5-s scenes encoded with x264's defaults: scene-cut IDRs at 0, 5, 10 and about 15 s.
    func sceneCutClip(_ h: Harness, _ name: String, x264Params: String? = nil) throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=5", "-f", "lavfi", "-i", "mandelbrot=size=320x240:rate=30",
                      "-f", "lavfi", "-i", "smptehdbars=size=320x240:rate=30:duration=5", "-f", "lavfi", "-i", "life=size=320x240:rate=30:mold=10:ratio=0.1",
                      "-filter_complex", "[1]trim=duration=5,format=yuv420p[m];[3]trim=duration=5,format=yuv420p[l];[0]format=yuv420p[a];"
                          + "[2]format=yuv420p[c];[a][m][c][l]concat=n=4:v=1:a=0,setpts=N/30/TB[v]",
                      "-map", "[v]", "-c:v", "libx264", "-preset", "veryfast"] + (x264Params.map { ["-x264-params", $0] } ?? []) + [h.path(name)])
        return h.path(name)
    }

    struct DecodedFrame {
        /// Seconds after the first frame shown.
        var time: Double
        var md5: String
    }

    /// Every decoded video frame, in presentation order, with its checksum.
    func decodedFrames(_ h: Harness, _ file: String) throws -> [DecodedFrame] {
        let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        guard r.status == 0 else { throw HarnessError.toolFailed(r.stderr) }
        let lines = r.stdout.split(separator: "\n")
        guard let timeBase = lines.first(where: { $0.hasPrefix("#tb 0:") })?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces),
              let slash = timeBase.firstIndex(of: "/"),
              let numerator = Double(timeBase[..<slash]), let denominator = Double(timeBase[timeBase.index(after: slash)...]) else {
            throw HarnessError.toolFailed("no time base in framemd5 of \(file)")
        }
        let rows = lines.filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let first = rows.compactMap { Int64($0[2]) }.min() ?? 0
        return rows.map { DecodedFrame(time: Double(Int64($0[2])! - first) * numerator / denominator, md5: $0[5]) }
    }

    /// Judges a smart-rendered `output` of `input`: clean decode, same frames and times, frames outside
    /// `reencoded` (seconds after the first frame, half-open) identical, frames inside `visible` different.
    func expectSplice(_ h: Harness, input: String, output: String, visible: [Range<Double>], reencoded: [Range<Double>],
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let decode = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-map", "0", "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg -xerror: \(decode.stderr)", sourceLocation: sourceLocation)
        #expect(try h.videoFrameTimes(output) == h.videoFrameTimes(input), "presentation times differ", sourceLocation: sourceLocation)
        let before = try decodedFrames(h, input), after = try decodedFrames(h, output)
        #expect(after.count == before.count, sourceLocation: sourceLocation)
        guard after.count == before.count else { return }
        // A frame's time is compared with the spans at the middle of the frame, clear of rounding at the edges.
        let step = before.count > 1 ? before[1].time - before[0].time : 0
        var copied = 0, marked = 0
        for (a, b) in zip(before, after) {
            let middle = a.time + step / 2
            if !reencoded.contains(where: { $0.contains(middle) }) {
                copied += 1
                #expect(a.md5 == b.md5, "frame at \(a.time) s lies in a copied GOP but differs", sourceLocation: sourceLocation)
            }
            if visible.contains(where: { $0.contains(middle) }) {
                marked += 1
                #expect(a.md5 != b.md5, "frame at \(a.time) s should show the mark", sourceLocation: sourceLocation)
            }
        }
        // The spans given are not vacuous: both kinds of frame were checked.
        #expect(copied > 0 && marked > 0, sourceLocation: sourceLocation)
        let dts = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "packet=dts", "-of", "csv=p=0", output])
            .split(separator: "\n").compactMap { Int64($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 }, "decode timestamps must increase", sourceLocation: sourceLocation)
    }

    @Test("H.264 in MP4: only the GOPs where the mark shows are re-encoded, the rest is the input's own bits; audio copied")
    func h264MP4() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try twoSecondGOPClip(h)
        // Shown 1–4 s and 11–14 s: spans that start mid-GOP and end on a GOP boundary.
        let config = try config(h, #""start": 1, "interval": 3000, "skip": 7000"#)
        let output = h.path("out.mp4")
        let result = try h.videowm("transcode", input, output, "-c", config, "--render", "smart", "--progress", "json")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("out.mp4: re-encoded 8.0 s of 20.0 s (40%)"), "stderr: \(result.stderr)")
        #expect(result.stdout.contains("\"reencoded\":0.4"), "progress: \(result.stdout.suffix(300))")
        try expectSplice(h, input: input, output: output, visible: [1..<4, 11..<14], reencoded: [0..<4, 10..<14])
        #expect(try h.packetChecksums(output, stream: "a:0") == h.packetChecksums(input, stream: "a:0"))

        // auto chooses smart here; the summary says how much was re-encoded, no notice repeats it.
        let auto = try h.videowm("transcode", input, h.path("auto.mp4"), "-c", config, "--progress", "json")
        #expect(auto.status == 0, "stderr: \(auto.stderr)")
        #expect(auto.stderr == "videowm: \(h.path("auto.mp4")): re-encoded 8.0 s of 20.0 s (40%)\n", "\(auto.stderr)")
        #expect(auto.stdout.contains(#""render":"smart","renderReason":"marks are visible in GOPs covering 40% of the video; the rest is copied""#),
                "progress: \(auto.stdout.suffix(400))")
        try expectSplice(h, input: input, output: h.path("auto.mp4"), visible: [1..<4, 11..<14], reencoded: [0..<4, 10..<14])
    }

    @Test("--render full re-encodes every frame, as before smart rendering, and prints no render notice")
    func fullRendersEverything() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 6, audio: false, extra: ["-x264-params", "keyint=60"])
        let config = try config(h, #""start": 0, "end": 1"#)
        let output = h.path("full.mp4")
        let result = try h.videowm("transcode", input, output, "-c", config, "--render", "full")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("render"), "\(result.stderr)")
        let before = try decodedFrames(h, input), after = try decodedFrames(h, output)
        #expect(after.count == before.count)
        // Frames 2–6 s carry no mark, yet none is the input's: they were encoded again.
        #expect(zip(before, after).filter { $0.0.time >= 2 && $0.0.md5 == $0.1.md5 }.isEmpty)
    }

    @Test("a mark visible in every GOP: auto renders in full silently (the reason in -v and JSON), smart exits 64 naming the reason")
    func markInEveryGOP() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 8, audio: false, extra: ["-x264-params", "keyint=60:min-keyint=60:scenecut=0"])
        let config = try config(h, #""interval": 500, "skip": 1000"#)
        let auto = try h.videowm("transcode", input, h.path("auto.mp4"), "-c", config)
        #expect(auto.status == 0 && auto.stderr.isEmpty, "stderr: \(auto.stderr)")
        #expect(try h.videoFrameCount(h.path("auto.mp4")) == 240)
        let verbose = try h.videowm("transcode", input, h.path("verbose.mp4"), "-c", config, "-v", "--progress", "json")
        #expect(verbose.stderr.contains("render: full (a mark is visible in every GOP)"), "\(verbose.stderr)")
        #expect(verbose.stdout.contains(#""render":"full","renderReason":"a mark is visible in every GOP""#), "\(verbose.stdout.suffix(400))")
        let smart = try h.videowm("transcode", input, h.path("smart.mp4"), "-c", config, "--render", "smart")
        #expect(smart.status == 64)
        #expect(smart.stderr.contains("in.mp4: --render smart is impossible: a mark is visible in every GOP"), "\(smart.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("smart.mp4")))
    }

    @Test("auto's notice: only a fallback the user could act on, said once the output has frames; a failed job says only its error")
    func autoNotice() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 4, audio: false, extra: ["-c:v", "mpeg4"])
        let hiding = try config(h, #""start": 0, "end": 1"#)
        let unsupported = try h.videowm("transcode", input, h.path("out.mp4"), "-c", hiding)
        #expect(unsupported.status == 0)
        #expect(unsupported.stderr == "videowm: render: full (the input's video is mpeg4; smart rendering splices H.264, HEVC and VP9)\n",
                "\(unsupported.stderr)")
        // The same input with a mark that never hides: smart rendering could not have helped.
        let always = try h.write("always.json", #"{ "watermarks": [ { "text": "student@example.com", "opacity": 1 } ] }"#)
        let quiet = try h.videowm("transcode", input, h.path("always.mp4"), "-c", always)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        // A job that fails before its first frame prints its error line alone.
        let failed = try h.videowm("transcode", input, h.path("missing/out.mp4"), "-c", hiding)
        #expect(failed.status == 73)
        #expect(failed.stderr.split(separator: "\n").count == 1 && !failed.stderr.contains("render:"), "\(failed.stderr)")
        // Marks in GOPs covering 90% of a clip: too little left to copy, and said.
        let clip = try twoSecondGOPClip(h, "gops.mp4")
        let mostly = try h.videowm("transcode", clip, h.path("mostly.mp4"), "-c", try config(h, #""start": 1, "end": 17"#), "--preset", "ultrafast")
        #expect(mostly.status == 0)
        #expect(mostly.stderr.contains("render: full (marks are visible in GOPs covering 90% of the video, and smart rendering needs a fifth of it copied)"),
                "\(mostly.stderr)")
    }

    @Test("--render smart where it is impossible exits 64 with the reason, and writes nothing", arguments: [
        (["--codec", "hevc"], "out.mp4", "--codec hevc asks for another codec than the input's h264"),
        ([], "out.webm", "a .webm file cannot hold h264 video"),
        (["--scale", "160x120"], "out.mp4", "a size option asks for another picture size than the input's"),
        (["--gop", "30"], "out.mp4", "--gop asks for what the copied GOPs, the input's own, cannot change"),
    ])
    func smartRefused(options: [String], output: String, reason: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 2, audio: false)
        let config = try config(h, #""start": 0, "end": 1"#)
        let result = try h.videowm(arguments: ["transcode", input, h.path(output), "-c", config, "--render", "smart"] + options)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--render smart is impossible: \(reason)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path(output)))
    }

    @Test("x264's defaults: scene-cut IDRs and B-frames; the span is the scene's GOP")
    func x264Defaults() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try sceneCutClip(h, "in.mp4")
        let config = try config(h, #""start": 6, "end": 7"#)
        let result = try h.videowm("transcode", input, h.path("out.mp4"), "-c", config, "--render", "smart")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        try expectSplice(h, input: input, output: h.path("out.mp4"), visible: [6..<7], reencoded: [5..<10])
    }

    @Test("H.264 open GOP (x264 open-gop=1: one IDR, recovery-point keyframes) in MP4, MKV and MPEG-TS: spans end before a keyframe that becomes an IDR",
          arguments: ["mp4", "mkv", "ts"])
    func h264OpenGOP(container: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let source = try sceneCutClip(h, "source.mp4", x264Params: "open-gop=1:keyint=60")
        let input = h.path("in.\(container)")
        // A TS that starts at time 0, as Media Source Extensions wants it (ffmpeg's muxer delays by 1.4 s).
        try h.ffmpeg(["-i", source, "-c", "copy"] + (container == "ts" ? ["-muxdelay", "0", "-muxpreload", "0"] : []) + [input])
        // Two 3-s marks, each starting mid-GOP (keyframes at 0, 2, 4, 5, 7, 9, 10, 12, 14, 15.03 … s, only the first an IDR).
        let config = try config(h, #""start": 2.5, "interval": 3000, "skip": 5000, "end": 14"#)
        let output = h.path("out.\(container)")
        let result = try h.videowm("transcode", input, output, "-c", config, "--render", "smart")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // Each span runs from its first GOP's leading pictures to the leading pictures of the keyframe after it:
        // 1.9-7 s and 10-14 s (the keyframe at 10 s has no leading pictures: a scene cut), under half of the video.
        #expect(result.stderr.contains("re-encoded 9.1 s of 20.0 s (45%)"), "stderr: \(result.stderr)")
        try expectSplice(h, input: input, output: output, visible: [2.5..<5.5, 10.5..<13.5], reencoded: [1.85..<7, 10..<14])
        let strict = try h.run("ffmpeg", ["-v", "error", "-err_detect", "explode", "-xerror", "-i", output, "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "a conformance error at a seam: \(strict.stderr)")
        let play = try h.run(ChromiumPlaybackTests.player, [output] + (container == "ts" ? ["--mse", #"video/mp2t; codecs="avc1.64000d""#] : []))
        #expect(play.status == 0 && play.stdout.contains("\"frames\": 600"), "Chromium: \(play.stdout)")
    }

    @Test("HEVC (x265's open GOPs: CRA with RASL pictures) in MKV, MP4 and MPEG-TS", arguments: ["out.mkv", "out.mp4", "out.ts"])
    func hevc(output: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let source = try twoSecondGOPClip(h, "source.mp4")
        let input = h.path("in" + (output as NSString).pathExtension.withDot)
        try h.ffmpeg(["-i", source, "-c:v", "libx265", "-preset", "veryfast", "-x265-params", "keyint=60:log-level=error", "-c:a", "copy", input])
        let config = try config(h, #""start": 6.5, "end": 7"#)
        let result = try h.videowm("transcode", input, h.path(output), "-c", config, "--render", "smart")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // The span is the GOP at 6 s, plus the CRA's leading (RASL) pictures shown just before it: they
        // reference the GOP before, so they are decoded from there and re-encoded with the span.
        try expectSplice(h, input: input, output: h.path(output), visible: [6.5..<7], reencoded: [5.8..<8])
    }

    @Test("VP9 (no parameter sets; hidden alt-ref frames packed in superframes) in WebM and MKV", arguments: ["out.webm", "out.mkv"])
    func vp9(output: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let source = try twoSecondGOPClip(h, "source.mp4")
        let input = h.path("in.webm")
        // Two passes, so libvpx places hidden alt-ref frames, each packed with a shown frame into one packet.
        for pass in ["1", "2"] {
            try h.ffmpeg(["-i", source, "-c:v", "libvpx-vp9", "-g", "60", "-b:v", "400k", "-cpu-used", "8", "-pass", pass,
                          "-passlogfile", h.path("vp9pass"), "-c:a", "libopus"] + (pass == "1" ? ["-f", "null", "-"] : [input]))
        }
        let split = try h.run("ffmpeg", ["-v", "error", "-i", input, "-map", "0:v", "-c", "copy", "-bsf:v", "vp9_superframe_split", "-f", "framecrc", "-"])
        #expect(split.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count > 600, "the input has no hidden frames")
        let config = try config(h, #""start": 6.5, "end": 7"#)
        let result = try h.videowm("transcode", input, h.path(output), "-c", config, "--render", "smart")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("re-encoded 2.0 s of 20.0 s (10%)"), "stderr: \(result.stderr)")
        try expectSplice(h, input: input, output: h.path(output), visible: [6.5..<7], reencoded: [6..<8])
    }

    @Test("H.264 in MPEG-TS (parameter sets in band)")
    func h264TransportStream() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let source = try twoSecondGOPClip(h, "source.mp4")
        try h.ffmpeg(["-i", source, "-c", "copy", h.path("in.ts")])
        let config = try config(h, #""start": 12, "end": 13.5"#)
        let result = try h.videowm("transcode", h.path("in.ts"), h.path("out.ts"), "-c", config, "--render", "smart")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        try expectSplice(h, input: h.path("in.ts"), output: h.path("out.ts"), visible: [12..<13.5], reencoded: [12..<14])
    }

    @Test("batch --render smart: each row's marked GOPs re-encoded once per row, the premium row a plain copy, shares in the report")
    func batchRows() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try twoSecondGOPClip(h)
        let config = try h.write("config.json", """
        { "watermarks": [ { "text": "{email}", "size": 0.1, "anchor": "center", "opacity": 1, "color": "#FFFF00",
                            "start": 1, "interval": 3000, "skip": 7000, "unless": { "plan": ["premium"] } } ] }
        """)
        let csv = try h.write("rows.csv", "id,email,plan\n1,a@example.com,free\n2,b@example.com,premium\n3,c@example.com,free\n")
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let report = h.path("report.jsonl")
        let result = try h.videowm("batch", input, "-c", config, "--vars", csv, "--output", h.path("out/{id}.mp4"), "-j", "3",
                                   "--render", "smart", "--report", report, "-v")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for row in [1, 3] {
            try expectSplice(h, input: input, output: h.path("out/\(row).mp4"), visible: [1..<4, 11..<14], reencoded: [0..<4, 10..<14])
        }
        #expect(try h.packetChecksums(h.path("out/2.mp4"), stream: "v") == h.packetChecksums(input, stream: "v"))
        // Rows 1 and 3 differ where marked (their e-mails) and agree where copied.
        let first = try decodedFrames(h, h.path("out/1.mp4")), third = try decodedFrames(h, h.path("out/3.mp4"))
        #expect(first[60].md5 != third[60].md5 && first[200].md5 == third[200].md5)
        let lines = (try String(contentsOfFile: report, encoding: .utf8)).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.filter { $0.contains(#""reencoded":0.400"#) }.count == 2, "\(lines)")
        #expect(lines.filter { $0.contains(#""row":2,"#) && $0.contains(#""reencoded":0.000"#) }.count == 1, "\(lines)")
        #expect(result.stderr.contains("(re-encoded 8.0 s of 20.0 s (40%))"), "stderr: \(result.stderr)")

        // A mark in every GOP makes auto render every row in full, silently.
        let every = try h.write("every.json", #"{ "watermarks": [ { "text": "{email}", "opacity": 1, "interval": 500, "skip": 1000 } ] }"#)
        try FileManager.default.createDirectory(atPath: h.path("full"), withIntermediateDirectories: true)
        let retry = try h.videowm("batch", input, "-c", every, "--vars", csv, "--output", h.path("full/{id}.mp4"), "--preset", "ultrafast")
        #expect(retry.status == 0, "stderr: \(retry.stderr)")
        #expect(!retry.stderr.contains("render:"), "stderr: \(retry.stderr)")
        let refused = try h.videowm("batch", input, "-c", every, "--vars", csv, "--output", h.path("full/{id}.mp4"), "--render", "smart", "--force")
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--render smart is impossible: a mark is visible in every GOP"), "stderr: \(refused.stderr)")
    }
}

private extension String {
    var withDot: String { "." + self }
}
