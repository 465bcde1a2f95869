import Overlay
import Packaging
import ServeAccess
import ServeCache
import VideoWM
import VideoWMServe

/// Process exit codes, from BSD's sysexits.h, as docs/design/contract.md lists them.
enum ExitStatus: Int32, Sendable, Comparable {
    case success = 0
    /// `trace` identified no row (its report is printed; not an error).
    case nobodyIdentified = 1
    /// Usage or config error.
    case usage = 64
    /// Input data unreadable or corrupt.
    case dataError = 65
    /// Input missing.
    case noInput = 66
    /// An internal error: settings videowm chose itself were refused (EX_SOFTWARE); a bug to report.
    case software = 70
    /// System resources exhausted: memory, threads, file descriptors.
    case resourcesExhausted = 71
    /// Output cannot be created (exists without -y, directory missing, not writable).
    case cannotCreate = 73
    /// I/O error while writing (disk full).
    case ioError = 74
    case interrupted = 130

    static func < (a: ExitStatus, b: ExitStatus) -> Bool { a.rawValue < b.rawValue }

    /// Every status, in the order `videowm help`, the man pages and docs/reference/exit-codes.md list them.
    static let documented: [ExitStatus] = [.success, .nobodyIdentified, .usage, .dataError, .noInput, .software,
                                           .resourcesExhausted, .cannotCreate, .ioError, .interrupted]

    /// What the status says, in a few words: the one text the overview and the man pages print.
    var meaning: String {
        switch self {
        case .success: "ok"
        case .nobodyIdentified: "trace identified nobody"
        case .usage: "usage or config error"
        case .dataError: "input unreadable or corrupt"
        case .noInput: "input missing"
        case .software: "internal error (an encoder refused settings videowm chose itself: please report it)"
        case .resourcesExhausted: "out of memory, too many open files or no thread"
        case .cannotCreate: "output cannot be created"
        case .ioError: "write error"
        case .interrupted: "interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT)"
        }
    }
}

/// The exit status for an error: the one place that decides it, from the error's type and
/// what it carries (the library reports what went wrong; this says what that means to a shell).
func exitStatus(for error: any Error) -> ExitStatus {
    if let coded = error as? any CodedError {
        // Whatever the call was, these causes say the same thing about the run.
        if coded.isResourceExhausted { return .resourcesExhausted }
        if coded.isDiskFull { return .ioError }
    }
    switch error {
    case is InterruptedError:
        return .interrupted
    case is NobodyIdentified:
        return .nobodyIdentified
    case is ResourceError, is CryptoError, is ListenError:
        // libcrypto fails only when memory or the system's random source gives out.
        return .resourcesExhausted
    case is CacheError:
        return .cannotCreate
    case let error as EncoderError where error.origin == .library:
        return .software
    case is UsageError, is ConfigError, is CSVError, is RequestError, is EncoderError, is RenderError, is KeyFileError,
         is TokenKeyFileError, is RevocationListError:
        return .usage
    case is InputError:
        return .noInput
    case let error as TextRecognitionError:
        // Tesseract's library and model are inputs the trace needs, as a font is; an engine that cannot start is out of memory.
        switch error.problem {
        case .libraryMissing, .modelMissing: return .noInput
        case .engineUnavailable: return .resourcesExhausted
        }
    // A content key file (--content-key-file): missing 66, open to others 64 (as the token key's), unreadable content 65.
    case let error as ContentKeyFileError:
        switch error.problem {
        case .missing, .unreadable: return .noInput
        case .notARegularFile, .accessibleByOthers: return .usage
        case .malformed, .unusable: return .dataError
        }
    case is MediaError, is TextEngineError:
        return .dataError
    case let error as OutputError:
        return error.stage == .creating ? .cannotCreate : .ioError
    case let error as LayerError:
        switch error.cause {
        case .text(let problem): return exitStatus(forText: problem)
        case .image(let underlying): return exitStatus(for: underlying)
        case .other: return .dataError
        }
    case let error as CommandFailures:
        return exitStatus(for: error.exitsAs)
    default:
        return .dataError
    }
}

/// A text layer that cannot be drawn: its text or size is a config mistake; its font is
/// missing input (a file or family that is not there) or unreadable input.
private func exitStatus(forText problem: TextRenderingError) -> ExitStatus {
    switch problem {
    case .textEmpty, .textTooLong, .sizeOutOfRange, .renderedTooLarge, .invalidLength: .usage
    case .fontFileMissing, .fontNotFound: .noInput
    case .fontUnreadable, .fontEngineFailed: .dataError
    case .systemResources: .resourcesExhausted
    }
}

/// The one line printed for an error (after "videowm: error: ").
func errorLine(for error: any Error) -> String {
    switch error {
    case let error as UsageError: "\(error.command): \(error.message) (see 'videowm help \(error.command)')"
    default: "\(error)"
    }
}

/// A command that handled several files and already reported each failure; it exits with
/// the status of `exitsAs` (stamp: the first failure; batch: the gravest).
struct CommandFailures: Error {
    var exitsAs: any Error
}
