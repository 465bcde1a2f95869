import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, hostile inputs: files that are not files, a server that trickles, a video cut
/// short after its header, an animated logo. Each ends by itself, quickly, with one line
/// naming the file.
@Suite("reliability: hostile inputs")
struct ReliabilityInputTests {
    func textConfig(_ h: Harness) throws -> String {
        try h.write("c.json", #"{ "watermarks": [ { "text": "input", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#)
    }

    func logoConfig(_ h: Harness, image: String, name: String = "logo.json") throws -> String {
        try h.write(name, #"{ "watermarks": [ { "image": "\#(image)", "size": 0.2, "anchor": "top-right" } ] }"#)
    }

    func picture(_ h: Harness) throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1", h.path("in.png")])
        return h.path("in.png")
    }

    @Test("an image layer or a still input that is a FIFO, a device or a folder is refused (66) at once, naming it")
    func nonRegularImages() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try picture(h)
        #expect(mkfifo(h.path("silent.png"), 0o644) == 0)
        #expect(mkfifo(h.path("held.png"), 0o644) == 0)
        try FileManager.default.createDirectory(atPath: h.path("folder.png"), withIntermediateDirectories: true)
        // "held.png" has a writer that never writes: opening succeeds, reading would block forever.
        let holdWriter = "sleep 60 > held.png & "
        for (image, setup) in [("silent.png", ""), ("held.png", holdWriter), ("/dev/zero", ""), ("/dev/urandom", ""),
                               ("/dev/null", ""), ("folder.png", "")] {
            let config = try logoConfig(h, image: image)
            let asLogo = try h.shell(setup + "exec " + Harness.commandLine(["stamp", input, "-o", "out.png", "-c", config]))
            expectCleanFailure(asLogo, status: 66, naming: image, in: h)
            #expect(!FileManager.default.fileExists(atPath: h.path("out.png")))
            let asInput = try h.shell(setup + "exec " + Harness.commandLine(["stamp", image, "-o", "out.png", "-c", try textConfig(h)]))
            expectCleanFailure(asInput, status: 66, naming: image, in: h)
        }
        // Video commands take the same logo through the same reader.
        let clip = try h.makeClip("in.mp4", seconds: 1)
        let video = try h.shell("exec " + Harness.commandLine(["transcode", clip, "out.mp4", "-c", try logoConfig(h, image: "silent.png")]))
        expectCleanFailure(video, status: 66, naming: "silent.png", in: h)
    }

    /// A tiny HTTP server that sends a PNG's headers at once, then its body one byte every
    /// 0.3 s: every single read makes progress, only a total deadline can stop it.
    static let tricklingServer = #"""
    import socket, sys, threading, time
    body = open(sys.argv[1], "rb").read()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(server.getsockname()[1]))
    import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    def serve(conn):
        try:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n" % len(body))
            for byte in body:
                conn.sendall(bytes([byte]))
                time.sleep(0.3)
        except OSError:
            pass
        finally:
            conn.close()
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
    """#

    @Test("an http logo served one byte at a time ends at the fetch's total deadline: 66 naming the URL")
    func tricklingHTTPLogo() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try picture(h)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=64x64", "-frames:v", "1", h.path("logo.png")])
        let script = try h.write("trickle.py", Self.tricklingServer)
        let server = try h.start("exec python3 \(Harness.quoted(script)) logo.png port.txt")
        defer { kill(-server.pid, SIGKILL); _ = server.wait(timeout: 1) }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: h.path("port.txt")) && Date() < deadline { usleep(20_000) }
        let port = try String(contentsOfFile: h.path("port.txt"), encoding: .utf8)
        let url = "http://127.0.0.1:\(port)/logo.png"
        let config = try logoConfig(h, image: url)
        // The deadline is the documented VIDEOWM_FETCH_TIMEOUT, shortened for the test.
        let outcome = try h.shell(Harness.commandLine(["stamp", input, "-o", "out.png", "-c", config]),
                                  environment: ["VIDEOWM_FETCH_TIMEOUT": "3"], timeout: 30)
        expectCleanFailure(outcome, status: 66, naming: url, in: h)
        #expect(outcome.stderr.contains("3 s"), "the line should say which deadline passed: \(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("out.png")))
    }

    @Test("a video cut to its first 4 KB is unreadable input (65), never an audio-only success",
          arguments: ["mp4", "mkv", "ts", "mov"])
    func fourKilobyteVideo(container: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let full = try h.makeClip("full.\(container)", seconds: 2, extra: container == "mp4" || container == "mov" ? ["-movflags", "+faststart"] : [])
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        try data.prefix(4096).write(to: URL(fileURLWithPath: h.path("cut.\(container)")))
        let outcome = try h.shell("exec " + Harness.commandLine(["transcode", "cut.\(container)", "out.mp4", "-c", try textConfig(h)]))
        expectCleanFailure(outcome, status: 65, naming: "cut.\(container)", in: h)
        #expect(!FileManager.default.fileExists(atPath: h.path("out.mp4")))
    }

    @Test("an animated WebP logo is used, or refused with a line that says it is animated (not \"not an image\")")
    func animatedWebPLogo() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try picture(h)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x64:rate=5:duration=1", "-c:v", "libwebp", "-loop", "0", h.path("anim.webp")])
        let outcome = try h.shell(Harness.commandLine(["stamp", input, "-o", "out.png", "-c", try logoConfig(h, image: "anim.webp")]))
        if outcome.exitStatus == 0 {
            #expect(FileManager.default.fileExists(atPath: h.path("out.png")))
        } else {
            expectCleanFailure(outcome, status: 65, naming: "anim.webp", in: h)
            #expect(outcome.stderr.contains("animated") && !outcome.stderr.contains("not an image"), "\(outcome.stderr)")
        }
    }
}
