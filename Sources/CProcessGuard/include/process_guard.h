#ifndef VWM_PROCESS_GUARD_H
#define VWM_PROCESS_GUARD_H

/// What a process must do from inside signal handlers, written in C because only
/// async-signal-safe calls (write, unlink, _exit, sigaction, raise) may run there, with no
/// allocation, locking or reference counting — none of which Swift code can promise.
///
/// - SIGINT, SIGTERM, SIGHUP and SIGQUIT raise a flag that the pipeline polls (and FFmpeg's
///   interrupt callbacks read), so the job unwinds normally, removes its temporary files and
///   exits 130. A second such signal, should the job not have stopped, removes the
///   registered temporary files and exits 130 at once.
/// - SIGPIPE is ignored (a closed pipe is an EPIPE error where it is written), as is SIGXFSZ
///   (past `ulimit -f` a write fails with EFBIG).
/// - Where the process still dies, the registered temporary files are removed first. Under a
///   memory limit (`ulimit -v`, `ulimit -d`), an abort (the Swift runtime cannot allocate) or a
///   fault at a null address or with the address space exhausted (a C library that did not
///   check an allocation) is reported as running out of memory, exit 71; any other fatal
///   signal is passed on to the handler that was there before (the Swift runtime's
///   backtracer) or to the default action.

/// Installs every handler above (once; later calls do nothing). Returns 0, or an errno.
int vwm_guard_install(void);

/// The termination signal that arrived first (SIGINT, SIGTERM, SIGHUP, SIGQUIT), or 0.
int vwm_guard_interrupt_signal(void);

/// For a server (`videowm serve`): from now on the first termination signal raises the
/// drain flag instead of the interrupt flag, so renders in progress are not interrupted while
/// the server finishes its requests; a second signal still exits 130 at once.
void vwm_guard_drain_on_termination(void);

/// For a server (`videowm serve`): from now on SIGHUP asks it to re-read its files (counted by
/// `vwm_guard_reload_requests`) instead of terminating it, as daemons conventionally do.
void vwm_guard_reload_on_hangup(void);

/// How many SIGHUPs have asked for a reload (after `vwm_guard_reload_on_hangup`).
unsigned int vwm_guard_reload_requests(void);

/// The termination signal that asked a server to drain (after `vwm_guard_drain_on_termination`), or 0.
int vwm_guard_drain_signal(void);

/// Raises the interrupt flag as if `signal` had arrived (tests, and code that must stop the job).
void vwm_guard_request_interrupt(int signal);

/// Clears the flag (tests).
void vwm_guard_clear_interrupt(void);

/// Remembers a temporary file to remove should the process die or be interrupted twice, and
/// the output it becomes (named in the out-of-memory line).
/// Returns a slot to pass to `vwm_guard_forget`, or -1 when every slot is taken (the file is
/// then only removed by the normal path) or the path is too long.
int vwm_guard_remember(const char *path, const char *target);

/// Forgets a slot (the file was committed or removed).
void vwm_guard_forget(int slot);

/// Removes every remembered file now (the normal exit path calls this too).
void vwm_guard_remove_all(void);

#endif
