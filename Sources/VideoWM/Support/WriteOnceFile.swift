import CProcessGuard
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Publishes a file named by its content: written once, complete or not at all, by whichever
/// process gets there first.
///
/// The bytes go to a hidden temporary file beside the name (locked while being written, so a
/// later run tells a live writer's file from one a killed process left, see
/// `PartialOutputFiles`), are flushed to disk and are linked to the name. `link` fails when the
/// name exists, so two shards making the same segment at once never leave two copies or a torn
/// file: the loser drops its temporary file and uses the winner's, which has the same bytes
/// because it has the same name.
enum WriteOnceFile {
    enum Outcome: Equatable { case written, alreadyThere }

    /// Publishes `bytes` as `folder/name`, unless a file of that name (and size) is there.
    static func publish(_ bytes: UnsafeRawBufferPointer, named name: String, in folder: String) throws -> Outcome {
        let path = (folder as NSString).appendingPathComponent(name)
        if try existing(path, size: bytes.count) { return .alreadyThere }
        do {
            return try write(bytes, to: path, folder: folder, name: name)
        } catch let error as OutputError where error.code == ErrorCode(errno: ENOENT) {
            // A sweep of stale temporary files took ours in the instant before we locked it: once more.
            return try write(bytes, to: path, folder: folder, name: name)
        }
    }

    static func publish(_ bytes: [UInt8], named name: String, in folder: String) throws -> Outcome {
        try bytes.withUnsafeBytes { try publish($0, named: name, in: folder) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to path: String, folder: String, name: String) throws -> Outcome {
        // Named as AtomicOutput names its temporary files, so one sweep recognises both.
        let temporary = (folder as NSString).appendingPathComponent(
            PartialOutputFiles.temporaryName(forTargetNamed: name, token: PartialOutputFiles.randomToken()))
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputError(file: path, stage: .writing, operation: "creating", code: ErrorCode(errno: errno)) }
        // Remembered where a fatal-signal handler can remove it, should the process die.
        let guardSlot = vwm_guard_remember(temporary, path)
        defer {
            unlink(temporary)
            vwm_guard_forget(guardSlot)
        }
        // Held until close: a later run removes only temporary files nobody holds.
        _ = flock(fd, LOCK_EX | LOCK_NB)
        var written = 0
        while written < bytes.count, let base = bytes.baseAddress {
            let n = Glibc.write(fd, base + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw OutputError(file: path, stage: .writing, operation: "writing", code: ErrorCode(errno: code))
            }
            written += n
        }
        let synced = fsync(fd)
        let syncError = errno
        close(fd)
        guard synced == 0 else { throw OutputError(file: path, stage: .writing, operation: "flushing to disk", code: ErrorCode(errno: syncError)) }
        if link(temporary, path) != 0 {
            let code = errno
            guard code == EEXIST else {
                throw OutputError(file: path, stage: .writing, operation: "moving the finished file into place", code: ErrorCode(errno: code))
            }
            _ = try existing(path, size: bytes.count)
            return .alreadyThere
        }
        return .written
    }

    /// Whether a file of this name and size is there; a folder, a link or a file of another
    /// size under the name is an error (not ours, or damaged by something else).
    private static func existing(_ path: String, size: Int) throws -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw OutputError(file: path, stage: .writing, operation: "checking", code: ErrorCode(errno: errno))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == size else {
            throw OutputError(file: path, stage: .writing, detail: "is already there with other content; a file named by its content must have that content (remove it)")
        }
        return true
    }

    /// Flushes a folder's entries (new names) to disk, so files published in it survive a crash
    /// before the playlist that lists them does.
    static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
