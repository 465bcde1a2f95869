import Foundation
import Testing

/// `--gop`, `--maxrate`/`--bufsize`, `--profile`, `--level`, `--tune`: what a delivery
/// specification asks of an encode, judged with ffprobe on the output.
@Suite("delivery encode controls")
struct DeliveryEncodeTests {
    static let config = #"{ "watermarks": [ { "text": "deliver", "size": 0.1, "opacity": 0.8 } ] }"#

    /// 8 s at 30 fps with hard scene cuts at 3 s and 5.5 s (three unrelated sources), coded
    /// with one keyframe: an encoder left alone puts keyframes on the cuts.
    static func sceneCuts(_ h: Harness) throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=3",
                      "-f", "lavfi", "-i", "mandelbrot=size=160x120:rate=30,trim=duration=2.5",
                      "-f", "lavfi", "-i", "smptebars=size=160x120:rate=30:duration=2.5",
                      "-filter_complex", "[0][1][2]concat=n=3:v=1:a=0", "-c:v", "libx264", "-preset", "ultrafast", "-g", "1000",
                      h.path("cuts.mp4")])
        return h.path("cuts.mp4")
    }

    @Test("--gop 2s: keyframes exactly every 2 s, and only there, across scene cuts", arguments: [("h264", "mp4"), ("hevc", "mp4"), ("vp9", "webm")])
    func keyframesByTime(codec: String, ext: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.sceneCuts(h), config = try h.write("c.json", Self.config)
        let plain = h.path("plain.\(ext)"), timed = h.path("timed.\(ext)")
        #expect(try h.videowm("transcode", input, plain, "-c", config, "--codec", codec, "-q").status == 0)
        let r = try h.videowm("transcode", input, timed, "-c", config, "--codec", codec, "--gop", "2s", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        // Left alone, x264 and x265 cut a GOP at each scene change (what segmenters cannot use);
        // libvpx places its own keyframes elsewhere.
        let natural = try videoPackets(h, plain).filter(\.keyframe).map(\.pts)
        if codec != "vp9" {
            #expect(natural.contains { abs($0 - 3) < 0.001 } && natural.contains { abs($0 - 5.5) < 0.001 }, "\(natural)")
        }
        #expect(natural != [0, 2, 4, 6])
        let packets = try videoPackets(h, timed)
        #expect(packets.filter(\.keyframe).map(\.pts) == [0, 2, 4, 6], "\(packets.filter(\.keyframe).map(\.pts))")
        #expect(packets.count == 240)
    }

    @Test("--gop N: a keyframe every N frames; the av1 encoder takes frames but not seconds")
    func keyframesByFrames() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try Self.sceneCuts(h), config = try h.write("c.json", Self.config)
        let r = try h.videowm("transcode", input, h.path("o.mp4"), "-c", config, "--gop", "45", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try videoPackets(h, h.path("o.mp4")).filter(\.keyframe).map(\.pts) == [0, 1.5, 3, 4.5, 6, 7.5])
        let av1 = try h.videowm("transcode", input, h.path("o.mkv"), "-c", config, "--codec", "av1", "--gop", "2s")
        #expect(av1.status == 64 && av1.stderr.contains("--gop"), "\(av1.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("o.mkv")))
    }

    @Test("--maxrate 2M --bufsize 4M on a busy input: the VBV model never underflows and the rate averages ≤ 2.2 Mbit/s")
    func cappedRate() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Noise over a moving pattern: about 6 Mbit/s at the default quality, uncapped. 12 s, so the
        // buffer's initial fill (3.6 Mbit) cannot carry the average far above the cap.
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=12,noise=alls=60:allf=t",
                      "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", h.path("busy.mkv")])
        let config = try h.write("c.json", Self.config)
        let capped = h.path("capped.mp4"), free = h.path("free.mp4")
        for (output, extra) in [(capped, ["--maxrate", "2M", "--bufsize", "4M"]), (free, [])] {
            let r = try h.videowm(arguments: ["transcode", h.path("busy.mkv"), output, "-c", config, "--preset", "veryfast", "-q"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let model = VBVModel(rate: 2_000_000, size: 4_000_000)
        let cappedPackets = try videoPackets(h, capped), freePackets = try videoPackets(h, free)
        #expect(cappedPackets.count == 360)
        #expect(model.lowestFullness(cappedPackets) >= 0, "lowest \(model.lowestFullness(cappedPackets)) bits")
        #expect(averageBitRate(cappedPackets) <= 2_200_000, "\(averageBitRate(cappedPackets)) bit/s")
        // The same encode uncapped overdraws the buffer: the cap is what keeps it.
        #expect(model.lowestFullness(freePackets) < 0 && averageBitRate(freePackets) > 4_000_000)
    }

    @Test("profile, level and tune reach the encoder; what the codec or the picture cannot honour is a usage error naming the option")
    func profileLevelTune() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 0.5, audio: false)
        let config = try h.write("c.json", Self.config)
        let r = try h.videowm("transcode", input, h.path("o.mp4"), "-c", config, "--profile", "main", "--level", "3.1", "--tune", "film", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        let stream = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=profile,level", "-of", "csv=p=0", h.path("o.mp4")])
        #expect(stream.trimmingCharacters(in: .whitespacesAndNewlines) == "Main,31", "\(stream)")
        let hevc = try h.videowm("transcode", input, h.path("h.mp4"), "-c", config, "--codec", "hevc", "--profile", "main", "--level", "4", "-q")
        #expect(hevc.status == 0, "\(hevc.stderr)")
        let hevcStream = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=profile,level", "-of", "csv=p=0", h.path("h.mp4")])
        #expect(hevcStream.trimmingCharacters(in: .whitespacesAndNewlines) == "Main,120", "\(hevcStream)")

        let refused: [([String], String)] = [
            (["--level", "2"], "--level"),  // 640×360 is over level 2's 396 macroblocks
            (["--level", "9"], "--level"),
            (["--profile", "main10"], "--profile"),
            (["--tune", "cartoon"], "--tune"),
            (["--maxrate", "2M"], "--maxrate"),
            (["--bufsize", "2M"], "--bufsize"),
            (["--codec", "vp9", "--maxrate", "2M", "--bufsize", "4M"], "--maxrate"),
            (["--level", "3", "--maxrate", "20M", "--bufsize", "4M"], "--maxrate"),
            (["--gop", "2.5"], "--gop"),
        ]
        for (options, named) in refused {
            let bad = try h.videowm(arguments: ["transcode", input, h.path("bad.mp4"), "-c", config] + options)
            #expect(bad.status == 64 && bad.stderr.contains(named), "\(options): \(bad.status) \(bad.stderr)")
            #expect(bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: h.path("bad.mp4")))
        }
    }

    @Test("batch: every row gets the keyframe schedule, also a row no mark touches (re-encoded, not copied)")
    func batchRows() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 160, height: 120, seconds: 3, audio: false)
        let config = try h.write("c.json", #"{ "watermarks": [ { "text": "{id}", "unless": { "plan": ["premium"] } } ] }"#)
        let csv = try h.write("rows.csv", "id,plan\n1,free\n2,premium\n")
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let r = try h.videowm("batch", input, "-c", config, "--vars", csv, "--output", h.path("out/{id}.mp4"), "--gop", "1s", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        for id in [1, 2] {
            let keyframes = try videoPackets(h, h.path("out/\(id).mp4")).filter(\.keyframe).map(\.pts)
            #expect(keyframes == [0, 1, 2], "row \(id): \(keyframes)")
        }
    }
}

