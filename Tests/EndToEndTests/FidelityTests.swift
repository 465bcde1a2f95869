import Foundation
import Testing

/// Issue 5: whatever users feed it comes out right — containers, codecs, bit depths,
/// timing, rotation, odd sizes and every stream.
@Suite("faithful transcoding")
struct FidelityTests {
    static let config = ##"{ "watermarks": [ { "text": "mark", "size": 0.1, "opacity": 0.9, "anchor": "bottom-right", "box": { "color": "#FF00FF", "padding": 0.02 } } ] }"##

    struct Source: CustomTestStringConvertible, Sendable {
        var name: String
        var encode: [String]
        var outputExtension: String
        var bitDepth: Int = 8
        var testDescription: String { name }
    }

    static let sources: [Source] = [
        Source(name: "h264.mp4", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"], outputExtension: "mp4"),
        Source(name: "prores.mov", encode: ["-c:v", "prores_ks", "-pix_fmt", "yuv422p10le", "-c:a", "pcm_s16le"], outputExtension: "mp4", bitDepth: 10),
        Source(name: "hevc10.mkv", encode: ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error", "-c:a", "aac"], outputExtension: "mkv", bitDepth: 10),
        Source(name: "vp9-444.webm", encode: ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv444p", "-deadline", "realtime", "-c:a", "libopus"], outputExtension: "webm"),
        Source(name: "av1.mkv", encode: ["-c:v", "libsvtav1", "-preset", "12", "-c:a", "aac"], outputExtension: "mkv"),
        Source(name: "mpeg4.avi", encode: ["-c:v", "mpeg4", "-c:a", "libmp3lame"], outputExtension: "mp4"),
        Source(name: "h264-422.ts", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv422p", "-c:a", "mp2"], outputExtension: "mov"),
        Source(name: "h264-444.mkv", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p", "-c:a", "flac"], outputExtension: "mp4"),
    ]

    @Test("containers, codecs and bit depths: same frames, same times, audio kept", arguments: sources)
    func everyFrameOfEveryFormat(source: Source) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = h.path(source.name)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=192x144:rate=25:duration=0.6", "-f", "lavfi", "-i", "sine=r=48000:d=0.6"]
                     + source.encode + [input])
        let config = try h.write("c.json", Self.config)
        let output = h.path("out.\(source.outputExtension)")
        let r = try h.videowm("transcode", input, output, "-c", config, "-q")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.videoFrameCount(output) == h.videoFrameCount(input))
        #expect(try h.videoFrameTimes(output) == h.videoFrameTimes(input))
        let audio = try h.ffprobe(["-select_streams", "a", "-show_entries", "stream=codec_name", "-of", "csv=p=0", output])
        #expect(!audio.isEmpty, "no audio in \(output)")
        let pixelFormat = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", output])
        #expect(pixelFormat.contains("10le") == (source.bitDepth == 10), "pixel format \(pixelFormat)")
    }

    struct AudioStart: CustomTestStringConvertible, Sendable {
        var input: String
        var encode: [String]
        var output: String
        var audioCopied: Bool
        var testDescription: String { "\(input) → \(output)" }
    }

    /// Audio that starts before zero: Opus's pre-skip (Matroska's CodecDelay) and AAC's
    /// priming (an MP4 edit list). FFmpeg 5.1's Matroska muxer pushes every stream later to
    /// avoid the negative time (7 ms or 21 ms per pass, ffmpeg's `-c copy` included).
    static let audioStarts: [AudioStart] = [
        AudioStart(input: "opus.mkv", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libopus"], output: "mkv", audioCopied: true),
        AudioStart(input: "opus.webm", encode: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-c:a", "libopus"], output: "webm", audioCopied: true),
        AudioStart(input: "aac.mp4", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"], output: "mkv", audioCopied: true),
        AudioStart(input: "aac.mp4", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"], output: "webm", audioCopied: false),
    ]

    @Test("audio starting before zero moves no stream", arguments: audioStarts)
    func audioStartingBeforeZero(_ source: AudioStart) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = h.path(source.input)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=0.4", "-f", "lavfi", "-i", "sine=r=48000:d=0.4"]
                     + source.encode + [input])
        let output = h.path("out.\(source.output)")
        let r = try h.videowm("transcode", input, output, "-c", try h.write("c.json", Self.config), "-q")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.videoFrameTimes(output) == h.videoFrameTimes(input))
        if source.audioCopied {
            // Equal to the output clock's resolution (Matroska counts milliseconds).
            let audioIn = try h.packetTimes(input, stream: "a:0").compactMap(Double.init)
            let audioOut = try h.packetTimes(output, stream: "a:0").compactMap(Double.init)
            #expect(audioOut.count == audioIn.count && zip(audioOut, audioIn).allSatisfy { abs($0 - $1) <= 0.0005 + 1e-9 },
                    "audio packets \(audioIn.prefix(3)) → \(audioOut.prefix(3))")
        } else {
            // Re-encoded: the new codec has its own priming, but once decoders drop it the
            // sound starts when the input's did.
            let audioIn = try h.decodedFrameTimes(input, stream: "a:0"), audioOut = try h.decodedFrameTimes(output, stream: "a:0")
            #expect(audioOut.first != nil && audioOut.first == audioIn.first, "audio starts \(audioIn.prefix(1)) → \(audioOut.prefix(1))")
        }
    }

    @Test("variable frame rate and a non-zero start keep every presentation time")
    func variableFrameRateAndStartOffset() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Irregular frame times (30 fps, then 10 fps, then 60 fps), starting at 10 s.
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=60:duration=2",
                      "-vf", "select='lt(n,30)+between(n,30,60)*not(mod(n,6))+gt(n,60)',setpts='N/60/TB+if(gt(N,30),0.25/TB,0)'",
                      "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "ultrafast", "-output_ts_offset", "10", h.path("vfr.mkv")])
        let config = try h.write("c.json", Self.config)
        for ext in ["mkv", "mp4"] {
            let r = try h.videowm("transcode", h.path("vfr.mkv"), h.path("out.\(ext)"), "-c", config)
            #expect(r.status == 0, "\(r.stderr)")
            let times = try h.videoFrameTimes(h.path("out.\(ext)"))
            #expect(times == (try h.videoFrameTimes(h.path("vfr.mkv"))), ".\(ext)")
        }
    }

    @Test("a phone video's display rotation: upright output, mark where a viewer sees bottom-right")
    func rotatedInput() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("landscape.mp4", width: 320, height: 240, seconds: 0.5, audio: false)
        try setDisplayMatrixRotatedClockwise(mp4: input, to: h.path("portrait.mp4"))
        let config = try h.write("c.json", Self.config)
        let r = try h.videowm("transcode", h.path("portrait.mp4"), h.path("out.mp4"), "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        let rotation = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", h.path("out.mp4")])
        #expect(rotation.trimmingCharacters(in: .whitespacesAndNewlines) == "-90", "rotation kept once: \(rotation)")
        // ffmpeg applies the rotation when decoding, as players do: 240×320 upright.
        let shown = try h.rgbFrame(h.path("out.mp4"), at: 0, width: 240, height: 320)
        let bottomRight = meanColor(shown, width: 240, x: 200..<225, y: 290..<305)
        let topLeft = meanColor(shown, width: 240, x: 10..<40, y: 10..<30)
        #expect(bottomRight.0 > 180 && bottomRight.1 < 90 && bottomRight.2 > 180, "plate colour bottom-right \(bottomRight)")
        #expect(!(topLeft.0 > 180 && topLeft.1 < 90 && topLeft.2 > 180), "plate not top-left")
    }

    @Test("an odd-sized RGB source plays: padded to even 4:2:0, picture whole, notice printed")
    func oddSizedRGBSource() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=0.4", "-vf", "scale=641:361",
                      "-c:v", "ffv1", "-pix_fmt", "bgr0", h.path("odd.mkv")])
        let r = try h.videowm("transcode", h.path("odd.mkv"), h.path("out.mp4"), "-c", try h.write("c.json", Self.config))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("641×361 padded to 642×362"))
        let stream = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=width,height,pix_fmt,color_space", "-of", "csv=p=0", h.path("out.mp4")])
        #expect(stream.trimmingCharacters(in: .whitespacesAndNewlines) == "642,362,yuv420p,smpte170m")
        #expect(try h.videoFrameCount(h.path("out.mp4")) == 10)
    }

    /// Ten minutes of 320×180 with 16 kHz PCM audio (re-encoded to AAC for MP4) that has a
    /// 0.5 s hole at 300 s, and beeps at 10 s and 595 s of presentation time.
    @Test("a ten-minute file: every frame kept, audio in sync at the end across a gap, peak memory as for ten seconds")
    func longFile() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        func make(_ name: String, seconds: Int) throws -> String {
            let beeps = "0.8*sin(2*PI*1000*t)*(between(t,10,10.2)+between(t,594.5,594.7))"
            try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=\(seconds)",
                          "-f", "lavfi", "-i", "aevalsrc='\(beeps)':s=16000:d=\(Double(seconds) - 0.5)",
                          "-af", "asetpts='PTS+gte(T,300)*0.5/TB'",
                          "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-c:a", "pcm_s16le", h.path(name)])
            return h.path(name)
        }
        let config = try h.write("c.json", Self.config)
        var peaks: [Int] = []
        for (name, seconds) in [("short.mkv", 10), ("long.mkv", 600)] {
            let input = try make(name, seconds: seconds)
            let output = h.path("\(name).mp4")
            let r = try h.run("/usr/bin/python3", ["-c", Self.peakMemoryOfChild, Harness.videowmPath,
                                                   "transcode", input, output, "-c", config, "--preset", "ultrafast", "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            peaks.append(Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
            // Every frame, at its time (packets, in presentation order: decoding 15 000 frames twice adds nothing).
            let times = { (file: String) in try h.packetTimes(file, stream: "v:0").compactMap(Double.init).sorted() }
            #expect(try times(output) == times(input))
            if seconds == 600 {
                #expect(try times(output).count == 15_000)
                let beeps = try beepOnsets(h, output)
                #expect(beeps.count == 2 && abs(beeps[0] - 10) < 0.04 && abs(beeps[1] - 595) < 0.04, "beeps at \(beeps)")
            }
        }
        #expect(peaks[0] > 0 && Double(peaks[1]) <= 1.10 * Double(peaks[0]), "peak RSS 10 s \(peaks[0]) KiB, 10 min \(peaks[1]) KiB")
    }

    @Test("re-encoded audio whose timestamps step back (an overlap) drops the repeat and stays in sync")
    func audioOverlap() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // From 12 s on, audio is stamped 0.5 s earlier: the beep generated at 18.5 s plays at 18 s.
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=20",
                      "-f", "lavfi", "-i", "aevalsrc='0.8*sin(2*PI*1000*t)*(between(t,10,10.2)+between(t,18.5,18.7))':s=16000:d=20",
                      "-af", "asetpts='PTS-gte(T,12)*0.5/TB'", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "pcm_s16le", h.path("in.mkv")])
        let r = try h.videowm("transcode", h.path("in.mkv"), h.path("out.mp4"), "-c", try h.write("c.json", Self.config), "--preset", "ultrafast", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        let beeps = try beepOnsets(h, h.path("out.mp4"))
        #expect(beeps.count == 2 && abs(beeps[0] - 10) < 0.02 && abs(beeps[1] - 18) < 0.02, "beeps at \(beeps)")
    }

    /// Runs argv[1…] and prints the child's peak resident set in KiB.
    static let peakMemoryOfChild = """
        import resource, subprocess, sys
        r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
        print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        sys.exit(r.returncode)
        """

    /// Times (s) where a loud tone starts, with samples placed by their timestamps (gaps filled).
    private func beepOnsets(_ h: Harness, _ file: String) throws -> [Double] {
        let rate = 8000.0
        let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:a:0", "-af", "aresample=async=1:first_pts=0",
                                     "-ac", "1", "-ar", "8000", "-f", "s16le", "-"])
        var onsets: [Double] = [], wasLoud = false
        r.stdoutData.withUnsafeBytes { raw in
            for (i, sample) in raw.bindMemory(to: Int16.self).enumerated() {
                let loud = abs(Int(sample)) > 8000
                if loud && !wasLoud && (onsets.last.map { Double(i) / rate - $0 > 1 } ?? true) { onsets.append(Double(i) / rate) }
                wasLoud = loud
            }
        }
        return onsets
    }

    @Test("a picture size change mid-stream: every frame kept, scaled into the first size between bars, notice printed")
    func pictureSizeChangesMidStream() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // 1 s of 320×240, then 1 s of 160×240 (a screen recorder's window narrowed), joined in one TS.
        for (name, size) in [("wide.ts", "320x240"), ("narrow.ts", "160x240")] {
            try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=1", "-f", "lavfi", "-i", "sine=d=1",
                          "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", h.path(name)])
        }
        let list = try h.write("list.txt", "file '\(h.path("wide.ts"))'\nfile '\(h.path("narrow.ts"))'\n")
        try h.ffmpeg(["-f", "concat", "-safe", "0", "-i", list, "-c", "copy", h.path("both.ts")])
        let r = try h.videowm("transcode", h.path("both.ts"), h.path("out.mp4"), "-c", try h.write("c.json", Self.config))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("changes size at") && r.stderr.contains("320×240 → 160×240"), "\(r.stderr)")
        #expect(try h.videoFrameTimes(h.path("out.mp4")) == h.videoFrameTimes(h.path("both.ts")))
        let sizes = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "frame=width,height", "-of", "csv=p=0", h.path("out.mp4")])
            .split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") }.filter { !$0.isEmpty }
        #expect(sizes.count == 50 && Set(sizes) == ["320,240"], "\(Set(sizes))")
        // The narrow picture keeps its shape: 160 columns in the middle, black bars of 80 either side.
        let late = try h.rgbFrame(h.path("out.mp4"), at: 1.5, width: 320, height: 240)
        let (lr, lg, lb) = meanColor(late, width: 320, x: 0..<76, y: 0..<180)
        let (rr, rg, rb) = meanColor(late, width: 320, x: 244..<320, y: 0..<180)
        let (cr, cg, cb) = meanColor(late, width: 320, x: 84..<236, y: 40..<180)
        #expect(max(lr, lg, lb, rr, rg, rb) < 20, "bars \((lr, lg, lb)) \((rr, rg, rb))")
        #expect(cr + cg + cb > 150, "picture \((cr, cg, cb))")
    }

    @Test("text subtitles the container cannot hold are converted, times and language kept", arguments: ["mp4", "webm"])
    func textSubtitlesConverted(to outputExtension: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let srt = "1\n00:00:00,100 --> 00:00:00,900\nHello <i>there</i>\n\n2\n00:00:01,000 --> 00:00:01,800\nSecond line\n"
        _ = try h.write("subs.srt", srt)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-i", h.path("subs.srt"),
                      "-c:v", "libx264", "-preset", "ultrafast", "-c:s", "srt", "-metadata:s:s:0", "language=fra", h.path("in.mkv")])
        let output = h.path("out.\(outputExtension)")
        let r = try h.videowm("transcode", h.path("in.mkv"), output, "-c", try h.write("c.json", Self.config))
        #expect(r.status == 0, "\(r.stderr)")
        let expected = outputExtension == "mp4" ? "mov_text" : "webvtt"
        #expect(r.stderr.contains("(subrip) cannot be stored") && r.stderr.contains("converted to \(expected)"), "\(r.stderr)")
        let stream = try h.ffprobe(["-select_streams", "s", "-show_entries", "stream=codec_name:stream_tags=language", "-of", "csv=p=0", output])
        #expect(stream.trimmingCharacters(in: .whitespacesAndNewlines) == "\(expected),fra")
        // Read back as SubRip: the same events, at the same times, with the same text.
        let back = try h.run("ffmpeg", ["-v", "error", "-i", output, "-map", "0:s", "-f", "srt", "-"])
        #expect(back.stdout == srt + "\n", "\(back.stdout)")
    }

    @Test("every audio and subtitle track, languages, dispositions, chapters, metadata and cover art are kept")
    func everyStreamIsKept() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        _ = try h.write("subs.srt", "1\n00:00:00,000 --> 00:00:00,500\nHello\n")
        _ = try h.write("chapters.txt", ";FFMETADATA1\ntitle=Lecture 3\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=400\ntitle=Intro\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=400\nEND=800\ntitle=Body\n")
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=64x64", "-frames:v", "1", h.path("cover.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=0.8",
                      "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.8", "-f", "lavfi", "-i", "sine=f=880:r=44100:d=0.8",
                      "-i", h.path("subs.srt"), "-i", h.path("chapters.txt"), "-i", h.path("cover.png"),
                      "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-map", "5", "-map_metadata", "4", "-map_chapters", "4",
                      "-c:v:0", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-c:s", "mov_text", "-c:v:1", "png",
                      "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra",
                      "-disposition:a:0", "default", "-disposition:a:1", "0", "-disposition:v:1", "attached_pic",
                      h.path("in.mp4")])
        let r = try h.videowm("transcode", h.path("in.mp4"), h.path("out.mp4"), "-c", try h.write("c.json", Self.config))
        #expect(r.status == 0, "\(r.stderr)")
        func streams(_ file: String) throws -> String {
            try h.ffprobe(["-show_entries", "stream=codec_type,codec_name:stream_tags=language:stream_disposition=default,attached_pic", "-of", "compact", file])
        }
        let inStreams = try streams(h.path("in.mp4")).split(separator: "\n").map { $0.replacingOccurrences(of: "codec_name=h264", with: "") }
        let outStreams = try streams(h.path("out.mp4")).split(separator: "\n").map { $0.replacingOccurrences(of: "codec_name=h264", with: "") }
        #expect(inStreams == outStreams)
        let chapters = try h.ffprobe(["-show_chapters", "-of", "csv=p=0", h.path("out.mp4")])
        #expect(chapters.contains("Intro") && chapters.contains("Body"), "\(chapters)")
        let title = try h.ffprobe(["-show_entries", "format_tags=title", "-of", "csv=p=0", h.path("out.mp4")])
        #expect(title.contains("Lecture 3"))
        #expect(try h.packetChecksums(h.path("out.mp4"), stream: "a:1") == h.packetChecksums(h.path("in.mp4"), stream: "a:1"))
    }

    @Test("audio re-encoded for a container that cannot hold it stays in sync")
    func reencodedAudioStaysInSync() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 3, audio: true)
        let r = try h.videowm("transcode", input, h.path("out.webm"), "-c", try h.write("c.json", Self.config), "--crf", "40")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("re-encoded with libopus"))
        func times(_ file: String, _ stream: String) throws -> (Double, Double) {
            let out = try h.ffprobe(["-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", file])
            let rows = out.split(separator: "\n").compactMap { line -> (Double, Double)? in
                let parts = line.split(separator: ",")
                guard parts.count >= 2, let t = Double(parts[0]), let d = Double(parts[1]) else { return nil }
                return (t, d)
            }
            let start = rows.map(\.0).min() ?? -1
            let end = rows.map { $0.0 + $0.1 }.max() ?? -1
            return (start, end)
        }
        let (inStart, inEnd) = try times(input, "a:0")
        let (outStart, outEnd) = try times(h.path("out.webm"), "a:0")
        // Within one video frame (1/30 s) at both ends.
        #expect(abs(outStart - inStart) < 1.0 / 30, "start \(inStart) → \(outStart)")
        #expect(abs(outEnd - inEnd) < 1.0 / 30, "end \(inEnd) → \(outEnd)")
    }

    struct TransportStreamAudio: CustomTestStringConvertible, Sendable {
        var input: String
        var encoder: String
        var testDescription: String { "\(encoder) from \(input)" }
    }

    /// What broadcast and HLS-TS streams carry, from the containers it usually comes in.
    static let transportStreamAudio: [TransportStreamAudio] = [
        TransportStreamAudio(input: "in.mp4", encoder: "aac"),
        TransportStreamAudio(input: "in.mp4", encoder: "libmp3lame"),
        TransportStreamAudio(input: "in.mkv", encoder: "ac3"),
        TransportStreamAudio(input: "in.mkv", encoder: "libopus"),
    ]

    /// FFmpeg's MPEG-TS muxer has no codec list to ask; AAC from an MP4 (raw frames and an
    /// AudioSpecificConfig) gets its ADTS headers from the muxer, the payload untouched.
    @Test("audio is copied into MPEG-TS packet for packet: same payloads, same sync, decodes to the input's samples",
          arguments: transportStreamAudio)
    func audioCopiedIntoTransportStream(_ source: TransportStreamAudio) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = h.path(source.input)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-f", "lavfi", "-i", "sine=r=48000:d=1",
                      "-c:v", "libx264", "-preset", "ultrafast", "-c:a", source.encoder, "-b:a", "96k", input])
        let output = h.path("out.ts")
        let r = try h.videowm("transcode", input, output, "-c", try h.write("c.json", Self.config))
        #expect(r.status == 0 && !r.stderr.contains("re-encoded"), "\(r.stderr)")
        let codec = { (file: String) in try h.ffprobe(["-select_streams", "a:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0", file])
            .split(separator: "\n").first.map(String.init) }
        #expect(try codec(output) == codec(input))
        // Payloads only: a TS reader hands AAC out with its ADTS header, which aac_adtstoasc takes off again.
        func payloads(_ file: String, bitstreamFilter: [String] = []) throws -> [Substring] {
            let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:a:0", "-c", "copy"] + bitstreamFilter + ["-f", "framemd5", "-"])
            #expect(r.status == 0, "\(r.stderr)")
            // stream, dts, pts, duration, size, MD5 of the payload, then any side data's.
            return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
                let fields = line.split(separator: ",")
                return fields.count > 5 ? fields[5] : nil
            }
        }
        let filter = source.encoder == "aac" ? ["-bsf:a", "aac_adtstoasc"] : []
        let copied = try payloads(output, bitstreamFilter: filter), original = try payloads(input)
        #expect(!original.isEmpty && copied == original, "\(original.count) packets → \(copied.count)")
        // Audio stays where it was against the video (to TS's 90 kHz clock, Matroska's milliseconds).
        func lead(_ file: String) throws -> Double {
            let audio = try h.packetTimes(file, stream: "a:0").compactMap(Double.init).min() ?? .nan
            let video = try h.videoFrameTimes(file).compactMap(Double.init).min() ?? .nan
            return audio - video
        }
        let leadIn = try lead(input), leadOut = try lead(output)
        #expect(abs(leadOut - leadIn) <= 0.001, "audio lead \(leadIn) → \(leadOut)")
        // ffmpeg decodes it without a complaint, to the input's samples. Both decoded with the
        // trimming left to the caller: MPEG-TS has no way to say that the encoder's priming and
        // padding are to be dropped, as the MP4 edit list or Matroska's CodecDelay did, so a
        // player keeps those few milliseconds (before the first picture; ffmpeg's `-c copy` too).
        func decoded(_ file: String) throws -> Data {
            let r = try h.run("ffmpeg", ["-v", "error", "-flags2", "+skip_manual", "-i", file, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(file): \(r.stderr)")
            return r.stdoutData
        }
        let decodedIn = try decoded(input), decodedOut = try decoded(output)
        #expect(!decodedIn.isEmpty && decodedOut == decodedIn, "decoded \(decodedIn.count) bytes → \(decodedOut.count)")
    }

    @Test("an input without video is refused clearly")
    func audioOnlyInput() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "sine=r=48000:d=0.5", "-c:a", "aac", h.path("talk.m4a")])
        let r = try h.videowm("transcode", h.path("talk.m4a"), h.path("out.mp4"), "-c", try h.write("c.json", Self.config))
        #expect(r.status == 65)
        #expect(r.stderr.contains("talk.m4a") && r.stderr.contains("no video"))
    }
}

