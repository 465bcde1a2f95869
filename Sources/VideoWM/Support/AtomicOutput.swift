import CProcessGuard
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An output that appears only when complete: everything is written to a temporary file
/// beside the target, flushed to disk, and moved into place by `commit()`. Dropping the
/// object uncommitted (an error, an interrupt) removes the temporary file, so a failed run
/// never leaves a partial output and never touches an existing one.
final class AtomicOutput {
    let target: String
    let temporaryPath: String
    let overwrite: Bool
    private var committed = false
    /// The temporary file, open and locked while it is being written.
    private var lockDescriptor: Int32 = -1
    private var guardSlot: Int32 = -1

    /// Checks the target up front (before any decoding) and reserves a temporary name.
    /// `inputs` are files the target must not be, by path or by identity (device and inode).
    init(target: String, overwrite: Bool, inputs: [String]) throws {
        self.target = target
        self.overwrite = overwrite
        let directory = (target as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        var dirInfo = stat()
        guard stat(folder, &dirInfo) == 0, (dirInfo.st_mode & S_IFMT) == S_IFDIR else {
            if errno == ENAMETOOLONG { throw Self.nameTooLong(target) }
            throw OutputError(file: target, stage: .creating, detail: "the folder \(folder) does not exist")
        }
        // Checked now, not left to the final rename: the temporary name is kept short enough
        // (`PartialOutputFiles.temporaryName`), so the whole job would run before the rename failed.
        let nameBytes = (target as NSString).lastPathComponent.utf8.count
        let nameLimit = pathconf(folder, Int32(_PC_NAME_MAX))
        if nameLimit > 0 && nameBytes > nameLimit {
            throw OutputError(file: target, stage: .creating,
                              detail: "the name is \(nameBytes) bytes long; the file system allows at most \(nameLimit)")
        }
        guard access(folder, W_OK) == 0 else { throw OutputError(file: target, stage: .creating, detail: "the folder \(folder) is not writable") }
        var targetInfo = stat()
        if lstat(target, &targetInfo) == 0 || stat(target, &targetInfo) == 0 {
            var resolved = stat()
            let exists = stat(target, &resolved) == 0
            for input in inputs {
                var inputInfo = stat()
                if exists, stat(input, &inputInfo) == 0, inputInfo.st_dev == resolved.st_dev, inputInfo.st_ino == resolved.st_ino {
                    throw OutputError(file: target, stage: .creating, detail: "is the input file \(input); choose another output")
                }
            }
            if exists && (resolved.st_mode & S_IFMT) == S_IFDIR {
                throw OutputError(file: target, stage: .creating, detail: "is a folder")
            }
            if !overwrite { throw OutputError.exists(target) }
        } else if errno == ENAMETOOLONG {
            throw Self.nameTooLong(target)
        }
        // A partial file a killed run left for this same target goes first (one a live process
        // holds locked stays).
        _ = PartialOutputFiles.removeStale(forTargets: [target])
        let name = PartialOutputFiles.temporaryName(forTargetNamed: (target as NSString).lastPathComponent,
                                                    token: PartialOutputFiles.randomToken())
        temporaryPath = (folder as NSString).appendingPathComponent(name)
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputError(file: target, stage: .creating, detail: "cannot create a file in \(folder)", code: ErrorCode(errno: errno)) }
        // Held until the file is committed or removed: a later run sees it is live (`PartialOutputFiles`).
        flock(fd, LOCK_EX | LOCK_NB)
        lockDescriptor = fd
        // Remembered where a signal handler can remove it, should the process die.
        guardSlot = vwm_guard_remember(temporaryPath, target)
    }

    deinit {
        if !committed { discard() }
    }

    /// What ENAMETOOLONG meant: a folder's name over the file system's limit, or the whole path over the system's.
    private static func nameTooLong(_ target: String) -> OutputError {
        let longest = target.split(separator: "/").map(\.utf8.count).max() ?? 0
        let detail = longest > Int(NAME_MAX)
            ? "a name in the path is \(longest) bytes long; the file system allows at most \(NAME_MAX)"
            : "the path is \(target.utf8.count) bytes long; the system allows at most \(PATH_MAX)"
        return OutputError(file: target, stage: .creating, detail: detail)
    }

    /// Removes the temporary file (idempotent).
    func discard() {
        unlink(temporaryPath)
        release()
    }

    /// Forgets the file: unlocks it and takes it off the signal handlers' list.
    private func release() {
        vwm_guard_forget(guardSlot)
        guardSlot = -1
        if lockDescriptor >= 0 { close(lockDescriptor) }
        lockDescriptor = -1
    }

    /// Writes `bytes` as the whole content of the temporary file (an output made in memory).
    func write(_ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return Glibc.write(lockDescriptor, base, buffer.count)
        }
        let writeError = errno
        guard written == bytes.count else {
            throw OutputError(file: target, stage: .writing, operation: "writing", code: ErrorCode(errno: written < 0 ? writeError : ENOSPC))
        }
    }

    /// Flushes the finished temporary file to disk and moves it to the target.
    func commit() throws {
        // The descriptor held since the file was made reaches the same file the writers wrote,
        // with no new descriptor needed (there may be none left to take).
        guard access(temporaryPath, F_OK) == 0 else { throw OutputError(file: target, stage: .writing, detail: "the finished temporary file vanished") }
        let synced = fsync(lockDescriptor)
        let syncError = errno
        guard synced == 0 else { throw OutputError(file: target, stage: .writing, operation: "flushing to disk", code: ErrorCode(errno: syncError)) }
        if overwrite {
            guard rename(temporaryPath, target) == 0 else {
                throw OutputError(file: target, stage: .writing, operation: "moving the finished file into place", code: ErrorCode(errno: errno))
            }
        } else {
            // link() fails if the target appeared meanwhile, so an existing file is never replaced.
            guard link(temporaryPath, target) == 0 else {
                let e = errno
                if e == EEXIST { throw OutputError.exists(target) }
                throw OutputError(file: target, stage: .writing, operation: "moving the finished file into place", code: ErrorCode(errno: e))
            }
            unlink(temporaryPath)
        }
        committed = true
        release()
        // Make the rename itself durable.
        let directory = (target as NSString).deletingLastPathComponent
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}

