import Foundation
import Testing

@Suite("encode options")
struct EncoderTests {
    static let config = #"{ "watermarks": [ { "text": "enc", "size": 0.1, "opacity": 0.8 } ] }"#

    @Test("each --codec keeps 10-bit input 10-bit, carries colour tags and drains every frame",
          arguments: [("hevc", "mp4", "hevc"), ("vp9", "webm", "vp9"), ("av1", "mkv", "av1"), ("h264", "mov", "h264")])
    func codecs(codec: String, ext: String, expectedName: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=192x144:rate=25:duration=0.6",
                      "-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error",
                      "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", h.path("in.mkv")])
        let out = h.path("out.\(ext)")
        let r = try h.videowm("transcode", h.path("in.mkv"), out, "-c", try h.write("c.json", Self.config), "--codec", codec, "--crf", "30", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        let info = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=codec_name,pix_fmt,color_space,color_primaries,color_transfer", "-of", "csv=p=0", out])
        #expect(info.trimmingCharacters(in: .whitespacesAndNewlines) == "\(expectedName),yuv420p10le,bt709,bt709,bt709", "\(info)")
        #expect(try h.videoFrameCount(out) == 15)
    }

    @Test("--bitrate targets a rate; --preset reaches the encoder; bad values are usage errors")
    func rateAndPreset() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 2, audio: false)
        let config = try h.write("c.json", Self.config)
        let low = try h.videowm("transcode", input, h.path("low.mp4"), "-c", config, "--bitrate", "150k", "--preset", "veryfast")
        #expect(low.status == 0, "\(low.stderr)")
        let high = try h.videowm("transcode", input, h.path("high.mp4"), "-c", config, "--bitrate", "3M", "--preset", "veryfast")
        #expect(high.status == 0, "\(high.stderr)")
        let lowSize = try FileManager.default.attributesOfItem(atPath: h.path("low.mp4"))[.size] as! Int
        let highSize = try FileManager.default.attributesOfItem(atPath: h.path("high.mp4"))[.size] as! Int
        #expect(lowSize < 90_000 && highSize > 2 * lowSize, "low \(lowSize), high \(highSize)")
        for bad in [["--preset", "warp9"], ["--crf", "99"], ["--codec", "mpeg2"], ["--bitrate", "lots"], ["--crf", "20", "--bitrate", "1M"], ["--errors", "maybe"]] {
            let r = try h.videowm(arguments: ["transcode", input, h.path("bad.mp4"), "-c", config] + bad)
            #expect(r.status == 64, "\(bad): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: h.path("bad.mp4")))
        }
    }

    @Test("--progress json reports progress lines and a final summary on stdout")
    func jsonProgress() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 1, audio: true)
        let r = try h.videowm("transcode", input, h.path("out.mp4"), "-c", try h.write("c.json", Self.config), "--progress", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["event"] != nil, "\(line)")
        }
        let last = try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any]
        #expect(last?["event"] as? String == "done")
        #expect(last?["frames"] as? Int == 30)
        #expect(last?["damaged"] as? Int == 0)
    }
}