/// A video packet as ffprobe reports it, in file (decode) order.
struct ProbedPacket {
    var pts: Double
    var dts: Double
    var bits: Int
    var keyframe: Bool
}

func videoPackets(_ h: Harness, _ file: String) throws -> [ProbedPacket] {
    let csv = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "packet=pts_time,dts_time,size,flags", "-of", "csv=p=0", file])
    return csv.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count >= 4, let pts = Double(fields[0]), let dts = Double(fields[1]), let size = Int(fields[2]) else { return nil }
        return ProbedPacket(pts: pts, dts: dts, bits: size * 8, keyframe: fields[3].contains("K"))
    }
}

/// Bits per second over the stream's duration (packet count × the mean packet spacing).
func averageBitRate(_ packets: [ProbedPacket]) -> Double {
    guard packets.count > 1, let first = packets.first?.dts, let last = packets.last?.dts else { return 0 }
    let seconds = (last - first) * Double(packets.count) / Double(packets.count - 1)
    return Double(packets.reduce(0) { $0 + $1.bits }) / seconds
}

/// The decoder buffer of H.264's hypothetical reference decoder (the VBV): filled at `rate`
/// bit/s up to `size` bits, starting `initialFill` full (x264's default vbv-init 0.9), and
/// drained by each packet's bits at its decode time.
struct VBVModel {
    var rate: Double
    var size: Double
    var initialFill = 0.9

    /// The lowest fullness reached, in bits; below zero, the stream overdrew the buffer.
    func lowestFullness(_ packets: [ProbedPacket]) -> Double {
        var fullness = size * initialFill, lowest = fullness
        var previous: Double?
        for packet in packets {
            if let previous { fullness = min(size, fullness + rate * (packet.dts - previous)) }
            fullness -= Double(packet.bits)
            lowest = min(lowest, fullness)
            previous = packet.dts
        }
        return lowest
    }
}
