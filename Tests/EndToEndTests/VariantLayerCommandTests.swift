import Foundation
import Testing

/// Variant layers before batch, HLS and serve pick each student's variants (issue 29, phase 2):
/// a job that would make a student's copy refuses the layer (64, naming it) rather than give every
/// copy variant 0 and no code; a preview draws variant 0.
@Suite("variant layers: commands")
struct VariantLayerCommandTests {
    @Test func studentCopiesRefuseTheVariantLayerAndPreviewsDrawIt() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("in.mp4", seconds: 1)
        let config = try h.write("variants.json", #"""
            { "watermarks": [ { "text": "{email}", "y": 80 },
                              { "text": "CS 101", "tile": { "angle": -30 }, "opacity": 0.15, "variants": { "count": 4, "seconds": 2 } } ] }
            """#)
        let csv = try h.write("students.csv", "email\na@example.edu\n")
        for arguments in [["transcode", clip, "out.mp4", "-c", config, "--var", "email=a@example.edu"],
                          ["batch", clip, "--vars", csv, "-c", config, "-o", "out-{row}.mp4"]] {
            let outcome = try h.shell("exec " + Harness.commandLine(arguments))
            expectCleanFailure(outcome, status: 64, naming: "watermarks[1].variants", in: h)
        }
        let preview = try h.shell("exec " + Harness.commandLine(["thumbnail", clip, h.path("thumb.png"), "--at", "0.5", "-c", config,
                                                                 "--var", "email=a@example.edu"]))
        #expect(preview.exitStatus == 0, "\(preview.stderr)")
    }
}
