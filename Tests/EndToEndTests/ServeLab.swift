import Foundation
import TestSupport
import Testing

/// A library with one real lecture (`intro`: 12 s of 320×240 at 30 fps, an IDR every 2 s,
/// B-frames, AAC; 2-s segments; each student's e-mail shown at 2.5–3.5 s and 8.5–9.5 s, so
/// segments 1 and 4 are a student's own and the other four shared), a token key, `videowm
/// serve` processes started on free ports, tokens made by PyJWT and requests made by curl:
/// the server judged by clients nobody here wrote.
final class ServeLab {
    let h: Harness
    let library: String
    let lecture: String
    let tokenKey: String
    static let config = #"""
    { "watermarks": [ { "text": "{email}", "size": 0.12, "opacity": 0.9, "anchor": "center",
                        "start": 2.5, "interval": 1000, "skip": 5000 } ] }
    """#
    /// The segments a student's mark shows in.
    static let ownSegments = [1, 4]
    static let segmentCount = 6

    init(_ h: Harness, width: Int = 320, height: Int = 240, seconds: Double = 12, rate: Int = 30) throws {
        self.h = h
        library = h.path("library")
        try FileManager.default.createDirectory(atPath: library + "/intro", withIntermediateDirectories: true)
        lecture = try h.makeClip("library/intro/lecture.mp4", width: width, height: height, rate: String(rate), seconds: seconds,
                                 extra: ["-preset", "veryfast", "-x264-params", "keyint=\(2 * rate):min-keyint=\(2 * rate):scenecut=0:bframes=2"])
        _ = try h.write("library/intro/marks.json", Self.config)
        _ = try h.write("library/intro/lecture.json", #"{ "video": "lecture.mp4", "config": "marks.json", "segment": 2 }"#)
        tokenKey = h.path("token.key")
        try Data("the platform's token key, thirty-two bytes or more".utf8).write(to: URL(fileURLWithPath: tokenKey))
        chmod(tokenKey, 0o600)
    }

    /// One token per student (`email`), for `lecture`, valid 10 minutes, made by PyJWT.
    func tokens(_ emails: [String], lecture: String = "intro", key: String? = nil) throws -> [String] {
        let claims = emails.map { "{'lecture': '\(lecture)', 'vars': {'email': '\($0)'}, 'exp': now + 600}" }
        let keyExpression = key.map { "'\($0)'.encode()" } ?? "open(\(Self.python(tokenKey)), 'rb').read()"
        let script = """
        import jwt, time
        now = int(time.time())
        key = \(keyExpression)
        for claims in [\(claims.joined(separator: ", "))]:
            print(jwt.encode(claims, key, algorithm='HS256'))
        """
        let r = try h.run("/usr/bin/env", ["python3", "-c", script])
        #expect(r.status == 0, "PyJWT: \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    static func python(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }

    /// `videowm serve` on this library and a free port, its log in a file, once it listens
    /// (`launcher`: a command that runs it, such as `prlimit --nofile=…`). Requests may wait 300 s
    /// for a render unless `extra` says otherwise: a debug build on a loaded 2-core machine
    /// renders a segment's variants in more than the default 20 s, and only the test of the bound
    /// is about the bound.
    func startServer(cache: String = "cache", workers: Int = 2, extra: [String] = [], tokenKeyFile: String? = nil,
                     launcher: [String] = []) throws -> ServeProcess {
        try ServeProcess(h, arguments: ["serve", library, "--token-key-file", tokenKeyFile ?? tokenKey, "--listen", "127.0.0.1:0",
                                        "--cache", cache.hasPrefix("/") ? cache : h.path(cache), "--workers", String(workers),
                                        "--max-wait", "300"] + extra,
                         launcher: launcher)
    }

    /// The lecture's playback URL path for a token.
    static func master(_ token: String) -> String { "/v1/intro/master.m3u8?token=" + token }

    /// The URIs a playlist names, the initialization segment first.
    static func uris(in playlist: String) -> [String] {
        let lines = playlist.split(separator: "\n").map(String.init)
        let map = lines.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).dropLast()) }
        return [map].compactMap { $0 } + lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    /// The segment index a served URI names ("…/source/4.m4s?token=…" → 4), nil for the init.
    static func segmentIndex(of uri: String) -> Int? {
        let path = uri.split(separator: "?")[0]
        guard path.hasSuffix(".m4s") else { return nil }
        return Int(path.split(separator: "/").last!.dropLast(4))
    }
}

/// A `videowm serve` process. Its stderr goes to a file (read for the port it listens on and
/// for log lines); a process still running when this goes away is killed.
final class ServeProcess: @unchecked Sendable {
    let process: ChildProcess
    let logFile: String
    private(set) var port = 0
    let h: Harness

    init(_ h: Harness, arguments: [String], launcher: [String] = []) throws {
        self.h = h
        logFile = h.path("serve-\(UUID().uuidString.prefix(8)).log")
        FileManager.default.createFile(atPath: logFile, contents: nil)
        let command = launcher + [Harness.videowmPath] + arguments
        process = try ChildProcess(command[0], Array(command.dropFirst()), directory: h.directory.path,
                                   stdout: .null, stderr: .file(logFile, flags: O_WRONLY | O_APPEND))
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && process.isRunning {
            let marker = "listening on http://127.0.0.1:"
            if let range = log.range(of: marker), let port = Int(log[range.upperBound...].prefix { $0.isNumber }) {
                self.port = port
                return
            }
            usleep(20_000)
        }
        throw HarnessError.toolFailed("videowm serve did not start: \(log)")
    }

    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }
    var base: String { "http://127.0.0.1:\(port)" }

    /// The sum of a metric's samples (every label set), from /metrics.
    func metric(_ name: String, labels: String = "") -> Double {
        let text = (try? h.run("curl", ["-s", "--max-time", "5", base + "/metrics"]).stdout) ?? ""
        return text.split(separator: "\n").reduce(0) { sum, line in
            guard !line.hasPrefix("#"), line.hasPrefix(name + labels + " ") || (labels.isEmpty && line.hasPrefix(name + "{")) else { return sum }
            return sum + (Double(line.split(separator: " ").last ?? "") ?? 0)
        }
    }

    /// Sends `signal` and waits for the exit (at most `seconds`); the exit status, or nil if it did not exit.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, within seconds: Double = 15) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// One HTTP exchange through curl.
struct Fetched {
    let status: Int
    let body: Data
    let headers: [String: String]
}

extension Harness {
    func fetch(_ url: String, headers: [String] = [], method: String = "GET") throws -> Fetched {
        let id = UUID().uuidString
        let bodyFile = path("body-\(id)"), headerFile = path("headers-\(id)")
        defer {
            try? FileManager.default.removeItem(atPath: bodyFile)
            try? FileManager.default.removeItem(atPath: headerFile)
        }
        var arguments = ["-s", "--path-as-is", "-o", bodyFile, "-D", headerFile, "--max-time", "60"]
        if method == "HEAD" { arguments.append("-I") }
        for header in headers { arguments += ["-H", header] }
        _ = try run("curl", arguments + [url])
        var status = 0
        var fields: [String: String] = [:]
        for line in ((try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? "").split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return Fetched(status: status, body: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data(), headers: fields)
    }
}

/// nginx in front of serve processes, run from the repository's own sample configuration
/// (samples/nginx/videowm-serve.conf) with its ports and paths rewritten into the test's folder:
/// what an operator deploys is what is tested.
final class NginxFront: @unchecked Sendable {
    private(set) var process: ChildProcess?
    let port: Int
    let prefix: String
    let h: Harness

    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples/nginx/videowm-serve.conf").path

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") }

    init(_ h: Harness, upstreams: [Int]) throws {
        self.h = h
        prefix = h.path("nginx")
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
        port = try Self.freePort(h)
        var text = try String(contentsOfFile: Self.sample, encoding: .utf8)
        func replace(_ old: String, _ new: String) throws {
            guard text.contains(old) else { throw HarnessError.toolFailed("\(Self.sample) no longer holds '\(old)'") }
            text = text.replacingOccurrences(of: old, with: new)
        }
        try replace("worker_processes auto;", "worker_processes 1;")
        try replace("pid /run/videowm-nginx.pid;", "pid \(prefix)/nginx.pid;")
        try replace("        server 127.0.0.1:8080;\n        server 127.0.0.1:8081;\n",
                    upstreams.map { "        server 127.0.0.1:\($0);\n" }.joined())
        try replace("/var/cache/videowm-nginx-auth", prefix + "/auth-cache")
        try replace("/var/cache/videowm-nginx", prefix + "/cache")
        try replace("listen 80;", "listen 127.0.0.1:\(port);")
        let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "    \($0)_temp_path \(prefix)/\($0)-temp;\n" }.joined()
        try replace("http {\n", "http {\n" + temporary)
        // As root, nginx's workers would run as nobody, who cannot write into the test's folder.
        if geteuid() == 0 { text = "user root;\n" + text }
        try text.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try ChildProcess("/usr/sbin/nginx", ["-p", prefix, "-c", prefix + "/nginx.conf", "-g", "daemon off;", "-e", prefix + "/logs/error.log"],
                                       stdout: .null, stderr: .null)
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && process.isRunning {
            if (try? h.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "2", base + "/healthz"]).stdout) == "200" { return }
            usleep(50_000)
        }
        throw HarnessError.toolFailed("nginx did not start: \((try? String(contentsOfFile: prefix + "/logs/error.log", encoding: .utf8)) ?? "")")
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// A port nobody listens on now (the kernel's choice for a socket bound to port 0).
    static func freePort(_ h: Harness) throws -> Int {
        let r = try h.run("/usr/bin/env", ["python3", "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        guard let port = Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw HarnessError.toolFailed(r.stderr) }
        return port
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGTERM)  // its workers stop with it
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}
