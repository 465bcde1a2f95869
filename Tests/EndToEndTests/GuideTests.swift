import Foundation
import Testing

/// Every guide in docs/guide runs: its ```sh blocks, in order, as one bash script (`set -euo
/// pipefail`) in a fresh folder holding a copy of samples/, with the built `videowm` first on
/// PATH. A guide whose example breaks fails here. Blocks fenced as ```sh not-run are shown but
/// not run (a cluster's sbatch or kubectl); the guide says why. A server a guide starts listens
/// on 127.0.0.1:8080 in the text and on a free port here.
@Suite("guides: every command in docs/guide runs on the bundled samples")
struct GuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let guides = root.appendingPathComponent("docs/guide")

    static var guideNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: guides.path)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
    }

    @Test("there are at least five guides with commands to run")
    func enoughGuides() throws {
        let runnable = try Self.guideNames.filter { !(try Self.runnableBlocks(of: $0)).isEmpty }
        #expect(runnable.count >= 5, "guides with commands: \(runnable)")
    }

    @Test("the guide's commands run", arguments: guideNames)
    func guideRuns(name: String) throws {
        let blocks = try Self.runnableBlocks(of: name)
        guard !blocks.isEmpty else { return }
        let h = try Harness()
        defer { h.cleanUp() }
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("samples"), to: h.directory.appendingPathComponent("samples"))
        let port = try NginxFront.freePort(h)
        let body = blocks.joined(separator: "\n").replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
        // Whatever a guide started in the background stops with it, even when a command fails.
        let script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + body + "\n"
        let path = try h.write("guide.sh", script)
        let binFolder = URL(fileURLWithPath: Harness.videowmPath).deletingLastPathComponent().path
        let pathVariable = binFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let started = Date()
        let result = try h.run("/bin/bash", [path], environment: ["PATH": pathVariable, "VIDEOWM_KEY_FILE": ""])
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, """
            docs/guide/\(name) failed (exit \(result.status)) after \(Int(seconds)) s; its stderr ends:
            \(result.stderr.split(separator: "\n").suffix(15).joined(separator: "\n"))
            """)
    }

    /// The ```sh blocks of a guide, without those marked not-run (or in another language).
    static func runnableBlocks(of name: String) throws -> [String] {
        let text = try String(contentsOf: guides.appendingPathComponent(name), encoding: .utf8)
        var blocks: [String] = []
        var inside: (runs: Bool, lines: [Substring])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let fence = line.trimmingPrefix(while: { $0 == " " }).hasPrefix("```")
            if let block = inside {
                if fence {
                    if block.runs { blocks.append(block.lines.joined(separator: "\n")) }
                    inside = nil
                } else {
                    inside?.lines.append(line)
                }
            } else if fence {
                inside = (line == "```sh", [])
            }
        }
        return blocks
    }
}
