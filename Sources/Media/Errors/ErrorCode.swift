#if canImport(Glibc)
import Glibc
#endif

/// The code a failed call returned, in FFmpeg's convention — a negated `errno`
/// (`AVERROR(ENOSPC)` is `-ENOSPC`) or one of FFmpeg's own tags (`AVERROR_INVALIDDATA`) —
/// with its text, so an error can say what happened and the command line can ask what kind
/// of failure it was.
public struct ErrorCode: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The code: a negated `errno`, or an FFmpeg tag.
    public let value: Int32
    /// FFmpeg's or the system's text for the code ("No space left on device").
    public let message: String

    /// A code and its text, as FFmpeg's `av_strerror` gives them.
    public init(value: Int32, message: String) {
        self.value = value
        self.message = message
    }

    /// A system call's `errno`, as FFmpeg would report it.
    public init(errno: Int32) {
        self.init(value: -errno, message: String(cString: strerror(errno)))
    }

    public var description: String { message }

    /// The disk (or the file-size limit, or the user's quota) is full.
    public var isDiskFull: Bool { [-ENOSPC, -EFBIG, -EDQUOT].contains(value) }

    /// The process ran out of something the system gives: memory, threads, file descriptors.
    public var isResourceExhausted: Bool { [-ENOMEM, -EMFILE, -ENFILE].contains(value) }

    /// FFmpeg found data it cannot parse (`AVERROR_INVALIDDATA`).
    public var isInvalidData: Bool { value == Self.invalidDataTag }

    /// The file does not exist.
    public var isMissingFile: Bool { value == -ENOENT }

    /// FFmpeg's error tags are negated four-character codes (`FFERRTAG` in libavutil/error.h);
    /// Swift cannot import the macros, and this folder stays free of FFmpeg's headers, so the
    /// two the predicates need are spelt out here (a unit test compares them with FFmpeg's).
    static func tag(_ a: Unicode.Scalar, _ b: Unicode.Scalar, _ c: Unicode.Scalar, _ d: Unicode.Scalar) -> Int32 {
        let code = a.value | b.value << 8 | c.value << 16 | d.value << 24
        return -Int32(bitPattern: code)
    }

    static let invalidDataTag = tag("I", "N", "D", "A")
    /// What FFmpeg returns when our interrupt callback stops a blocking call.
    static let exitTag = tag("E", "X", "I", "T")
}

/// A library error that may carry the code of the call behind it.
public protocol CodedError: Error {
    /// The code of the failed call behind the error, when there was one.
    var code: ErrorCode? { get }
}

extension CodedError {
    /// The failure was a full disk (or quota, or file-size limit).
    public var isDiskFull: Bool { code?.isDiskFull ?? false }
    /// The failure was memory, threads or file descriptors running out.
    public var isResourceExhausted: Bool { code?.isResourceExhausted ?? false }
    /// FFmpeg found data it cannot parse.
    public var isInvalidData: Bool { code?.isInvalidData ?? false }
}
