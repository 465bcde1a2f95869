/// Process exit codes, from BSD's sysexits.h, as SPEC.md lists them.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// Usage or config error.
    case usage = 64
    /// Input data unreadable or corrupt.
    case dataError = 65
    /// Input missing.
    case noInput = 66
    /// Output cannot be created (exists without -y, directory missing, not writable).
    case cannotCreate = 73
    /// I/O error while writing (disk full).
    case ioError = 74
    case interrupted = 130
}

/// Every failure the library reports: a one-line message that names the file or config
/// field, and the exit status the command line turns it into.
public struct VideoWMError: Error, CustomStringConvertible, Equatable, Sendable {
    public var status: ExitStatus
    public var message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    /// A config problem at a JSON path such as `watermarks[1].opacity`.
    static func config(_ file: String, _ path: String, _ problem: String) -> VideoWMError {
        VideoWMError(.usage, "\(file): \(path): \(problem)")
    }

    static func usage(_ message: String) -> VideoWMError { VideoWMError(.usage, message) }
    static func corrupt(_ file: String, _ problem: String) -> VideoWMError { VideoWMError(.dataError, "\(file): \(problem)") }
    static func missing(_ file: String) -> VideoWMError { VideoWMError(.noInput, "\(file): no such file") }
    static func cannotCreate(_ file: String, _ problem: String) -> VideoWMError { VideoWMError(.cannotCreate, "\(file): \(problem)") }
    static func writeFailed(_ file: String, _ problem: String) -> VideoWMError { VideoWMError(.ioError, "\(file): \(problem)") }
    static let interrupted = VideoWMError(.interrupted, "interrupted")
}

/// Where warnings go (stderr in the command line, a list in tests).
public typealias WarningHandler = @Sendable (String) -> Void
