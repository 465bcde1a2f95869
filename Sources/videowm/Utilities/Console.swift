import Foundation
import VideoWM

/// Where the tool talks to people: stderr for messages, with verbosity.
final class Console: @unchecked Sendable {
    enum Verbosity: Int { case quiet, normal, verbose }
    var verbosity: Verbosity = .normal
    private let lock = NSLock()

    static let shared = Console()

    func error(_ message: String) {
        write("videowm: error: \(Self.oneLine(message))\n")
    }

    func warning(_ message: String) {
        guard verbosity != .quiet else { return }
        write("videowm: warning: \(Self.oneLine(message))\n")
    }

    func info(_ message: String) {
        guard verbosity != .quiet else { return }
        write("videowm: \(Self.oneLine(message))\n")
    }

    /// Writes to stderr. Should stderr be closed, full or a pipe with no reader, the text is
    /// dropped: messages are the job's commentary, and the job goes on without them.
    func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        try? StandardStream.error.write(text)
    }

    /// `message` with line breaks, tabs and other control characters shown as escapes, so a
    /// file name holding a newline (or a terminal escape) cannot split or rewrite the line.
    static func oneLine(_ message: String) -> String {
        var line = ""
        line.unicodeScalars.reserveCapacity(message.unicodeScalars.count)
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                line += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        return line
    }

    var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The warning handler the library calls.
    var warningHandler: WarningHandler { { [unowned self] in self.warning($0) } }
}
