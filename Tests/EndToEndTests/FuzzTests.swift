import Foundation
import TestSupport
import Testing

/// Issue 19's fuzz test: configs, CSVs and image headers mutated from a fixed seed, each
/// run on the built binary. It asserts only what must hold for any input at all: the run
/// ends by itself, by an exit code (never a signal), with one of the documented codes,
/// within its time limit, and leaves no temporary file.
///
/// `VIDEOWM_FUZZ_SECONDS` (default 60) bounds the whole test; `VIDEOWM_FUZZ_SEED` (default 19)
/// picks the sequence. A failing input is kept under `/tmp/videowm-fuzz-failures/` to replay.
@Suite("reliability: fuzzing")
struct FuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let budgetSeconds = environment["VIDEOWM_FUZZ_SECONDS"].flatMap(Double.init) ?? 60
    static let seed = environment["VIDEOWM_FUZZ_SEED"].flatMap(UInt64.init) ?? 19

    static let configs = [
        ##"{ "watermarks": [ { "text": "{email}", "size": 0.05, "color": "#FFFFFF", "opacity": 0.5, "y": 50, "animation": { "type": "pingPong", "duration": 10000 } } ] }"##,
        ##"{ "watermarks": [ { "image": "logo.png", "size": 0.16, "anchor": "top-right", "opacity": 0.8 }, { "text": "CONFIDENTIAL", "tile": { "angle": -30, "spacing": 0.12 }, "opacity": 0.15 } ] }"##,
        ##"{ "watermarks": [ { "text": "{name} ({id})", "outline": { "width": 0.004, "color": "#000" }, "shadow": { "x": 0.002, "y": 0.002, "blur": 0.004, "color": "#80000000" }, "box": { "color": "#99000000", "padding": 0.01, "radius": 0.005 }, "start": 0, "end": 5, "interval": 1000, "skip": 500, "fade": 200, "unless": { "plan": ["premium"] } } ] }"##,
        ##"{ "watermarks": [ { "text": "{email}", "textSize": 14, "color": 4294967295, "x": 20, "y": 80, "animation": { "type": "random", "duration": 2000, "seed": 7, "ease": 300 } }, { "imageUrl": "logo.jpg", "width": 40, "height": 20 } ] }"##,
    ]

    static let csv = "email,name,id,plan\r\nada@example.com,\"Lovelace, Ada\",1,free\r\nbob@example.com,Bob,2,premium\r\n\"c\"\"q\"\"@x.org\",\"multi\nline\",3,free\r\n"

    /// Values that tend to find edges: extremes, non-numbers, structure characters.
    static let interesting: [String] = [
        "0", "-0", "-1", "1e400", "-1e400", "1e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "4294967296", "NaN", "Infinity", "null", "true", "\"\"", "[]", "{}", "\"\\u0000\"", "\"\\ud800\"", "{{", "}}", "{x}",
        "\u{202E}", "\n", "\"", ",", ":", "[", "]", "{", "}", "\\", String(repeating: "A", count: 5000), "0.5", "100",
    ]

    struct Seeds {
        var files: [String: [UInt8]] = [:]
    }

    func makeSeeds(_ h: Harness) throws -> Seeds {
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", h.path("in.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=32x16", "-frames:v", "1", h.path("logo.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=blue:size=32x16", "-frames:v", "1", h.path("logo.jpg")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", h.path("seed.jpg")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", "-c:v", "libwebp", h.path("seed.webp")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.3", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", h.path("tiny.mp4")])
        try FileManager.default.createDirectory(atPath: h.path("rows"), withIntermediateDirectories: true)
        var seeds = Seeds()
        for name in ["in.png", "seed.jpg", "seed.webp"] {
            seeds.files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: h.path(name))))
        }
        return seeds
    }

    /// One random change: flip bits, overwrite, insert, delete, duplicate, splice an interesting value, truncate.
    static func mutate(_ input: [UInt8], _ random: inout SplitMix64, headerBytes: Int? = nil) -> [UInt8] {
        var bytes = input
        let rounds = 1 + random.below(4)
        for _ in 0..<rounds {
            let span = max(1, min(bytes.count, headerBytes ?? bytes.count))
            let at = random.below(span)
            switch random.below(8) {
            case 0 where !bytes.isEmpty:
                bytes[at] ^= UInt8(1 << random.below(8))
            case 1 where !bytes.isEmpty:
                bytes[at] = [0x00, 0xFF, 0x7F, 0x80, 0x22, 0x7B, 0x5B, 0x2C, 0x0A, 0x5C][random.below(10)]
            case 2:
                bytes.insert(contentsOf: (0..<(1 + random.below(8))).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            case 3 where bytes.count > 1:
                bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(16)))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, at + 1 + random.below(64))
                bytes.insert(contentsOf: bytes[at..<end], at: end)
            case 5, 6:
                // Replace a number or a token with an interesting value.
                let value = Array(interesting[random.below(interesting.count)].utf8)
                let end = min(bytes.count, at + random.below(6))
                bytes.replaceSubrange(at..<end, with: value)
            default:
                if headerBytes == nil || random.below(4) == 0 { bytes = Array(bytes.prefix(at)) }
            }
        }
        return bytes
    }

    @Test("mutated configs, CSVs and image headers: every run ends by an exit code within its time limit")
    func fuzz() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let seeds = try makeSeeds(h)
        var random = SplitMix64(seed: Self.seed)
        let started = Date()
        var runs = 0
        var statuses: [Int32: Int] = [:]
        while Date().timeIntervalSince(started) < Self.budgetSeconds {
            runs += 1
            let kind = random.below(3)
            let input: [UInt8], name: String, arguments: [String], limit: Double
            switch kind {
            case 0:
                name = "fuzz.json"
                input = Self.mutate(Array(Self.configs[random.below(Self.configs.count)].utf8), &random)
                arguments = ["stamp", "in.png", "-o", "out.png", "-c", name, "--var", "email=e@x", "--var", "name=N", "--var", "id=1",
                             "--var", "plan=free", "-y"]
                limit = 10
            case 1:
                name = "fuzz.csv"
                input = Self.mutate(Array(Self.csv.utf8), &random)
                _ = try h.write("batch.json", Self.configs[2])
                arguments = ["batch", "tiny.mp4", "-c", "batch.json", "--vars", name, "--output", "rows/{id}.mp4", "-j", "2",
                             "--preset", "ultrafast", "--force"]
                limit = 30
            default:
                let seedName = ["in.png", "seed.jpg", "seed.webp"][random.below(3)]
                name = "fuzz." + (seedName as NSString).pathExtension
                input = Self.mutate(seeds.files[seedName]!, &random, headerBytes: 96)
                if random.below(2) == 0 {
                    _ = try h.write("logo-fuzz.json", #"{ "watermarks": [ { "image": "\#(name)", "size": 0.3 } ] }"#)
                    arguments = ["stamp", "in.png", "-o", "out.png", "-c", "logo-fuzz.json", "-y"]
                } else {
                    _ = try h.write("text.json", #"{ "watermarks": [ { "text": "fuzz", "size": 0.1 } ] }"#)
                    arguments = ["stamp", name, "-o", "out.jpg", "-c", "text.json", "-y"]
                }
                limit = 10
            }
            try Data(input).write(to: URL(fileURLWithPath: h.path(name)))
            let outcome = try h.shell("exec " + Harness.commandLine(arguments), timeout: limit)
            statuses[outcome.exitStatus ?? -(outcome.signal ?? 999), default: 0] += 1
            let ok = !outcome.timedOut && outcome.signal == nil && [0, 64, 65, 66, 71, 73, 74].contains(outcome.exitStatus ?? -1)
                && h.partialFiles().isEmpty
            if !ok {
                let kept = keep(input, name: name, run: runs)
                Issue.record("run \(runs) (\(arguments.joined(separator: " "))): \(outcome); temporary files: \(h.partialFiles()); input kept at \(kept)")
                for partial in h.partialFiles() { try? FileManager.default.removeItem(atPath: h.path(partial)) }
            }
        }
        let minutes = Date().timeIntervalSince(started) / 60
        print("fuzz: seed \(Self.seed), \(runs) runs in \(String(format: "%.1f", minutes * 60)) s (\(Int(Double(runs) / minutes)) runs/minute); exit codes \(statuses.sorted { $0.key < $1.key })")
        #expect(runs > 10, "too few runs to mean anything")
    }

    private func keep(_ input: [UInt8], name: String, run: Int) -> String {
        let folder = "/tmp/videowm-fuzz-failures"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/seed\(Self.seed)-run\(run)-\(name)"
        try? Data(input).write(to: URL(fileURLWithPath: path))
        return path
    }
}
