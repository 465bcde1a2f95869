internal import CProcessGuard
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT: the signal only raises a flag (in `CProcessGuard`,
/// whose handlers are async-signal-safe and start no thread); the pipeline checks it between
/// packets, FFmpeg's interrupt callbacks during blocking I/O, and the job unwinds normally so
/// temporary files are removed and the process exits with 130. A second signal, should the
/// job not have stopped, removes the temporary files and exits at once.
public enum Interruption {
    /// Whether SIGINT, SIGTERM, SIGHUP or SIGQUIT has arrived.
    public static var isRequested: Bool { vwm_guard_interrupt_signal() != 0 }

    /// Installs the handlers (once, from the command line's entry point, before any other
    /// thread exists): the termination signals above, SIGPIPE and SIGXFSZ ignored (a write
    /// then fails with EPIPE or EFBIG where it is made), and the fatal-signal cleanup.
    public static func install() {
        _ = vwm_guard_install()
    }

    /// For a server: the first termination signal asks it to drain (`isDrainRequested`)
    /// rather than interrupting the work in progress; a second one exits 130 at once.
    public static func drainOnTermination() { vwm_guard_drain_on_termination() }

    /// For a server: from now on SIGHUP asks it to re-read its files (`reloadRequests` counts
    /// them) rather than ending it.
    public static func reloadOnHangup() { vwm_guard_reload_on_hangup() }

    /// SIGHUPs received since `reloadOnHangup` (a server compares it with the count it last saw).
    public static var reloadRequests: UInt32 { vwm_guard_reload_requests() }

    /// Whether a termination signal asked the server to finish and exit (after `drainOnTermination`).
    public static var isDrainRequested: Bool { vwm_guard_drain_signal() != 0 }

    /// For tests and for code that must stop the job: as if SIGINT had arrived.
    public static func request() { vwm_guard_request_interrupt(SIGINT) }

    /// Throws the "interrupted" error (exit 130) once a signal has arrived.
    public static func throwIfRequested() throws {
        if isRequested { throw InterruptedError() }
    }
}
