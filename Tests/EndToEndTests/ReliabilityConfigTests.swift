import Foundation
import Testing

/// Issue 19, configs: far too large (refused by stated limits before any work), malformed
/// JSON (placed at its line and column), keys given twice (named by their path).
@Suite("reliability: configs")
struct ReliabilityConfigTests {
    func picture(_ h: Harness) throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1", h.path("in.png")])
        return h.path("in.png")
    }

    @Test("a 50 MB config (about 400,000 layers) is refused by its stated limits before any work (64, fast)")
    func hugeConfig() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try picture(h)
        let clip = try h.makeClip("in.mp4", seconds: 1)
        var text = "{ \"watermarks\": [\n"
        let layer = #"{ "text": "layer number %06d of a config far too large to be any watermark", "size": 0.04, "opacity": 0.5, "x": 10, "y": 20 }"#
        text.reserveCapacity(56_000_000)
        for i in 0..<400_000 { text += (i == 0 ? "" : ",\n") + String(format: layer, i) }
        text += "\n] }\n"
        let huge = try h.write("huge.json", text)
        #expect(text.utf8.count > 50_000_000)
        for arguments in [["stamp", input, "-o", "out.png", "-c", huge], ["transcode", clip, "out.mp4", "-c", huge]] {
            let outcome = try h.shell("exec " + Harness.commandLine(arguments))
            expectCleanFailure(outcome, status: 64, naming: "huge.json", within: 5, in: h)
        }
        // Small in bytes, too many layers all the same.
        let many = try h.write("many.json", "{\"watermarks\":[" + Array(repeating: "{\"text\":\"x\"}", count: 5000).joined(separator: ",") + "]}")
        let tooMany = try h.shell("exec " + Harness.commandLine(["stamp", input, "-o", "out.png", "-c", many]))
        expectCleanFailure(tooMany, status: 64, naming: "many.json", within: 5, in: h)
        #expect(tooMany.stderr.contains("watermarks"), "\(tooMany.stderr)")
        // One layer whose text is far too long to be a mark.
        let long = try h.write("long.json", "{\"watermarks\":[{\"text\":\"" + String(repeating: "long ", count: 40_000) + "\"}]}")
        let tooLong = try h.shell("exec " + Harness.commandLine(["stamp", input, "-o", "out.png", "-c", long]))
        expectCleanFailure(tooLong, status: 64, naming: "watermarks[0].text", within: 5, in: h)
    }

    @Test("malformed JSON is reported as \"not valid JSON at line L, column C\" with the right place",
          arguments: [
            ("{\n  \"watermarks\": [\n    { \"text\": \"a\", \"size\": 1e400 }\n  ]\n}\n", 3, 28),
            ("{\n  \"watermarks\": [ { \"text\": \"caf\u{FFFF}e\" } ]\n}\n", 2, 33),
            ("{\n  \"watermarks\": [ { \"text\": \"a\" } ]\n}\n}x\n", 4, 1),
            ("{\n  \"watermarks\": [ { \"text\": \"a\" },\n ]\n}\n", 3, 2),
            ("{\n  \"watermarks\": [ { \"text\": \"a\u{0}b\" } ]\n}\n", 2, 31),
          ])
    func malformedJSON(text: String, line: Int, column: Int) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        _ = try picture(h)
        // \u{FFFF} stands for a byte that is not UTF-8 at all.
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar == "\u{FFFF}" { bytes.append(0xFF) } else { bytes += Array(String(scalar).utf8) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: h.path("bad.json")))
        let outcome = try h.shell(Harness.commandLine(["stamp", "in.png", "-o", "out.png", "-c", "bad.json"]))
        expectCleanFailure(outcome, status: 64, naming: "bad.json", in: h)
        #expect(outcome.stderr.contains("not valid JSON at line \(line), column \(column)"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("Debug") && !outcome.stderr.contains("DecodingError"), "\(outcome.stderr)")
    }

    @Test("a duplicate key is an error naming its path", arguments: [
        ("{ \"watermarks\": [ { \"text\": \"a\", \"size\": 0.05, \"text\": \"b\" } ] }", "watermarks[0].text"),
        ("{ \"watermarks\": [], \"watermarks\": [ { \"text\": \"b\" } ] }", "watermarks"),
        ("{ \"watermarks\": [ { \"text\": \"a\", \"box\": { \"padding\": 0.1, \"padding\": 0.2 } } ] }", "watermarks[0].box.padding"),
    ])
    func duplicateKeys(text: String, path: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        _ = try picture(h)
        _ = try h.write("dup.json", text)
        let outcome = try h.shell(Harness.commandLine(["stamp", "in.png", "-o", "out.png", "-c", "dup.json"]))
        expectCleanFailure(outcome, status: 64, naming: "dup.json: \(path)", in: h)
        #expect(outcome.stderr.contains("duplicate"), "\(outcome.stderr)")
    }
}
