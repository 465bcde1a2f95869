import CProcessGuard
import Foundation
import VideoWM
#if canImport(Glibc)
import Glibc
#endif

/// The folder of rendered files, shared by every `serve` process that points at it.
///
/// - **Write-once.** A file is written to a hidden temporary name beside its final one,
///   flushed to disk and renamed into place, all while its key's lock is held; readers only
///   ever open final names, so nobody is served a partial file, and a process killed
///   mid-write leaves only a temporary file (removed at the next start, or by whichever
///   process next makes that file).
/// - **One render per file, across processes.** `produce` takes an exclusive `flock` on the
///   key's lock file (under `.locks/`) before looking for the file and rendering it: a
///   second process asking for the same file waits for the first and then finds it made.
///   The kernel releases the lock of a process that dies. Files made by one render (a segment's
///   variants) are made under their group's lock (`produceGroup`), the same way.
/// - **Bounded.** Past `capacity` bytes, the least recently used files are removed (last
///   use is the file's access time, which this cache sets itself on every hit, so it holds
///   across processes and restarts whatever the mount's atime policy). A file being
///   rendered is never removed; one being sent stays readable to its open descriptor.
/// - **Survives restarts.** Nothing lives only in memory: a restart rescans the folder.
public final class SegmentCache: @unchecked Sendable {
    public let folder: String
    public let capacity: UInt64
    private let lockFolder: String
    private let lock = NSLock()
    private var knownBytes: UInt64 = 0
    private var lastScan: Double = 0
    public private(set) var evictedFiles = 0

    static let temporarySuffix = ".partial"

