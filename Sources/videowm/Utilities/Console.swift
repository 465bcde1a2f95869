import Foundation
import VideoWM

/// Where the tool talks to people: stderr for messages, with verbosity.
final class Console: @unchecked Sendable {
    enum Verbosity: Int { case quiet, normal, verbose }
    var verbosity: Verbosity = .normal
    private let lock = NSLock()

    static let shared = Console()

    func error(_ message: String) {
        write("videowm: error: \(message)\n")
    }

    func warning(_ message: String) {
        guard verbosity != .quiet else { return }
        write("videowm: warning: \(message)\n")
    }

    func info(_ message: String) {
        guard verbosity != .quiet else { return }
        write("videowm: \(message)\n")
    }

    func write(_ text: String) {
        lock.lock()
        FileHandle.standardError.write(Data(text.utf8))
        lock.unlock()
    }

    var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The warning handler the library calls.
    var warningHandler: WarningHandler { { [unowned self] in self.warning($0) } }
}
