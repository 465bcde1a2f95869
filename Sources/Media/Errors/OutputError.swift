/// An output that cannot be made: it cannot be created (it exists without -y, its folder is
/// missing or not writable, it is the input) or writing it failed (a full disk, an encoder
/// or muxer failure). Nothing partial is left either way.
public struct OutputError: CodedError, Equatable, Sendable, CustomStringConvertible {
    public enum Stage: Sendable, Equatable {
        /// Before anything was written: the output could not be claimed or opened.
        case creating
        /// While writing, encoding or finishing.
        case writing
    }

    public var file: String
    public var stage: Stage
    public var operation: String?
    public var detail: String?
    public var code: ErrorCode?

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
    public enum Problem: Equatable, Sendable {
        case unavailable
        /// `avcodec_open2` failed; `code` says why.
        case openFailed
        case optionsNotTaken([String])
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
    public var problem: Problem
    public var code: ErrorCode?
    public var origin: Origin

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
