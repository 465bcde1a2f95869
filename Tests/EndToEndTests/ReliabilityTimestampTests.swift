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

    @Test("probe reports the duration without the jump (the container's counts it), and where the times jump", arguments: Join.allCases)
    func probe(join: Join) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, _) = try joined(h, join)
        let container = try h.ffprobe(["-show_entries", "format=duration", "-of", "csv=p=0", input])
        let probed = try h.videowm("probe", input, "--json")
        #expect(probed.status == 0, "\(probed.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: probed.stdoutData) as? [String: Any])
        let duration = try #require(json["durationSeconds"] as? Double)
        // Two 2-s recordings; FFmpeg says about 1002 s (forward) or 2 s (overlap).
        #expect(duration > 2 * Self.seconds - 0.05 && duration < 2 * Self.seconds + 0.2, "probe: \(duration) s, ffprobe: \(container)")
        let video = try #require((json["streams"] as? [[String: Any]])?.first { $0["type"] as? String == "video" })
        let videoDuration = try #require(video["durationSeconds"] as? Double)
        #expect(abs(videoDuration - 2 * Self.seconds) < 0.1, "video stream: \(videoDuration) s")
        let jumps = try #require(json["timestampJumpsAtSeconds"] as? [Double])
        #expect(jumps.count == 1 && abs(jumps[0] - Self.seconds) < 0.1, "\(jumps)")
        let summary = try h.videowm("probe", input)
        #expect(summary.stdout.contains(String(format: ", %.3f s", duration)) && summary.stdout.contains("timestamps jump at 2."), "\(summary.stdout)")
    }

    /// `trace` reads the original from the time the leak matches with its own decoder: in a
    /// joined recording that seek must go by the corrected times, or the leak matches nothing.
    @Test("trace of a leak cut from after the jump of a joined original names its row")
    func traceAcrossTheJump() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Two different 15-s recordings, the second's clock starting where the first's did (as after a restart).
        for (name, source, frequency) in [("first.ts", "testsrc2", 440), ("second.ts", "testsrc", 880)] {
            try h.ffmpeg(["-f", "lavfi", "-i", "\(source)=size=320x180:rate=24:duration=15", "-f", "lavfi", "-i", "sine=f=\(frequency):r=48000:d=15",
                          "-c:v", "libx264", "-preset", "ultrafast", "-g", "24", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mpegts", h.path(name)])
        }
        var data = try Data(contentsOf: URL(fileURLWithPath: h.path("first.ts")))
        data.append(try Data(contentsOf: URL(fileURLWithPath: h.path("second.ts"))))
        try data.write(to: URL(fileURLWithPath: h.path("joined.ts")))
        let config = try h.write("trace.json", #"{ "watermarks": [ { "text": "{email}", "opacity": 0.4, "animation": { "type": "random", "duration": 2000 } } ] }"#)
        let rows = try h.write("rows.csv", "email\n" + (1...20).map { "student\($0)@example.com\n" }.joined())
        let copy = try h.videowm("transcode", h.path("joined.ts"), h.path("copy.mp4"), "-c", config, "--var", "email=student7@example.com",
                                 "--preset", "ultrafast", "--crf", "18", "-q")
        try #require(copy.status == 0, "\(copy.stderr)")
        // 12 s of student 7's copy from 17 s: all of it after the jump, re-encoded.
        try h.ffmpeg(["-ss", "17", "-i", h.path("copy.mp4"), "-t", "12", "-an", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", h.path("leak.mp4")])
        let traced = try h.videowm("trace", h.path("leak.mp4"), "--original", h.path("joined.ts"), "-c", config, "--vars", rows, "--json")
        #expect(traced.status == 0, "\(traced.stderr)")
        let report = try TraceReport(traced.stdoutData)
        #expect(report.identified.map(\.row) == [7], "\(traced.stdout)")
        let offset = try #require(report.alignment?.offsetSeconds)
        #expect(abs(offset - 17) < 0.1, "the leak starts \(offset) s into the original")
    }

    /// DVB subtitles (the subtitles broadcast MPEG-TS carries) are only shifted, not checked for
    /// jumps (their times are sparse): each must keep its place against the video of its segment.
    @Test("DVB subtitles across the jump keep their times against the video, copied into MKV", arguments: Join.allCases)
    func subtitlesAcrossTheJump(join: Join) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let cues = [0.4, 1.0, 1.6]
        try dvbSubtitleMatroska(cues: cues).write(to: URL(fileURLWithPath: h.path("subtitles.mkv")))
        for (name, offset) in [("first.ts", 0.0), ("second.ts", join == .forward ? 1000.0 : 0)] {
            try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=\(Int(Self.rate)):duration=\(Self.seconds)", "-i", h.path("subtitles.mkv"),
                          "-map", "0:v", "-map", "1:s", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
                          "-c:s", "copy", "-output_ts_offset", String(offset), "-f", "mpegts", h.path(name)])
        }
        var data = try Data(contentsOf: URL(fileURLWithPath: h.path("first.ts")))
        data.append(try Data(contentsOf: URL(fileURLWithPath: h.path("second.ts"))))
        try data.write(to: URL(fileURLWithPath: h.path("joined.ts")))
        let codec = try h.ffprobe(["-select_streams", "s", "-show_entries", "stream=codec_name", "-of", "csv=p=0", h.path("joined.ts")])
        try #require(codec.contains("dvb_subtitle"), "the joined file's subtitle stream: \(codec)")

        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", "joined.ts", "out.mkv", "-c", try config(h), "--preset", "ultrafast"]),
                                  timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        // Where each subtitle sits against its segment's first picture, in one segment alone and in the output.
        let segment = try h.packetTimes(h.path("first.ts"), stream: "s:0").compactMap(Double.init)
        let segmentVideo = try #require(try h.videoFrameTimes(h.path("first.ts")).compactMap(Double.init).first)
        let expected = segment.map { $0 - segmentVideo }
        let subtitles = try h.packetTimes(h.path("out.mkv"), stream: "s:0").compactMap(Double.init)
        let video = try h.videoFrameTimes(h.path("out.mkv")).compactMap(Double.init)
        let framesPerSegment = Int(Self.seconds * Self.rate)
        try #require(expected.count == cues.count && subtitles.count == 2 * cues.count && video.count == 2 * framesPerSegment,
                     "subtitles \(subtitles), \(video.count) frames")
        for (index, time) in subtitles.enumerated() {
            let segmentStart = video[index < cues.count ? 0 : framesPerSegment]
            // Matroska counts milliseconds.
            #expect(abs(time - segmentStart - expected[index % cues.count]) <= 0.0015,
                    "subtitle \(index) at \(time) s, its segment starts at \(segmentStart) s; \(expected[index % cues.count]) s into it in the input")
        }
    }

    /// A Matroska file with one DVB subtitle track: a display set at each cue (a page that
    /// clears the screen: page composition and end of display set), shown 0.3 s. FFmpeg writes
    /// DVB subtitles only from bitmap subtitles, which nothing here makes, so the file is built
    /// by hand (EBML: an ID, a length, the content).
    func dvbSubtitleMatroska(cues: [Double]) -> Data {
        func size(_ n: Int) -> [UInt8] { [0x01] + (0..<7).reversed().map { UInt8(truncatingIfNeeded: n >> ($0 * 8)) } }
        func element(_ id: [UInt8], _ content: [UInt8]) -> [UInt8] { id + size(content.count) + content }
        func unsigned(_ id: [UInt8], _ value: Int) -> [UInt8] { element(id, (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }) }
        func text(_ id: [UInt8], _ value: String) -> [UInt8] { element(id, Array(value.utf8)) }
        let header = element([0x1A, 0x45, 0xDF, 0xA3], unsigned([0x42, 0x86], 1) + unsigned([0x42, 0xF7], 1) + unsigned([0x42, 0xF2], 4)
                             + unsigned([0x42, 0xF3], 8) + text([0x42, 0x82], "matroska") + unsigned([0x42, 0x87], 4) + unsigned([0x42, 0x85], 2))
        let info = element([0x15, 0x49, 0xA9, 0x66], unsigned([0x2A, 0xD7, 0xB1], 1_000_000) + text([0x4D, 0x80], "videowm tests")
                           + text([0x57, 0x41], "videowm tests"))
        // Composition page 1, ancillary page 1, subtitling type 0x10 (normal).
        let track = element([0xAE], unsigned([0xD7], 1) + unsigned([0x73, 0xC5], 1) + unsigned([0x83], 0x11) + text([0x86], "S_DVBSUB")
                            + element([0x63, 0xA2], [0x00, 0x01, 0x00, 0x01, 0x10]))
        let tracks = element([0x16, 0x54, 0xAE, 0x6B], track)
        // Page composition (time-out 5 s, version 0, mode change, no regions), end of display set, end marker.
        let displaySet: [UInt8] = [0x0F, 0x10, 0x00, 0x01, 0x00, 0x02, 0x05, 0x0B, 0x0F, 0x80, 0x00, 0x01, 0x00, 0x00, 0xFF]
        let blocks = cues.flatMap { cue -> [UInt8] in
            let milliseconds = Int((cue * 1000).rounded())
            let block = element([0xA1], [0x81, UInt8(milliseconds >> 8), UInt8(milliseconds & 0xFF), 0x00] + displaySet)
            return element([0xA0], block + unsigned([0x9B], 300))
        }
        let cluster = element([0x1F, 0x43, 0xB6, 0x75], unsigned([0xE7], 0) + blocks)
        return Data(header + element([0x18, 0x53, 0x80, 0x67], info + tracks + cluster))
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
