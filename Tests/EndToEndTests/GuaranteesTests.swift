import Foundation
import TestSupport
import Testing

/// The contract's guarantees (docs/design/contract.md) under faults: interrupts, full disks, damaged and hostile inputs.
@Suite("guarantees under faults")
struct GuaranteesTests {
    func simpleConfig(_ h: Harness) throws -> String {
        try h.write("c.json", #"{ "watermarks": [ { "text": "guarantee", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#)
    }

    func partialFiles(_ h: Harness) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: h.directory.path).filter { $0.contains("videowm-partial") }
    }

    @Test("SIGINT and SIGTERM stop promptly, remove the temporary file, keep the existing output, exit 130",
          arguments: [SIGINT, SIGTERM])
    func interruptCleansUp(signal: Int32) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 20, audio: true)
        let config = try simpleConfig(h)
        let existing = try h.write("out.mp4", "precious")
        let process = try ChildProcess(Harness.videowmPath, ["transcode", input, existing, "-c", config, "-y", "--preset", "slow"],
                                       directory: h.directory.path, stderr: .null)
        // Wait until the temporary file exists (work has started), then interrupt.
        let deadline = Date().addingTimeInterval(30)
        while try partialFiles(h).isEmpty && Date() < deadline { usleep(20_000) }
        usleep(300_000)
        let sent = Date()
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(sent) < 5, "took \(Date().timeIntervalSince(sent)) s to stop")
        #expect(process.terminationStatus == 130)
        #expect(try partialFiles(h).isEmpty)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "precious")
    }

    @Test("a write error (file size limit, like a full disk) exits 74 and leaves no file")
    func writeErrorIsReported() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 4, audio: true)
        let config = try simpleConfig(h)
        // ulimit -f counts 1024-byte blocks: 64 KiB is far smaller than the output.
        let r = try h.run("/bin/bash", ["-c", "ulimit -f 64; exec \"$0\" \"$@\"", Harness.videowmPath, "transcode", input, h.path("out.mp4"), "-c", config])
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.contains("out.mp4"))
        #expect(!FileManager.default.fileExists(atPath: h.path("out.mp4")))
        #expect(try partialFiles(h).isEmpty)
    }

    @Test("a full disk (a 256 KB tmpfs) exits 74 and leaves neither a partial nor a final file",
          .enabled(if: getuid() == 0, "mounting a tmpfs needs root; the file-size-limit test covers write errors otherwise"))
    func fullDisk() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 640, height: 360, seconds: 4, audio: true)
        let mountPoint = h.path("small-disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try h.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "mount failed: \(mounted.stderr)")
        defer { _ = try? h.run("/bin/umount", [mountPoint]) }
        let r = try h.videowm("transcode", input, mountPoint + "/out.mp4", "-c", try simpleConfig(h))
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.contains("out.mp4"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint).isEmpty)
    }

    @Test("a video header declaring an absurd frame size is refused before decoding")
    func absurdFrameSize() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // A raw YUV4MPEG header is all it takes to declare 40000×40000.
        _ = try h.write("huge.y4m", "YUV4MPEG2 W40000 H40000 F25:1 Ip A1:1 C420jpeg\nFRAME\n")
        let r = try h.videowm("transcode", h.path("huge.y4m"), h.path("out.mp4"), "-c", try simpleConfig(h))
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("huge.y4m"))
    }

    @Test("a truncated MP4 (no index) fails with exit 65 and no output")
    func truncatedInput() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        // Without +faststart the index is at the end; cutting the file loses it.
        let input = try h.makeClip("in.mp4", seconds: 2, audio: true)
        let data = try Data(contentsOf: URL(fileURLWithPath: input))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: h.path("cut.mp4")))
        let r = try h.videowm("transcode", h.path("cut.mp4"), h.path("out.mp4"), "-c", try simpleConfig(h))
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("cut.mp4"))
        #expect(!FileManager.default.fileExists(atPath: h.path("out.mp4")))
    }

    @Test("damaged packets are concealed and reported, or fatal with --errors fail")
    func damagedPackets() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.ts", seconds: 3, audio: false, extra: ["-g", "15"])
        var data = try Data(contentsOf: URL(fileURLWithPath: input))
        // Scribble over payload bytes in the middle, keeping the 188-byte packet headers.
        var generator = SplitMix64(seed: 7)
        for packet in stride(from: data.count / 3, to: data.count / 2, by: 188 * 7) {
            for offset in 8..<180 where packet + offset < data.count {
                data[packet + offset] = UInt8(truncatingIfNeeded: generator.next())
            }
        }
        try data.write(to: URL(fileURLWithPath: h.path("damaged.ts")))
        let config = try simpleConfig(h)
        let warned = try h.videowm("transcode", h.path("damaged.ts"), h.path("ok.mp4"), "-c", config)
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains("damaged"), "\(warned.stderr)")
        #expect(FileManager.default.fileExists(atPath: h.path("ok.mp4")))
        let failed = try h.videowm("transcode", h.path("damaged.ts"), h.path("fail.mp4"), "-c", config, "--errors", "fail")
        #expect(failed.status == 65, "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("fail.mp4")))
        #expect(try partialFiles(h).isEmpty)
    }

    @Test("a playlist disguised as a video cannot make the tool read other files")
    func disguisedPlaylistIsRefused() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        _ = try h.makeClip("secret.ts", seconds: 1, audio: false)
        let playlist = try h.write("video.mp4", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nsecret.ts\n#EXT-X-ENDLIST\n")
        let r = try h.videowm("transcode", playlist, h.path("out.mp4"), "-c", try simpleConfig(h))
        #expect(r.status == 65, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("out.mp4")))
    }
}
