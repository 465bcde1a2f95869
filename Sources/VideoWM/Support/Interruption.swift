import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT/SIGTERM handling: the signal only raises a flag; the pipeline checks it between
/// packets (and FFmpeg checks it during blocking I/O), then unwinds normally so temporary
/// files are removed and the process exits with 130.
public enum Interruption {
    private static let flag = Atomic<Bool>(false)
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    public static var isRequested: Bool { flag.load(ordering: .relaxed) }

    /// Installs the handlers (once, from the command line's entry point).
    public static func install() {
        // Past a file-size limit (ulimit -f) a write should fail with EFBIG, which we report
        // as exit 74 and clean up after, instead of the signal killing the process mid-file.
        signal(SIGXFSZ, SIG_IGN)
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { flag.store(true, ordering: .relaxed) }
            source.resume()
            sources.append(source)
        }
    }

    /// For tests: pretend a signal arrived, or clear the flag.
    public static func request() { flag.store(true, ordering: .relaxed) }

    /// Throws the "interrupted" error (exit 130) once a signal has arrived.
    public static func throwIfRequested() throws {
        if isRequested { throw InterruptedError() }
    }
}

