import Foundation
import Testing

/// docs/design/contract.md: "Same config, same input, same variables: same pixels, every run", judged on whole files (MP4
/// writes no time stamp or random id, so identical runs give identical bytes).
///
/// The inputs are 320 pixels wide (20 macroblocks, not a multiple of 8) and encoded with x264's default
/// preset and B-frames, the case where libx264's AVX-512 macroblock-tree pass read memory it never wrote,
/// and the rate is matched with a decoder-buffer model, whose frame threads made the quantiser depend
/// on timing (Media/X264Determinism.swift). Before the fix, two runs of the smart job below differed from
/// the second re-encoded span on, on a machine with AVX-512 (and from the first with frame threads).
@Suite("reproducibility, end to end")
struct ReproducibilityTests {
    /// A yellow e-mail across the middle, shown `timing`.
    func config(_ h: Harness, _ timing: String) throws -> String {
        try h.write("config.json", """
        { "watermarks": [ { "text": "{email}", "size": 0.1, "anchor": "center", "opacity": 1, "color": "#FFFF00", \(timing) } ] }
        """)
    }

    /// 12 s of moving test pattern in 1-s closed GOPs with B-frames, AAC audio.
    func clip(_ h: Harness) throws -> String {
        try h.makeClip("in.mp4", seconds: 12, extra: ["-preset", "veryfast", "-x264-params", "keyint=30:min-keyint=30:scenecut=0"])
    }

    func bytes(_ file: String) -> Data? { FileManager.default.contents(atPath: file) }

    @Test("a smart render with three separate spans, x264's default preset, B-frames and the input's rate: the same bytes twice")
    func smartTwice() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try clip(h)
        // Shown 0.5–1.5, 4.5–5.5 and 8.5–9.5 s: three spans of two GOPs each, copied GOPs between them.
        let config = try config(h, #""start": 0.5, "interval": 1000, "skip": 3000"#)
        for run in 1...2 {
            let result = try h.videowm("transcode", input, h.path("out\(run).mp4"), "-c", config, "--var", "email=a@example.com",
                                       "--render", "smart")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("re-encoded 6.0 s of 12.0 s (50%)"), "stderr: \(result.stderr)")
        }
        #expect(bytes(h.path("out1.mp4")) != nil && bytes(h.path("out1.mp4")) == bytes(h.path("out2.mp4")))
    }

    @Test("a full render, at constant quality and with --maxrate/--bufsize: the same bytes twice", arguments: [
        [String](), ["--bitrate", "400k", "--maxrate", "600k", "--bufsize", "800k"],
    ])
    func fullTwice(options: [String]) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 6, audio: false, extra: ["-preset", "veryfast"])
        let config = try config(h, #""start": 1"#)
        for run in 1...2 {
            let result = try h.videowm(arguments: ["transcode", input, h.path("out\(run).mp4"), "-c", config, "--var", "email=a@example.com",
                                                   "--render", "full"] + options)
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
        #expect(bytes(h.path("out1.mp4")) != nil && bytes(h.path("out1.mp4")) == bytes(h.path("out2.mp4")))
    }

    @Test("batch rows rendered in parallel, smart and full: every row the same bytes twice", arguments: ["smart", "full"])
    func batchTwice(render: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try clip(h)
        let config = try config(h, #""start": 0.5, "interval": 1000, "skip": 3000"#)
        let csv = try h.write("rows.csv", "id,email\n1,a@example.com\n2,b@example.com\n3,c@example.com\n")
        for run in 1...2 {
            try FileManager.default.createDirectory(atPath: h.path("run\(run)"), withIntermediateDirectories: true)
            let result = try h.videowm("batch", input, "-c", config, "--vars", csv, "--output", h.path("run\(run)/{id}.mp4"), "-j", "3",
                                       "--render", render)
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
        for row in 1...3 {
            let first = bytes(h.path("run1/\(row).mp4")), second = bytes(h.path("run2/\(row).mp4"))
            #expect(first != nil && first == second, "row \(row)")
        }
    }
}