/// Rewrites the video track header's display matrix of an MP4 written by ffmpeg so players
/// rotate it 90° clockwise, as phones record portrait video (ffmpeg 5.1 cannot set it).
func setDisplayMatrixRotatedClockwise(mp4 input: String, to output: String) throws {
    var data = try Data(contentsOf: URL(fileURLWithPath: input))
    guard let range = data.range(of: Data("tkhd".utf8)) else { throw HarnessError.toolFailed("no tkhd box") }
    let box = range.lowerBound - 4
    precondition(data[box + 8] == 0, "version-0 tkhd expected")
    // Matrix {a, b, u, c, d, v, x, y, w} in 16.16 (w in 2.30) at offset 48 of a version-0 tkhd.
    let values: [UInt32] = [0, 0x10000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000]
    for (i, v) in values.enumerated() {
        let offset = box + 48 + i * 4
        data[offset] = UInt8(v >> 24); data[offset + 1] = UInt8((v >> 16) & 0xFF)
        data[offset + 2] = UInt8((v >> 8) & 0xFF); data[offset + 3] = UInt8(v & 0xFF)
    }
    try data.write(to: URL(fileURLWithPath: output))
}

@Suite("non-square pixels")
struct PixelAspectTests {
    @Test("on anamorphic video (2:1 pixels) a square logo shows square, and the thumbnail is widened to match")
    func anamorphicMarksLookUndistorted() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=25:duration=0.4", "-vf", "setsar=2/1",
                      "-c:v", "libx264", "-preset", "ultrafast", h.path("wide.mp4")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=40x40", "-frames:v", "1", h.path("logo.png")])
        let config = try h.write("c.json", #"{ "watermarks": [ { "image": "logo.png", "size": 0.3, "anchor": "center" } ] }"#)
        let r = try h.videowm("transcode", h.path("wide.mp4"), h.path("out.mp4"), "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=sample_aspect_ratio", "-of", "csv=p=0", h.path("out.mp4")])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "2:1")
        // Displayed: 640×240. The logo is 0.3 × 240 = 72 px tall, so 72 px wide on screen, 36 stored.
        let shown = try h.run("ffmpeg", ["-v", "error", "-i", h.path("out.mp4"), "-frames:v", "1", "-vf", "scale=640:240", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let pixels = [UInt8](shown.stdoutData)
        var columns = Set<Int>(), rows = Set<Int>()
        for y in 0..<240 {
            for x in 0..<640 {
                let i = (y * 640 + x) * 3
                if pixels[i] > 200 && pixels[i + 1] < 60 && pixels[i + 2] > 200 { columns.insert(x); rows.insert(y) }
            }
        }
        #expect(abs(columns.count - rows.count) <= 3, "shown \(columns.count)×\(rows.count)")
        #expect(abs(rows.count - 72) <= 3)

        let thumb = try h.videowm("thumbnail", h.path("wide.mp4"), h.path("t.png"), "--at", "0", "-c", config)
        #expect(thumb.status == 0, "\(thumb.stderr)")
        #expect(try h.ffprobe(["-show_entries", "stream=width,height", "-of", "csv=p=0", h.path("t.png")])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "640,240")
    }
}
