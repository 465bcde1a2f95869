import Foundation
import Testing

/// Issue 19, video that is unusual rather than damaged: transparency (VP9 alpha in WebM) and
/// interlacing. The output keeps what it can and says in one notice what it cannot.
@Suite("reliability: alpha and interlaced video")
struct ReliabilityVideoFormTests {
    func textConfig(_ h: Harness) throws -> String {
        try h.write("c.json", #"{ "watermarks": [ { "text": "input", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#)
    }

    @Test("VP9 with alpha (yuva420p WebM): the transparency is kept, or a notice says it is not")
    func vp9Alpha() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1,format=yuva420p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(lt(X,80),255,0)'",
                      "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-deadline", "realtime", "-cpu-used", "8", h.path("alpha.webm")])
        let config = try textConfig(h)
        for output in ["out.webm", "out.mp4"] {
            let outcome = try h.shell("exec " + Harness.commandLine(["transcode", "alpha.webm", output, "-c", config]), timeout: 120)
            #expect(outcome.exitStatus == 0, "\(outcome)")
            #expect(try h.videoFrameCount(h.path(output)) == 10)
            // WebM marks a VP9 stream that carries alpha with "alpha_mode" (ffprobe cannot pick the
            // libvpx decoder that would show it as yuva420p).
            let tags = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream_tags=alpha_mode", "-of", "csv=p=0", h.path(output)])
            let keptAlpha = output.hasSuffix(".webm") && tags.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            let noticed = outcome.errorLines.contains { $0.contains("alpha") || $0.contains("transparen") }
            #expect(keptAlpha || noticed, "\(output): alpha silently dropped; stderr: \(outcome.stderr)")
            if !keptAlpha { #expect(outcome.errorLines.count == 1, "one notice: \(outcome.stderr)") }
        }
    }

    @Test("interlaced H.264 stays interlaced with its field order (or a notice says how it was deinterlaced)")
    func interlacedInput() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-vf", "setfield=tff",
                      "-c:v", "libx264", "-preset", "ultrafast", "-flags", "+ildct+ilme", "-x264-params", "tff=1", h.path("interlaced.mp4")])
        let fieldOrder = { (file: String) in
            try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=field_order", "-of", "csv=p=0", file])
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try #require(fieldOrder(h.path("interlaced.mp4")) == "tt", "the test input should be top field first")
        let config = try textConfig(h)
        for output in ["out.mp4", "out.mkv", "out.webm"] {
            let outcome = try h.shell("exec " + Harness.commandLine(["transcode", "interlaced.mp4", output, "-c", config]), timeout: 120)
            #expect(outcome.exitStatus == 0, "\(outcome)")
            #expect(try h.videoFrameCount(h.path(output)) == 50)
            let kept = try fieldOrder(h.path(output)) == "tt"
            let noticed = outcome.errorLines.contains { $0.contains("interlaced") && $0.contains("deinterlac") }
            if output.hasSuffix(".webm") {
                // VP9 has no interlaced coding: a notice must say what happened to the fields.
                #expect(kept || noticed, "\(output): field order lost silently; stderr: \(outcome.stderr)")
            } else {
                #expect(kept, "\(output): H.264 output should stay interlaced, top field first; stderr: \(outcome.stderr)")
            }
        }
    }
}
