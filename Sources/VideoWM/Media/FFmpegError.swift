import CFFmpeg

/// FFmpeg's message for an error code ("Invalid data found when processing input").
func ffmpegMessage(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    if av_strerror(code, &buffer, buffer.count) < 0 { return "error \(code)" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Common error codes, named.
enum AVErrorCode {
    static let tryAgain = vwm_averror(EAGAIN)
    static let endOfFile = vwm_averror_eof()
    static let invalidData = vwm_averror_invaliddata()
    static let noSpace = vwm_averror(ENOSPC)
    static let fileTooLarge = vwm_averror(EFBIG)
    static let quotaExceeded = vwm_averror(EDQUOT)
    static let exit = vwm_averror_exit()
}

/// A failed FFmpeg call, turned into a library error with the operation and the file.
func ffmpegFailure(_ code: Int32, _ operation: String, file: String, status: ExitStatus) -> VideoWMError {
    if code == AVErrorCode.exit { return .interrupted }
    if [AVErrorCode.noSpace, AVErrorCode.fileTooLarge, AVErrorCode.quotaExceeded].contains(code) {
        return VideoWMError(.ioError, "\(file): \(operation) failed: \(ffmpegMessage(code))")
    }
    return VideoWMError(status, "\(file): \(operation) failed: \(ffmpegMessage(code))")
}

/// Throws unless `code` is non-negative; returns it otherwise.
@discardableResult
func check(_ code: Int32, _ operation: String, file: String, status: ExitStatus) throws -> Int32 {
    if code < 0 { throw ffmpegFailure(code, operation, file: file, status: status) }
    return code
}

/// Keeps FFmpeg's own logging quiet: errors surface through our messages instead.
enum FFmpegLogging {
    static func configure(verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
    }
}
