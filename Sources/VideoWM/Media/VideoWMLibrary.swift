import CFFmpeg

/// Process-wide settings of the library.
public enum VideoWMLibrary {
    /// FFmpeg's own log stays silent unless `verbose`: failures reach the user through our one-line errors.
    public static func configureLogging(verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
    }
}
