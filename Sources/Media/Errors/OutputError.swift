/// An output that cannot be made: it cannot be created (it exists without -y, its folder is
/// missing or not writable, it is the input) or writing it failed (a full disk, an encoder
/// or muxer failure). Nothing partial is left either way.
public struct OutputError: CodedError, Equatable, Sendable, CustomStringConvertible {
    /// Whether anything was written yet: it decides the exit status (73 or 74).
    public enum Stage: Sendable, Equatable {
        /// Before anything was written: the output could not be claimed or opened.
        case creating
        /// While writing, encoding or finishing.
        case writing
    }

    /// The output, as given.
    public var file: String
    /// Before anything was written, or while writing.
    public var stage: Stage
    /// The call that failed ("writing the trailer"), when one did.
    public var operation: String?
    /// What is wrong, when it is our finding ("already exists (use -y to replace it)").
    public var detail: String?
    /// The code of the failed call, when there was one.
    public var code: ErrorCode?

    /// An output that cannot be made.
    public init(file: String, stage: Stage, operation: String? = nil, detail: String? = nil, code: ErrorCode? = nil) {
        self.file = file
        self.stage = stage
        self.operation = operation
        self.detail = detail
        self.code = code
    }

    /// The target exists and -y was not given.
    public static func exists(_ file: String) -> OutputError {
        OutputError(file: file, stage: .creating, detail: "already exists (use -y to replace it)")
    }

    public var description: String { failureLine(file: file, operation: operation, detail: detail, code: code) }
}

/// An encoder that cannot do what the settings ask: not in this FFmpeg build, refusing its
/// options, or offering no pixel format marks can be blended into.
public struct EncoderError: CodedError, Equatable, Sendable, CustomStringConvertible {
    /// What the encoder cannot do.
    public enum Problem: Equatable, Sendable {
        /// This FFmpeg build has no such encoder.
        case unavailable
        /// `avcodec_open2` failed; `code` says why.
        case openFailed
        /// The encoder ignored these options: it would have encoded something else than asked.
        case optionsNotTaken([String])
        /// The encoder offers no pixel format marks can be blended into.
        case noBlendablePixelFormat
    }

    /// Who chose the settings the encoder refused.
    public enum Origin: Equatable, Sendable {
        /// The user's options (`--profile`, `--crf`, …) or what follows from them: a usage error.
        case settings
        /// Settings the library derived itself (a smart-rendered span matching its input): a fault
        /// of videowm, which the user cannot mend by changing the command.
        case library
    }

    /// FFmpeg's name of the encoder ("libx264").
    public var encoder: String
    /// The output being encoded, when there is one.
    public var file: String?
    /// What the encoder cannot do.
    public var problem: Problem
    /// The code of the failed call, when there was one.
    public var code: ErrorCode?
    /// Who chose the refused settings: the user (64) or the library (70).
    public var origin: Origin

    /// An encoder that cannot do what the settings ask.
    public init(encoder: String, file: String? = nil, problem: Problem, code: ErrorCode? = nil, origin: Origin = .settings) {
        self.encoder = encoder
        self.file = file
        self.problem = problem
        self.code = code
        self.origin = origin
    }

    public var description: String {
        switch problem {
        case .openFailed where origin == .library:
            failureLine(file: file, operation: "opening the \(encoder) encoder with the settings videowm chose to match the input",
                        detail: nil, code: code) + " (an internal error: please report it, with 'videowm probe' of the input)"
        case .unavailable: "encoder \(encoder) is not available in this FFmpeg build"
        case .openFailed: failureLine(file: file, operation: "opening the \(encoder) encoder", detail: nil, code: code)
        case .optionsNotTaken(let names): "the \(encoder) encoder does not take option(s) \(names.joined(separator: ", "))"
        case .noBlendablePixelFormat: "the \(encoder) encoder takes no planar YUV format"
        }
    }
}
