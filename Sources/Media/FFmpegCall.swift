internal import CFFmpeg
import Overlay

extension ErrorCode {
    /// An FFmpeg return code with FFmpeg's text for it ("Invalid data found when processing input").
    init(ffmpeg code: Int32) {
        var buffer = [CChar](repeating: 0, count: 256)
        let message = av_strerror(code, &buffer, buffer.count) < 0
            ? "error \(code)"
            : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.init(value: code, message: message)
    }
}

/// FFmpeg's codes for the states of its send/receive calls, which are not errors.
enum AVErrorCode {
    static let tryAgain = vwm_averror(EAGAIN)
    static let endOfFile = vwm_averror_eof()
    /// Returned by blocking calls that our interrupt callback stopped.
    static let exit = vwm_averror_exit()
}

/// Returns `code` when the call succeeded (non-negative); otherwise throws `failure`'s error
/// for it — or `InterruptedError` when the call failed because our interrupt callback
/// stopped it, which is no failure of the call.
@discardableResult
func check(_ code: Int32, _ failure: (ErrorCode) -> any Error) throws -> Int32 {
    guard code < 0 else { return code }
    if code == AVErrorCode.exit { throw InterruptedError() }
    let error = failure(ErrorCode(ffmpeg: code))
    // At the address-space limit (ulimit -v) a library's failed allocation comes back as any
    // code (x264: "generic error in an external library"): the run is out of memory, not at fault.
    if code != vwm_averror(ENOMEM) && !SystemShortage.addressSpaceAvailable() { throw ResourceError.memory("(\(error))") }
    throw error
}

extension MediaError {
    /// A failed call on input media, for `check`.
    static func call(_ operation: String, file: String) -> (ErrorCode) -> any Error {
        { MediaError(file: file, operation: operation, code: $0) }
    }
}

extension OutputError {
    /// A failed call on an output, for `check`.
    static func call(_ operation: String, file: String, stage: Stage = .writing) -> (ErrorCode) -> any Error {
        { OutputError(file: file, stage: stage, operation: operation, code: $0) }
    }
}
