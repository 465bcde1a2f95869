import Foundation
import Testing

/// Issue 19, MPEG-TS timestamps that jump: two recordings joined with `cat`, the second
/// starting 1000 s later (a forward jump) or at the same time as the first (an overlap).
/// Every frame is kept in order, the later stretch shifted to follow on (no frozen span),
/// audio stays in sync, and one notice says where the times jumped; through a full render,
/// smart rendering, batch, thumbnail and preview.
@Suite("reliability: MPEG-TS timestamp jumps")
struct ReliabilityTimestampTests {
    /// Seconds per segment and frame rate of the test clips.
    static let seconds = 2.0
    static let rate = 25.0

    enum Join: String, CaseIterable, CustomTestStringConvertible {
        /// The second segment starts 1000 s after the first.
        case forward
        /// The second segment starts at the same time as the first.
        case overlap
        var testDescription: String { rawValue }
    }

    /// Two TS segments (H.264 + AAC) joined byte for byte; returns the joined file and the second segment.
    func joined(_ h: Harness, _ join: Join) throws -> (file: String, second: String) {
        let first = try segment(h, "first.ts", offset: 0, frequency: 440)
        let second = try segment(h, "second.ts", offset: join == .forward ? 1000 : 0, frequency: 880)
        var data = try Data(contentsOf: URL(fileURLWithPath: first))
        data.append(try Data(contentsOf: URL(fileURLWithPath: second)))
        try data.write(to: URL(fileURLWithPath: h.path("joined.ts")))
        return (h.path("joined.ts"), second)
    }