    public init(folder: String, capacity: UInt64) throws {
        self.folder = folder
        self.capacity = capacity
        lockFolder = (folder as NSString).appendingPathComponent(".locks")
        for path in [folder, lockFolder] {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw CacheError(path: path, operation: "creating the cache folder", code: (error as NSError).code == 0 ? EIO : Int32(errno))
            }
        }
        guard access(folder, W_OK) == 0 else { throw CacheError(path: folder, operation: "writing to the cache folder", code: errno) }
        removeAbandonedTemporaryFiles()
        knownBytes = scan().reduce(0) { $0 + $1.size }
        lastScan = ConnectionWatchdog.now()
    }

    /// The final path of a key (a relative path made of safe components).
    public func path(of key: String) -> String { (folder as NSString).appendingPathComponent(key) }

    /// Whether a file is published under `key`, without opening it or marking it used: what a
    /// render ahead or warming asks before queueing work.
    public func contains(_ key: String) -> Bool { access(path(of: key), F_OK) == 0 }

    /// The file under `key` when it is there (marked as used now), else nil.
    public func open(_ key: String) -> OpenFile? {
        let path = path(of: key)
        guard let file = OpenFile(path: path) else { return nil }
        markUsed(file)
        return file
    }

    /// The file under `key`: the one there, or made by `render` while the key's lock is held
    /// (so across processes one render makes it), written once and renamed into place.
    public func produce(_ key: String, render: () throws -> [UInt8]) throws -> (file: OpenFile, rendered: Bool) {
        if let file = open(key) { return (file, false) }
        let keyLock = try KeyLock(path: lockPath(of: key))
        defer { keyLock.release() }
        if let file = open(key) { return (file, false) }  // another process made it while we waited
        let bytes = try render()
        let final = path(of: key)
        try write(bytes, to: final)
        guard let file = OpenFile(path: final) else { throw CacheError(path: final, operation: "opening the file just written", code: errno) }
        lock.withLock { knownBytes += UInt64(bytes.count) }
        evictIfNeeded()
        return (file, true)
    }

    /// The files under `keys`, made together: those there (marked as used now), or, when any is
    /// missing, every missing one written from one `render` (its bytes in `keys` order) while the
    /// group's lock (`groupKey`, no file's key) and each file's are held — so across processes one
    /// render makes the group, whichever member is asked for first, and eviction (which takes a
    /// file's lock) never removes a member while it is being made.
    public func produceGroup(_ groupKey: String, keys: [String], render: () throws -> [[UInt8]]) throws -> (files: [OpenFile], rendered: Bool) {
        func openAll() -> [OpenFile]? {
            var files: [OpenFile] = []
            for key in keys {
                guard let file = open(key) else { return nil }
                files.append(file)
            }
            return files
        }
        if let files = openAll() { return (files, false) }
        let groupLock = try KeyLock(path: lockPath(of: groupKey))
        defer { groupLock.release() }
        // Each file's own lock, in the group's order, after the group's (no process takes them the other way round).
        let fileLocks = try keys.map { try KeyLock(path: lockPath(of: $0)) }
        defer { for lock in fileLocks { lock.release() } }
        if let files = openAll() { return (files, false) }  // another process made them while we waited
        let made = try render()
        precondition(made.count == keys.count, "one file per key of the group")
        var files: [OpenFile] = []
        for (key, bytes) in zip(keys, made) {
            if let file = open(key) {
                files.append(file)  // made before and kept: the same bytes
                continue
            }
            let final = path(of: key)
            try write(bytes, to: final)
            guard let file = OpenFile(path: final) else { throw CacheError(path: final, operation: "opening the file just written", code: errno) }
            lock.withLock { knownBytes += UInt64(bytes.count) }
            files.append(file)
        }
        evictIfNeeded()
        return (files, true)
    }

    private func lockPath(of key: String) -> String {
        (lockFolder as NSString).appendingPathComponent(Hex.string(ContentDigest.sha256(Array(key.utf8)).prefix(12)) + ".lock")
    }

    private func write(_ bytes: [UInt8], to final: String) throws {
        let directory = (final as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CacheError(path: directory, operation: "creating a cache folder", code: EIO)
        }
        let temporary = (directory as NSString).appendingPathComponent(
            "." + (final as NSString).lastPathComponent + "." + String(UInt64.random(in: 0...UInt64.max), radix: 36) + Self.temporarySuffix)
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheError(path: temporary, operation: "creating", code: errno) }
        var published = false
        // Remembered so an exit (the drain's deadline, a second signal, a fatal one) removes it.
        let guardSlot = vwm_guard_remember(temporary, final)
        defer {
            close(fd)
            if !published { unlink(temporary) }
            vwm_guard_forget(guardSlot)
        }
        // Held while written, so the start-up sweep of another process leaves it alone.
        _ = flock(fd, LOCK_EX | LOCK_NB)
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            while written < buffer.count, let base = buffer.baseAddress {
                let n = Glibc.write(fd, base + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw CacheError(path: temporary, operation: "writing", code: errno)
                }
                written += n
            }
        }
        guard fsync(fd) == 0 else { throw CacheError(path: temporary, operation: "flushing to disk", code: errno) }
        guard rename(temporary, final) == 0 else { throw CacheError(path: final, operation: "moving into place", code: errno) }
        published = true
    }

    /// Sets the file's access time to now: its place in the least-recently-used order.
    private func markUsed(_ file: OpenFile) {
        // UTIME_NOW and UTIME_OMIT (<sys/stat.h> macros Swift does not import): access time now, modification time kept.
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        _ = futimens(file.descriptor, &times)
    }

    struct Entry {
        let path: String
        let size: UInt64
        let lastUse: Double
    }

    /// Every cached file (not the lock folder, not temporary files).
    func scan() -> [Entry] {
        var entries: [Entry] = []
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if relative == ".locks" { walker.skipDescendants(); continue }
            guard !name.hasPrefix(".") else { continue }
            let path = path(of: relative)
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            entries.append(Entry(path: path, size: UInt64(info.st_size),
                                 lastUse: Double(info.st_atim.tv_sec) + Double(info.st_atim.tv_nsec) / 1e9))
        }
        return entries
    }

    /// Bytes in the cache as this process knows them (rescanned at every eviction).
    public var approximateBytes: UInt64 { lock.withLock { knownBytes } }

    /// Removes least recently used files until the cache is at 90% of its capacity, when it
    /// is over it. One process evicts at a time (others skip); it rescans the folder first,
    /// so files written by other processes count.
    public func evictIfNeeded() {
        let due = lock.withLock { knownBytes > capacity || ConnectionWatchdog.now() - lastScan > 60 }
        guard due else { return }
        guard let evictionLock = try? KeyLock(path: (lockFolder as NSString).appendingPathComponent("eviction.lock"), wait: false) else { return }
        defer { evictionLock.release() }
        let entries = scan()
        var total = entries.reduce(0) { $0 + $1.size }
        var removed = 0
        if total > capacity {
            let target = capacity / 10 * 9
            for entry in entries.sorted(by: { $0.lastUse < $1.lastUse }) where total > target {
                let key = String(entry.path.dropFirst(folder.count + 1))
                // A file whose key is locked is being made (or re-made) right now: leave it.
                guard let keyLock = try? KeyLock(path: lockPath(of: key), wait: false) else { continue }
                if unlink(entry.path) == 0 {
                    total -= entry.size
                    removed += 1
                }
                keyLock.release(removingLockFile: true)
            }
        }
        lock.withLock {
            knownBytes = total
            lastScan = ConnectionWatchdog.now()
            evictedFiles += removed
        }
    }

    /// Temporary files nobody holds: left by a process that was killed while writing.
    private func removeAbandonedTemporaryFiles() {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            guard name.hasPrefix("."), name.hasSuffix(Self.temporarySuffix) else { continue }
            let path = path(of: relative)
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
            close(fd)
        }
    }
}

/// An exclusive `flock` on a lock file, taken so that the file seen locked is the one at the
/// path (a lock file removed and re-created by another process meanwhile is locked again).
final class KeyLock {
    private var fd: Int32
    private let path: String

    /// Waits for the lock (or, with `wait: false`, throws when another holds it).
    init(path: String, wait: Bool = true) throws {
        self.path = path
        while true {
            let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw CacheError(path: path, operation: "opening a lock file", code: errno) }
            var result: Int32
            repeat { result = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) } while result != 0 && errno == EINTR
            guard result == 0 else {
                let code = errno
                close(fd)
                throw CacheError(path: path, operation: "locking", code: code)
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
    public var description: String { "\(path): \(operation) failed: \(String(cString: strerror(code)))" }
}
