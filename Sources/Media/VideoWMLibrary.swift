internal import CFFmpeg

/// Process-wide settings of the library.
public enum VideoWMLibrary {
    /// FFmpeg's own log stays silent unless `verbose`: failures reach the user through our one-line errors.
    public static func configureLogging(verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
        // Some C libraries print to stdio's stderr past FFmpeg's log: x264 when an allocation
        // fails ("x264 [error]: malloc of size … failed"), fontconfig when it cannot read its
        // config. Quiet, as FFmpeg's log is; the tool's own lines are write(2)s to descriptor 2.
        if !verbose { vwm_quiet_stdio_stderr() }
    }
}