    private func segment(_ h: Harness, _ name: String, offset: Double, frequency: Int) throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=\(Int(Self.rate)):duration=\(Self.seconds)",
                      "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=\(Self.seconds)",
                      "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k",
                      "-output_ts_offset", String(offset), "-f", "mpegts", h.path(name)])
        return h.path(name)
    }

    func config(_ h: Harness, from: Double? = nil) throws -> String {
        let timing = from.map { #", "start": \#($0), "end": \#($0 + 0.5)"# } ?? ""
        return try h.write("c.json", #"{ "watermarks": [ { "text": "ts", "size": 0.1, "anchor": "top-left"\#(timing) } ] }"#)
    }

    /// The output holds every frame and audio packet of the input, in strictly increasing
    /// times with no gap over four frames, and the second segment's audio starts against its
    /// video as it does in that segment alone (in sync within a millisecond).
    func expectContinuous(_ h: Harness, output: String, second: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let frames = Int(2 * Self.seconds * Self.rate)
        let times = try h.videoFrameTimes(output).compactMap(Double.init)
        #expect(times.count == frames, "video frames: \(times.count), input has \(frames)", sourceLocation: sourceLocation)
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 }, "times must strictly increase", sourceLocation: sourceLocation)
        #expect((steps.max() ?? 0) <= 4 / Self.rate + 1e-6, "largest gap \(steps.max() ?? 0) s: a frozen span", sourceLocation: sourceLocation)

        let secondAudio = try h.packetTimes(second, stream: "a:0").compactMap(Double.init)
        let audio = try h.packetTimes(output, stream: "a:0").compactMap(Double.init)
        #expect(audio.count == 2 * secondAudio.count, "audio packets: \(audio.count), input has \(2 * secondAudio.count)", sourceLocation: sourceLocation)
        let secondVideo = try h.videoFrameTimes(second).compactMap(Double.init)
        guard audio.count == 2 * secondAudio.count, times.count == frames, let audioStart = secondAudio.first,
              let videoStart = secondVideo.first else { return }
        let lead = audioStart - videoStart
        let outputLead = audio[secondAudio.count] - times[frames / 2]
        #expect(abs(outputLead - lead) < 0.001, "the second segment's audio leads its video by \(outputLead) s, \(lead) s in the input",
                sourceLocation: sourceLocation)
    }

    @Test("transcode (full render) keeps every frame in order, audio copied in sync, one notice", arguments: Join.allCases)
    func fullRender(join: Join) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, second) = try joined(h, join)
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input, "out.mp4", "-c", try config(h), "--render", "full"]),
                                  timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let notices = outcome.errorLines.filter { $0.contains("timestamps jump") }
        #expect(notices.count == 1 && notices[0].contains("joined.ts") && notices[0].contains("at 2."), "\(outcome.stderr)")
        try expectContinuous(h, output: h.path("out.mp4"), second: second)
        #expect(h.partialFiles().isEmpty)
    }

    @Test("smart rendering (--render auto) sees the same shifted times: frames in order, copied GOPs included", arguments: Join.allCases)
    func smartRender(join: Join) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, second) = try joined(h, join)
        // A mark only in the second segment: the first is copied, the marked GOP spliced after the jump.
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input, "out.mp4", "-c", try config(h, from: 2.6)]), timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(outcome.errorLines.filter { $0.contains("timestamps jump") }.count == 1, "\(outcome.stderr)")
        try expectContinuous(h, output: h.path("out.mp4"), second: second)
        let decode = try h.run("ffmpeg", ["-v", "error", "-i", h.path("out.mp4"), "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "the output decodes cleanly: \(decode.stderr)")
    }

    @Test("batch: every row's output follows on, the notice given once")
    func batch() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, second) = try joined(h, .forward)
        let csv = try h.write("rows.csv", "id\n1\n2\n")
        let outcome = try h.shell("exec " + Harness.commandLine(["batch", input, "-c", try config(h), "--vars", csv, "--output", "row{id}.mp4",
                                                                 "-j", "1", "--preset", "ultrafast"]), timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(outcome.errorLines.filter { $0.contains("timestamps jump") }.count == 1, "\(outcome.stderr)")
        for id in 1...2 { try expectContinuous(h, output: h.path("row\(id).mp4"), second: second) }
        #expect(h.partialFiles().isEmpty)
    }

    @Test("a 33-bit clock that wraps soon after the start: every frame is shown (none hidden before time zero)")
    func clockWrap() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // 2^33 / 90 kHz = 95443.7 s: this clip's clock wraps 1.7 s in, and FFmpeg makes the times before that negative.
        let input = try segment(h, "wrap.ts", offset: 95442, frequency: 440)
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", input, "out.mp4", "-c", try config(h), "--render", "full"]), timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(try h.videoFrameCount(h.path("out.mp4")) == Int(Self.seconds * Self.rate))
        let audio = try h.ffprobe(["-count_frames", "-select_streams", "a:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", h.path("out.mp4")])
        let inputAudio = try h.packetTimes(input, stream: "a:0").count
        #expect(Int(audio.trimmingCharacters(in: .whitespacesAndNewlines)) == inputAudio, "audio frames decoded: \(audio), input has \(inputAudio)")
    }

    @Test("thumbnail after the jump shows the frame transcode shows at that time, --at past the frames is refused; preview works", arguments: Join.allCases)
    func thumbnailAndPreview(join: Join) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, _) = try joined(h, join)
        let config = try config(h)
        let transcode = try h.shell("exec " + Harness.commandLine(["transcode", input, "out.mp4", "-c", config, "--render", "full"]), timeout: 120)
        try #require(transcode.exitStatus == 0, "\(transcode)")
        // The frame transcode shows 1 s into the second segment, by its index in presentation order.
        let times = try h.videoFrameTimes(h.path("out.mp4")).compactMap(Double.init)
        let wanted = Self.seconds + 1.02
        let index = try #require(times.lastIndex { $0 - times[0] <= wanted + 1e-6 })
        #expect(index > Int(Self.seconds * Self.rate), "the wanted time lies in the second segment")
        let thumbnail = try h.shell("exec " + Harness.commandLine(["thumbnail", input, "t.png", "--at", String(wanted), "-c", config]), timeout: 60)
        #expect(thumbnail.exitStatus == 0, "\(thumbnail)")
        // Compared with the input's frames (unmarked) below the mark; the colour conversions differ by about 4 of 255.
        let shown = try h.run("ffmpeg", ["-v", "error", "-i", h.path("t.png"), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdoutData
        func inputFrame(_ n: Int) throws -> [UInt8] {
            [UInt8](try h.run("ffmpeg", ["-v", "error", "-i", input, "-vf", "select=eq(n\\,\(n))", "-frames:v", "1",
                                         "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdoutData)
        }
        let below = 60..<120
        let same = meanDifference([UInt8](shown), try inputFrame(index), width: 160, x: 0..<160, y: below)
        let neighbour = meanDifference([UInt8](shown), try inputFrame(index + 1), width: 160, x: 0..<160, y: below)
        #expect(same < 6 && neighbour > same + 3, "thumbnail vs frame \(index): \(same), vs the next: \(neighbour)")

        // The file's own duration counts the jump (1000 s forward); the frames last 4 s.
        let past = try h.shell("exec " + Harness.commandLine(["thumbnail", input, "late.png", "--at", "500", "-c", config]), timeout: 60)
        #expect(past.exitStatus == 64 && past.stderr.contains("lasts only 4.0"), "\(past)")

        let preview = try h.shell("exec " + Harness.commandLine(["preview", input, "-c", config, "-o", "sheet.png", "--frames", "4"]), timeout: 60)
        #expect(preview.exitStatus == 0, "\(preview)")
        #expect(FileManager.default.fileExists(atPath: h.path("sheet.png")))
    }
}
