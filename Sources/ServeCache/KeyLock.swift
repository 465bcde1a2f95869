import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a lock file, taken so that the file seen locked is the one at the
/// path (a lock file removed and re-created by another process meanwhile is locked again).
///
/// The kernel releases the lock of a process that dies, however it dies, so a render killed
/// midway never blocks the next one. A holder that lives but never finishes (a stopped
/// process, a lock stuck on a network file system) blocks a waiter for `waitSeconds` at most.
final class KeyLock {
    private var fd: Int32
    private let path: String

    /// Waits for the lock at most `waitSeconds` (0: not at all), then throws (code EWOULDBLOCK).
    init(path: String, waitSeconds: Double) throws(CacheError) {
        self.path = path
        let deadline = CacheClock.now() + waitSeconds
        while true {
            let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw CacheError(path: path, operation: "opening a lock file", code: errno) }
            var failure: Int32 = 0
            while true {
                if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                    failure = 0
                    break
                }
                failure = errno
                if failure == EINTR { continue }
                guard failure == EWOULDBLOCK, CacheClock.now() < deadline else { break }
                usleep(20_000)  // another holds it: look again (flock has no timed wait)
            }
            guard failure == 0 else {
                close(fd)
                throw CacheError(path: path, operation: waitSeconds > 0 ? "waiting \(Int(waitSeconds)) s for a lock" : "locking", code: failure)
            }
            var held = stat()
            var current = stat()
            if fstat(fd, &held) == 0, stat(path, &current) == 0, held.st_ino == current.st_ino, held.st_dev == current.st_dev {
                self.fd = fd
                return
            }
            close(fd)  // removed or replaced while we waited: lock the one there now
        }
    }

    func release(removingLockFile: Bool = false) {
        guard fd >= 0 else { return }
        if removingLockFile { unlink(path) }
        close(fd)
        fd = -1
    }

    deinit { release() }
}

/// The cache folder could not be used.
public struct CacheError: Error, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let code: Int32
    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }
    /// The volume (or the user's quota on it) is full.
    public var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }
    public var description: String { "\(path): \(operation) failed: \(String(cString: strerror(code)))" }
}

/// Monotonic seconds (not wall-clock time, which an operator may set back).
enum CacheClock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
