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

    /// Checks the target up front (before any decoding) and reserves a temporary name.
    /// `inputs` are files the target must not be, by path or by identity (device and inode).
    init(target: String, overwrite: Bool, inputs: [String]) throws {
        self.target = target
        self.overwrite = overwrite
        let directory = (target as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        var dirInfo = stat()
        guard stat(folder, &dirInfo) == 0, (dirInfo.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError(file: target, stage: .creating, detail: "the folder \(folder) does not exist")
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
        }
        let name = (target as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        // Keep the extension so format detection by name still works on the temporary file.
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        temporaryPath = (folder as NSString).appendingPathComponent(".\(name).\(random).videowm-partial" + (ext.isEmpty ? "" : ".\(ext)"))
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw OutputError(file: target, stage: .creating, detail: "cannot create a file in \(folder)", code: ErrorCode(errno: errno)) }
        close(fd)
        TemporaryFiles.register(temporaryPath)
    }

    deinit {
        if !committed { discard() }
    }

    /// Removes the temporary file (idempotent).
    func discard() {
        unlink(temporaryPath)
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Flushes the finished temporary file to disk and moves it to the target.
    func commit() throws {
        let fd = open(temporaryPath, O_RDONLY)
        guard fd >= 0 else { throw OutputError(file: target, stage: .writing, detail: "the finished temporary file vanished") }
        let synced = fsync(fd)
        let syncError = errno
        close(fd)
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
        TemporaryFiles.unregister(temporaryPath)
        // Make the rename itself durable.
        let directory = (target as NSString).deletingLastPathComponent
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}

/// Temporary outputs still open, so a fatal path can remove them before exiting.
enum TemporaryFiles {
    nonisolated(unsafe) private static var paths: Set<String> = []
    private static let lock = NSLock()

    static func register(_ path: String) { lock.lock(); paths.insert(path); lock.unlock() }
    static func unregister(_ path: String) { lock.lock(); paths.remove(path); lock.unlock() }

    /// Removes every temporary file still registered.
    public static func removeAll() {
        lock.lock()
        for p in paths { unlink(p) }
        paths.removeAll()
        lock.unlock()
    }
}
