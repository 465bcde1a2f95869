#if canImport(Glibc)
import Glibc
#endif

/// Work begun on a second thread when the system gives one, and done at once on the caller's
/// thread when it does not (a thread limit, or an address space too small for another
/// stack): `result()` returns the work's outcome either way.
///
/// Waiting is `pthread_join`, which ends because the work ends: the work must be finite
/// (preparing marks is), so no wait here can outlast it, and no semaphore is left waiting on
/// a thread that never started.
package final class SecondThreadWork<Value>: @unchecked Sendable {
    private var thread: pthread_t?
    // Written by the worker before it ends; read after the join (or inline), which orders the accesses.
    private var outcome: Result<Value, any Error>?

    /// Starts `work` on a second thread, or runs it now when no thread can start.
    package init(_ work: @escaping () throws -> Value) {
        thread = nil
        outcome = nil
        thread = Self.startThread { [self] in outcome = Result { try work() } }
        if thread == nil { outcome = Result { try work() } }
    }

    /// Waits for the work (if it runs on the second thread) and returns or throws its outcome.
    package func result() throws -> Value {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        guard let outcome else { preconditionFailure("the joined thread set its outcome") }
        return try outcome.get()
    }

    /// Whether the system can start a thread now (one is started and joined). Asked after a
    /// library failed in a way that does not say why (x264's "external library" error), to
    /// tell a thread limit from a real failure.
    static func canStartThread() -> Bool {
        guard let thread = startThread({}) else { return false }
        pthread_join(thread, nil)
        return true
    }

    /// A thread running `body`, or nil when none can be created.
    private static func startThread(_ body: @escaping () -> Void) -> pthread_t? {
        let entry = Unmanaged.passRetained(ThreadEntry(body)).toOpaque()
        var handle = pthread_t()
        let code = pthread_create(&handle, nil, { raw in
            // `raw` is the entry passed below.
            guard let raw else { return nil }
            Unmanaged<ThreadEntry>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, entry)
        guard code == 0 else {
            Unmanaged<ThreadEntry>.fromOpaque(entry).release()
            return nil
        }
        return handle
    }
}

/// The closure a new thread runs, passed through `pthread_create`'s context pointer.
private final class ThreadEntry {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
