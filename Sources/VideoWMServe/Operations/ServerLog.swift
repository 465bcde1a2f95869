import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The server's log on stderr: one access line per request (method, path without the query,
/// status, bytes, seconds; never the token or a student's variables) and one line per event
/// an operator must see (a broken lecture, a failed render).
public final class ServerLog: @unchecked Sendable {
    private let lock = NSLock()
    private let write: @Sendable (String) -> Void

    /// Lines go to `write` (stderr by default; tests collect them).
    public init(write: @escaping @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }) {
        self.write = write
    }

    func access(_ record: HTTPExchangeRecord) {
        let path = Self.printable(record.request.path)
        let end = record.completed ? "" : " incomplete"
        line("\(record.client.isEmpty ? "-" : record.client) \"\(record.request.method) \(path)\" \(record.status) \(record.bodyBytes) \(String(format: "%.3f", record.seconds))s\(end)")
    }

    public func event(_ text: String) { line("videowm serve: " + text) }

    private func line(_ text: String) {
        let stamped = Self.timestamp() + " " + text
        lock.withLock { write(stamped) }
    }

    /// UTC, to the second, through the C library (no ICU calendar in the process).
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A path as it may be logged: control characters and quotes shown as `?`, at most 300 characters.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(300).map { $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" ? "?" : Character($0) })
    }
}
