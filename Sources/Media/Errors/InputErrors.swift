/// An input that cannot be opened at all: a video, still, logo, config or CSV file that is
/// missing or unreadable, or an http(s) image that cannot be fetched.
public struct InputError: CodedError, Equatable, Sendable, CustomStringConvertible {
    /// Why the input cannot be opened.
    public enum Problem: Equatable, Sendable {
        /// There is no such file.
        case missing
        /// It is a folder, a FIFO or a device, refused before anything is read.
        case notARegularFile
        /// It may not be read.
        case permissionDenied
        /// The file exists but reading it failed (`what` names it: "the config file").
        case unreadable(what: String)
        /// `operation` on an http(s) URL failed ("cannot fetch", "download failed").
        case fetchFailed(operation: String)
        /// Opening failed with the system's reason, given by `code`.
        case cannotOpen
    }

    /// The input, as given.
    public var file: String
    /// Why it cannot be opened.
    public var problem: Problem
    /// The code of the failed call, when there was one.
    public var code: ErrorCode?

    /// An input that cannot be opened.
    public init(file: String, problem: Problem, code: ErrorCode? = nil) {
        self.file = file
        self.problem = problem
        self.code = code
    }

    /// A missing file.
    public static func missing(_ file: String) -> InputError { InputError(file: file, problem: .missing) }

    /// Whether the file does not exist.
    public var isMissing: Bool { problem == .missing }

    public var description: String {
        let codeText = code.map(\.message) ?? "unknown error"
        switch problem {
        case .missing: return "\(file): no such file"
        case .notARegularFile: return "\(file): not a regular file"
        case .permissionDenied: return "\(file): not readable (permission denied)"
        case .unreadable(let what): return "\(file): cannot read \(what)"
        case .fetchFailed(let operation): return "\(file): \(operation): \(codeText)"
        case .cannotOpen: return "\(file): \(codeText)"
        }
    }
}

/// Input data that cannot be used: a video or image that is damaged, truncated, not media,
/// over the size limits, or in a form this tool cannot decode.
public struct MediaError: CodedError, Equatable, Sendable, CustomStringConvertible {
    /// The input, as given.
    public var file: String
    /// The call that failed ("decoding", "opening as media"), when one did.
    public var operation: String?
    /// What is wrong, when it is our finding rather than a call's ("has no video stream").
    public var detail: String?
    /// The code of the failed call, when there was one.
    public var code: ErrorCode?

    /// Input data that cannot be used: what failed, or what is wrong, or both.
    public init(file: String, operation: String? = nil, detail: String? = nil, code: ErrorCode? = nil) {
        self.file = file
        self.operation = operation
        self.detail = detail
        self.code = code
    }

    public var description: String { failureLine(file: file, operation: operation, detail: detail, code: code) }
}

/// "FILE: OPERATION failed: CODE", "FILE: DETAIL: CODE" or "FILE: DETAIL" — the one shape
/// of the media and output errors' lines.
func failureLine(file: String?, operation: String?, detail: String?, code: ErrorCode?) -> String {
    var parts: [String] = []
    if let file { parts.append(file) }
    if let operation { parts.append("\(operation) failed") }
    if let detail { parts.append(detail) }
    if let code { parts.append(code.message) }
    return parts.joined(separator: ": ")
}
