import Foundation
import TestSupport
import Testing

/// Issue 43's idle crowds: thousands of connections that send nothing (a misbehaving proxy, a
/// port scan) against a real `videowm serve`.
@Suite("serve: idle crowds", .serialized)
struct ServeConnectionTests {
    /// A Python process holding `count` idle TCP connections to `port` (its descriptor limit
    /// raised as needed) until it goes. It reports how many the server closed within a second of
    /// opening, and how fast.
    final class IdleCrowd {
        let process: ChildProcess
        let opened: Int
        let closedAtOnce: Int
        let slowestClose: Double

        init(port: Int, count: Int) throws {
            let script = """
            import resource, select, socket, sys, time
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, \(count) + 256), hard))
            sockets = []
            for _ in range(\(count)):
                s = socket.socket()
                s.connect(('127.0.0.1', \(port)))
                sockets.append((s, time.monotonic()))
            closed, slowest, deadline = 0, 0.0, time.monotonic() + 1.0
            opened_at = {s.fileno(): t for s, t in sockets}
            by_fd = {s.fileno(): s for s, _ in sockets}
            poller = select.poll()
            for fd in by_fd: poller.register(fd, select.POLLIN)
            while by_fd and time.monotonic() < deadline:
                for fd, _ in poller.poll(50):
                    try:
                        data = by_fd[fd].recv(1)
                    except OSError:
                        data = b''
                    if data == b'':
                        slowest = max(slowest, time.monotonic() - opened_at[fd])
                        closed += 1
                        poller.unregister(fd)
                        del by_fd[fd]
            print(len(sockets), closed, round(slowest, 3), flush=True)
            sys.stdin.read()
            """
            process = try ChildProcess("/usr/bin/env", ["python3", "-c", script], stdin: .pipe, stdout: .pipe, stderr: .pipe)
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let more = process.output?.availableData ?? Data()
                if more.isEmpty { break }
                line += more
            }
            let fields = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
            guard fields.count == 3, let opened = Int(fields[0]), let closed = Int(fields[1]), let slowest = Double(fields[2]) else {
                throw HarnessError.toolFailed("idle crowd: \(String(decoding: process.errors?.availableData ?? Data(), as: UTF8.self))")
            }
            self.opened = opened
            closedAtOnce = closed
            slowestClose = slowest
        }

        /// Closes every connection.
        func disperse() {
            try? process.input?.close()
            process.waitUntilExit()
        }

        deinit { disperse() }
    }

    @Test("3,000 idle connections: /healthz within 2 s, a new student's playlist and first segment; past the descriptor limit new connections are closed at once and logged")
    func idleCrowdsDoNotStopTheServer() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try ServeLab(h)
        let server = try lab.startServer()
        let crowd = try IdleCrowd(port: server.port, count: 3000)
        #expect(crowd.opened == 3000 && crowd.closedAtOnce == 0)
        let started = Date()
        let health = try h.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "2", server.base + "/healthz"])
        #expect(health.stdout == "200" && Date().timeIntervalSince(started) < 2, "\(health.stdout) after \(Date().timeIntervalSince(started)) s")
        let token = try lab.tokens(["newcomer@example.com"])[0]
        let playlist = try h.fetch(server.base + ServeLab.master(token))
        #expect(playlist.status == 200)
        let uris = ServeLab.uris(in: String(decoding: playlist.body, as: UTF8.self))
        #expect(try h.fetch(server.base + uris[1]).status == 200)
        #expect(server.metric("videowm_http_connections") >= 3000)
        crowd.disperse()
        #expect(server.stop() == 0)

        // A process allowed 512 descriptors: 128 connections fit (two descriptors each, 256 kept
        // for the rest), said at the start; the rest of a crowd of 300 is closed at once.
        let limited = try lab.startServer(launcher: ["/usr/bin/prlimit", "--nofile=512:512", "--"])
        #expect(limited.log.contains("--max-connections 4096 lowered to 128"), "\(limited.log)")
        let over = try IdleCrowd(port: limited.port, count: 300)
        #expect(over.closedAtOnce >= 170 && over.slowestClose < 0.5, "\(over.closedAtOnce) closed, slowest \(over.slowestClose) s")
        #expect(try h.fetch(limited.base + "/healthz").status == 0)  // refused too while the crowd holds every place
        over.disperse()
        let healthy = try poll(within: 5) { try h.fetch(limited.base + "/healthz").status == 200 }
        #expect(healthy != nil)
        #expect(limited.metric("videowm_http_connections_refused_total") >= 170)
        #expect(limited.log.components(separatedBy: "connection limit reached").count == 2, "\(limited.log)")
        #expect(try poll(within: 5) { limited.log.contains("connections accepted again") } != nil)
        #expect(limited.stop() == 0)
    }
}
