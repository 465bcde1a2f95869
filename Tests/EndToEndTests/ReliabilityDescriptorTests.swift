import Foundation
import Testing

/// Issue 19, a low open-file limit (`ulimit -n`): a batch lowers how many outputs share a
/// decode to what the limit holds, and whatever still cannot open a file says "too many open
/// files" (71), never that a font is missing, the config is wrong or the input unreadable.
@Suite("reliability: open-file limit", .serialized)
struct ReliabilityDescriptorTests {
    /// The descriptors a child holds other than stdin, stdout and stderr, as `ls -l` of its
    /// /proc/PID/fd lists them (less the one `ls` reads that folder through).
    static func inheritedDescriptors(_ listing: String) -> [String] {
        listing.split(separator: "\n").filter { line in
            guard let name = line.split(separator: " ").dropLast(2).last, let fd = Int(name) else { return false }
            return fd > 2 && !(line.hasSuffix("/fd") && line.contains("-> /proc/"))
        }.map(String.init)
    }

    /// The limit tests below count on it: a child's open-file limit is its own, as in a shell.
    @Test("a child the harness starts holds only stdin, stdout and stderr, also while other children run")
    func childrenInheritNoDescriptors() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Children of both kinds running meanwhile, as in the parallel suite: their pipes exist in this process.
        let others = try (0..<3).map { _ in try h.start("sleep 3") }
        let threads = (0..<3).map { _ in Thread { _ = try? Harness().run("/bin/sleep", ["3"]) } }
        threads.forEach { $0.start() }
        usleep(300_000)
        let script = #"exec ls -l /proc/$$/fd"#
        let started = try h.shell(script)
        let run = try h.run("/bin/sh", ["-c", script])
        #expect(Self.inheritedDescriptors(started.stdout).isEmpty, "Harness.start: \(started.stdout)")
        #expect(Self.inheritedDescriptors(run.stdout).isEmpty, "Harness.run: \(run.stdout)")
        for other in others { _ = other.wait(timeout: 10) }
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
    }

    /// A text layer in a named font (fontconfig and FreeType open files for it) and a logo.
    func prepare(_ h: Harness) throws -> (input: String, config: String, csv: String) {
        let input = try h.makeClip("in.mp4", seconds: 1)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x64", "-frames:v", "1", h.path("logo.png")])
        let config = try h.write("c.json", #"{ "watermarks": [ { "text": "row {id}", "font": "DejaVu Serif", "size": 0.08, "anchor": "center" }, "#
                                 + #"{ "image": "logo.png", "size": 0.1, "anchor": "top-left" } ] }"#)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let csv = try h.write("rows.csv", "id\n" + (1...8).map(String.init).joined(separator: "\n") + "\n")
        return (input, config, csv)
    }

    @Test("batch -j 8 under ulimit -n 16 completes every row in smaller groups, with a notice")
    func batchFitsTheLimit() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, config, csv) = try prepare(h)
        let batch = Harness.commandLine(["batch", input, "-c", config, "--vars", csv, "--output", "out/{id}.mp4", "-j", "8", "--preset", "ultrafast"])
        let outcome = try h.shell("ulimit -n 16 && exec \(batch)", timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(outcome.errorLines.filter { $0.contains("lowered to") && $0.contains("ulimit -n 16") }.count == 1, "\(outcome.stderr)")
        for id in 1...8 { #expect(try h.videoFrameCount(h.path("out/\(id).mp4")) == 30, "row \(id)") }
        #expect(h.partialFiles().isEmpty)
    }

    @Test("under every open-file limit from 4 to 15, transcode and batch end with 0 or 71 saying too many open files")
    func exhaustionIsReportedAsSuch() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let (input, config, csv) = try prepare(h)
        var failures = 0
        for limit in 4...15 {
            for (name, arguments) in [("transcode", ["transcode", input, "out.mp4", "-c", config, "--var", "id=7", "--preset", "ultrafast", "-y"]),
                                      ("batch", ["batch", input, "-c", config, "--vars", csv, "--output", "out/{id}.mp4", "-j", "8",
                                                 "--preset", "ultrafast", "--force"])] {
                let outcome = try h.shell("ulimit -n \(limit) && exec \(Harness.commandLine(arguments))", timeout: 120)
                let what = "\(name) under ulimit -n \(limit)"
                // The dynamic loader itself may not get the descriptors it needs to start the binary.
                if outcome.exitStatus == 127 && outcome.stderr.contains("error while loading shared libraries") { continue }
                #expect(outcome.signal == nil && !outcome.timedOut, "\(what): \(outcome)")
                #expect(outcome.exitStatus == 0 || outcome.exitStatus == 71, "\(what): \(outcome)")
                #expect(!outcome.stderr.contains("Fontconfig") && !outcome.stderr.contains("font family")
                        && !outcome.stderr.contains("cannot be used"), "\(what): blamed on the font: \(outcome.stderr)")
                if outcome.exitStatus == 71 {
                    failures += 1
                    let errors = outcome.errorLines.filter { $0.hasPrefix("videowm: error: ") }
                    #expect(!errors.isEmpty && errors.allSatisfy { $0.lowercased().contains("too many open files") }, "\(what): \(outcome.stderr)")
                }
                #expect(h.partialFiles().isEmpty, "\(what): \(h.partialFiles())")
            }
        }
        // The sweep must reach limits where the files run out, or it proves nothing.
        #expect(failures > 0, "no limit in the sweep ran out of descriptors")
    }
}
