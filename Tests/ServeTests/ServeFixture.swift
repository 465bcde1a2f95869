import Foundation
import ServeAccess
import TestSupport
import VideoWM
@testable import VideoWMServe

/// A library in a temporary folder, a token key, and an origin server on a free loopback port
/// with the test renderer; requests go through curl and tokens are made by PyJWT (clients
/// nobody here wrote).
final class ServeFixture: @unchecked Sendable {
    let root: String
    let library: String
    let cacheFolder: String
    let tokenKey: [UInt8]
    var secretKey: SecretKey { SecretKey(bytes: tokenKey) }
    let indexer: TestIndexer
    var server: OriginServer!
    let logLines = LogLines()

    final class LogLines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    init(indexer: TestIndexer = TestIndexer(), workers: Int = 2, queue: Int = 16, cacheBytes: UInt64 = 1 << 30,
         http: HTTPDaemon.Settings = HTTPDaemon.Settings(), cacheFolder: String? = nil, startServer: Bool = true, warm: Bool = false) throws {
        root = NSTemporaryDirectory() + "videowm-serve-test-" + UUID().uuidString
        library = root + "/library"
        self.cacheFolder = cacheFolder ?? root + "/cache"
        tokenKey = Array("a token key of at least thirty-two bytes, for tests".utf8)
        self.indexer = indexer
        try Self.makeLecture(named: "intro", in: library)
        try Self.makeLecture(named: "other", in: library)
        if startServer { server = try start(workers: workers, queue: queue, cacheBytes: cacheBytes, http: http, warm: warm) }
    }

    func start(workers: Int = 2, queue: Int = 16, cacheBytes: UInt64 = 1 << 30, http: HTTPDaemon.Settings = HTTPDaemon.Settings(),
               warm: Bool = false) throws -> OriginServer {
        var settings = OriginServer.Settings(library: library, listen: ListenAddress("127.0.0.1:0")!, access: try AccessControl(keys: TokenKeySet(singleKey: secretKey)),
                                             cacheFolder: cacheFolder, cacheBytes: cacheBytes, workers: workers, queue: queue)
        settings.http = http
        settings.warm = warm
        let lines = logLines
        return try OriginServer(settings: settings, preparer: indexer, log: ServerLog { lines.append($0) })
    }

    static func makeLecture(named name: String, in library: String) throws {
        let folder = library + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("not read by the test renderer".utf8).write(to: URL(fileURLWithPath: folder + "/lecture.mp4"))
        try Data(#"{"watermarks":[{"text":"{email}"}]}"#.utf8).write(to: URL(fileURLWithPath: folder + "/marks.json"))
        try Data(#"{"video": "lecture.mp4", "config": "marks.json", "segment": 2}"#.utf8).write(to: URL(fileURLWithPath: folder + "/lecture.json"))
    }

    deinit {
        server?.drain(seconds: 1)
        try? FileManager.default.removeItem(atPath: root)
    }

    var base: String { "http://127.0.0.1:\(server.port)" }

    // MARK: Tokens

    /// Tokens made by PyJWT from Python expressions of their claims (`now` is the time),
    /// signed with the token key unless the expression says otherwise.
    func tokens(_ claims: [String], algorithm: String = "HS256", key: String? = nil) throws -> [String] {
        let keyText = key ?? String(decoding: tokenKey, as: UTF8.self)
        let script = """
        import jwt, sys, time, json
        now = int(time.time())
        key = \(Self.pythonString(keyText)).encode()
        for claims in [\(claims.joined(separator: ", "))]:
            print(jwt.encode(claims, key, algorithm=\(Self.pythonString(algorithm))))
        """
        return try Self.run("/usr/bin/env", ["python3", "-c", script]).split(separator: "\n").map(String.init)
    }

    func token(email: String = "ada@example.com", lecture: String = "intro", marked: String? = nil) throws -> String {
        let extra = marked.map { ", 'marked': '\($0)'" } ?? ""
        return try tokens(["{'lecture': '\(lecture)', 'vars': {'email': '\(email)'\(extra)}, 'exp': now + 600}"])[0]
    }

    static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    // MARK: Requests

    struct Response {
        let status: Int
        let headers: [String: String]
        let body: Data
        func header(_ name: String) -> String? { headers[name.lowercased()] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// One request through curl (`extra` are more curl arguments).
    func get(_ pathAndQuery: String, headers: [String] = [], method: String = "GET", extra: [String] = []) throws -> Response {
        let bodyFile = root + "/body-" + UUID().uuidString
        let headerFile = root + "/headers-" + UUID().uuidString
        defer {
            try? FileManager.default.removeItem(atPath: bodyFile)
            try? FileManager.default.removeItem(atPath: headerFile)
        }
        var arguments = ["-s", "--path-as-is", "-o", bodyFile, "-D", headerFile, "--max-time", "20"]
        if method == "HEAD" { arguments.append("-I") } else if method != "GET" { arguments += ["-X", method] }
        for header in headers { arguments += ["-H", header] }
        arguments += extra + [base + pathAndQuery]
        _ = try? Self.run("/usr/bin/curl", arguments)
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        var status = 0
        var fields: [String: String] = [:]
        for line in headerText.split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
                fields = [:]
            } else if let colon = line.firstIndex(of: ":") {
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return Response(status: status, headers: fields, body: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data())
    }

    /// The URIs a playlist lists (tags' URI attributes included).
    static func uris(in playlist: String) -> [String] {
        playlist.split(separator: "\n").compactMap { line -> String? in
            if line.hasPrefix("#EXT-X-MAP:URI=\"") { return String(line.dropFirst(16).dropLast()) }
            return line.hasPrefix("#") || line.isEmpty ? nil : String(line)
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        // Not Foundation's Process: its children inherit other tests' pipes (`ChildProcess`).
        try ChildProcess.run(executable, arguments).text
    }

    /// Polls `condition` until it holds; `seconds` only bounds a failing test (a loaded machine
    /// may be slow, so it is generous), it is never what a test relies on.
    func waitFor(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}
