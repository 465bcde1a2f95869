import Foundation
import VideoWM
#if canImport(Glibc)
import Glibc
#endif

/// The folder of rendered files, shared by every `serve` process that points at it.
///
/// - **Write-once, checked.** A file is written to a hidden temporary name beside its final one,
///   flushed to disk and renamed into place, with a record of its length and SHA-256
///   (`PublicationRecord`), all while its key's lock is held; readers only open final names and
///   check them against their record (the length at every open, the digest once per process
///   and file), so nobody is served a partial or damaged file: one is rendered again.
/// - **One render per file, across processes.** `produce` takes an exclusive `flock` on the
///   key's lock file (under `.locks/`) before looking for the file and rendering it: a second
///   process asking for the same file waits for the first and then finds it made. The kernel
///   releases the lock of a process that dies; a holder that hangs is waited for
///   `lockWaitSeconds` at most, then the waiter renders itself. Files made by one render (a
///   segment's variants) are made under their group's lock (`produceGroup`), the same way.
/// - **Answers even when it cannot store.** A render whose result cannot be written (a full
///   volume, a quota) is handed out from memory for that request, after eviction has tried to
///   make room; one log line when storing stops and one when it works again.
/// - **Bounded.** Past `capacity` bytes, the least recently used files are removed (last
///   use is the file's access time, which this cache sets itself on every hit, so it holds
///   across processes and restarts whatever the mount's atime policy). A file being
///   rendered is never removed; one being sent stays readable to its open descriptor.
/// - **Survives restarts.** Nothing lives only in memory: a restart rescans the folder.
public final class SegmentCache: @unchecked Sendable {
    public let folder: String
    public let capacity: UInt64
    /// Longest wait for another process's lock on a file (a live holder that never finishes).
    public let lockWaitSeconds: Double
    let lockFolder: String
    let log: @Sendable (String) -> Void
    let lock = NSLock()
    var knownBytes: UInt64 = 0
    var lastScan: Double = 0
    /// An eviction was asked for while another of this process's ran (`evict` runs again).
    var evictionMissed = false
    public internal(set) var evictedFiles = 0
    /// Files found damaged (truncated, altered, without a record) and rendered again.
    public private(set) var damagedFiles = 0
    /// Renders answered from memory because they could not be stored.
    public private(set) var unstoredFiles = 0
    /// Why storing fails now (nil: it works), for the one log line of an incident.
    private var storingProblem: CacheError?
    /// The smallest file that could not be stored since `storingProblem` began: storing works
    /// again only when a file at least that large is stored. A playlist of 2 KB that fits beside a
    /// full volume's last free blocks says nothing about the 90 KB segments, and would have the
    /// log and the `volume_full` gauge flap between the two states with every request.
    private var smallestUnstored: Int = .max
    /// Files whose bytes this process has checked against their record (by path), as they were
    /// then, and when (checked again after `recheckSeconds`: a disk's silent damage, or an
    /// alteration within the clock tick of the last write, which leaves the time unchanged).
    private var checked: [String: (identity: FileIdentity, at: Double)] = [:]
    static let recheckSeconds = 600.0

    /// 30 s: far longer than a segment's render, short enough that a hung process cannot hold a file for long.
    public static let defaultLockWaitSeconds = 30.0

    public init(folder: String, capacity: UInt64, lockWaitSeconds: Double = SegmentCache.defaultLockWaitSeconds,
                log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.folder = folder
        self.capacity = capacity
        self.lockWaitSeconds = lockWaitSeconds
        self.log = log
        lockFolder = (folder as NSString).appendingPathComponent(".locks")
        try Self.makeFolders(lockFolder)
        guard access(folder, W_OK) == 0 else { throw CacheError(path: folder, operation: "writing to the cache folder", code: errno) }
        let (entries, hidden) = scan()
        sweep(hidden)
        knownBytes = entries.reduce(0) { $0 + $1.size }
        lastScan = CacheClock.now()
    }

    /// Whether the cache volume refuses writes for want of space right now.
    public var isVolumeFull: Bool { lock.withLock { storingProblem?.isOutOfSpace ?? false } }

    /// The final path of a key (a relative path made of safe components).
    public func path(of key: String) -> String { (folder as NSString).appendingPathComponent(key) }

    /// The file under `key` when it is there, whole and already checked by this process (marked
    /// as used now), else nil. Reads no more than the file's record: cheap enough for a thread
    /// that must not block; a file not yet checked is `produce`'s to check, on a worker.
    public func open(_ key: String) -> CacheItem? {
        if case .found(let item) = lookup(key, hashing: false) { return item }
        return nil
    }

    /// Whether a whole file is published under `key` (its record there and its length right),
    /// without hashing it or marking it used: what a render ahead or warming asks before queueing
    /// work. A file damaged since is found and made again by the request that opens it.
    public func contains(_ key: String) -> Bool {
        switch lookup(key, hashing: false) {
        case .found, .unchecked: true
        case .missing, .damaged: false
        }
    }

    enum Lookup {
        case found(CacheItem)
        case missing
        case damaged(String)
        case unchecked
    }

    /// The file under `key` against its record: its length always, its bytes' digest when this
    /// process has not checked them as they are now (`hashing`; else `.unchecked`).
    func lookup(_ key: String, hashing: Bool) -> Lookup {
        let path = path(of: key)
        guard let file = OpenFile(path: path) else { return .missing }
        guard let record = PublicationRecord(of: path) else { return .damaged("no record of its length and digest") }
        guard record.size == file.size else { return .damaged("\(file.size) bytes where \(record.size) were published") }
        let identity = FileIdentity(file)
        let known = lock.withLock { checked[path] }
        if known?.identity != identity || CacheClock.now() - (known?.at ?? 0) > Self.recheckSeconds {
            guard hashing else { return .unchecked }
            guard let bytes = file.contents() else { return .damaged("unreadable") }
            guard ContentDigest.sha256(bytes) == record.digest else { return .damaged("its bytes are not those published (SHA-256 differs)") }
            remember(path, identity)
        }
        markUsed(file)
        return .found(CacheItem(body: .file(file), digest: record.digest))
    }

    private func remember(_ path: String, _ identity: FileIdentity) {
        lock.withLock {
            if checked.count >= 100_000 { checked.removeAll() }  // a bound; forgotten files are checked again
            checked[path] = (identity, CacheClock.now())
        }
    }

    /// The file under `key`: the one there, or made by `render` while the key's lock is held
    /// (so across processes one render makes it), written once and renamed into place — or, when
    /// it cannot be stored, the rendered bytes. Throws only what `render` throws.
    public func produce(_ key: String, render: () throws -> [UInt8]) throws -> (item: CacheItem, rendered: Bool) {
        if case .found(let item) = lookup(key, hashing: true) { return (item, false) }
        let keyLock = lockOrRenderWithout(key)
        defer { keyLock?.release() }
        if let item = foundOrDiscarded(key) { return (item, false) }  // another process made it while we waited
        return (store(try render(), key: key), true)
    }

    /// The files under `keys`, made together: those there (marked as used now), or, when any is
    /// missing, every missing one stored from one `render` (its bytes in `keys` order) while the
    /// group's lock (`groupKey`, no file's key) and each file's are held — so across processes one
    /// render makes the group, whichever member is asked for first, and eviction (which takes a
    /// file's lock) never removes a member while it is being made.
    public func produceGroup(_ groupKey: String, keys: [String], render: () throws -> [[UInt8]]) throws -> (items: [CacheItem], rendered: Bool) {
        func findAll() -> [CacheItem]? {
            var items: [CacheItem] = []
            for key in keys {
                guard case .found(let item) = lookup(key, hashing: true) else { return nil }
                items.append(item)
            }
            return items
        }
        if let items = findAll() { return (items, false) }
        let groupLock = lockOrRenderWithout(groupKey)
        // Each file's own lock, in the group's order, after the group's (no process takes them the other way round).
        let fileLocks = groupLock == nil ? [] : keys.compactMap { try? KeyLock(path: lockPath(of: $0), waitSeconds: lockWaitSeconds) }
        defer {
            for lock in fileLocks { lock.release() }
            groupLock?.release()
        }
        let found = keys.map(foundOrDiscarded)
        if found.allSatisfy({ $0 != nil }) { return (found.compactMap { $0 }, false) }  // made by another process meanwhile
        let made = try render()
        precondition(made.count == keys.count, "one file per key of the group")
        let items = zip(keys, made).enumerated().map { index, pair in found[index] ?? store(pair.1, key: pair.0) }
        return (items, true)
    }

    /// The key's lock, or nil when it cannot be had in time (a hung holder) or at all (no room for
    /// a lock file): the caller then renders without it — a duplicate render at worst, since a file
    /// is renamed into place whole and every render of a key makes the same bytes.
    private func lockOrRenderWithout(_ key: String) -> KeyLock? {
        do {
            return try KeyLock(path: lockPath(of: key), waitSeconds: lockWaitSeconds)
        } catch {
            if !error.isOutOfSpace { log("cache: \(error); rendering \(key) without the lock") }
            return nil
        }
    }

    /// The file under `key` if it is there and whole; a damaged one is removed (and logged) so it is made again.
    private func foundOrDiscarded(_ key: String) -> CacheItem? {
        switch lookup(key, hashing: true) {
        case .found(let item):
            return item
        case .damaged(let reason):
            let path = path(of: key)
            unlink(path)
            unlink(PublicationRecord.path(of: path))
            lock.withLock { damagedFiles += 1 }
            log("cache: \(key) damaged (\(reason)): removed, rendered again")
            return nil
        case .missing, .unchecked:
            return nil
        }
    }

    /// Stores freshly rendered bytes under `key`; when the volume is full, makes room and tries
    /// once more; when storing still fails, hands the bytes out from memory.
    private func store(_ bytes: [UInt8], key: String) -> CacheItem {
        let record = PublicationRecord(size: UInt64(bytes.count), digest: ContentDigest.sha256(bytes))
        let final = path(of: key)
        do {
            do {
                try publish(bytes, record: record, to: final)
            } catch where error.isOutOfSpace {
                makeRoom(for: UInt64(bytes.count))
                try publish(bytes, record: record, to: final)
            }
        } catch {
            storingFailed(error, size: bytes.count)
            return CacheItem(body: .memory(bytes), digest: record.digest)
        }
        let problem = lock.withLock { () -> CacheError? in
            knownBytes += UInt64(bytes.count)
            guard let problem = storingProblem, bytes.count >= smallestUnstored else { return nil }
            storingProblem = nil
            smallestUnstored = .max
            return problem
        }
        if let problem { log("cache: storing files again (it had failed: \(problem))") }
        guard let file = OpenFile(path: final) else { return CacheItem(body: .memory(bytes), digest: record.digest) }
        remember(final, FileIdentity(file))
        evictIfNeeded()
        return CacheItem(body: .file(file), digest: record.digest)
    }

    private func storingFailed(_ error: CacheError, size: Int) {
        let first = lock.withLock { () -> Bool in
            unstoredFiles += 1
            smallestUnstored = min(smallestUnstored, size)
            defer { storingProblem = error }
            return storingProblem == nil || storingProblem?.code != error.code
        }
        guard first else { return }
        let why = error.isOutOfSpace ? "the cache volume is full even after eviction" : "the cache cannot be written"
        log("cache: \(why) (\(error)); files that cannot be stored are answered from memory until storing works again")
    }

    func lockPath(of key: String) -> String {
        (lockFolder as NSString).appendingPathComponent(Hex.string(ContentDigest.sha256(Array(key.utf8)).prefix(12)) + ".lock")
    }

    /// Sets the file's access time to now: its place in the least-recently-used order.
    private func markUsed(_ file: OpenFile) {
        // UTIME_NOW and UTIME_OMIT (<sys/stat.h> macros Swift does not import): access time now, modification time kept.
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        _ = futimens(file.descriptor, &times)
    }

    /// Bytes in the cache as this process knows them (rescanned at every eviction).
    public var approximateBytes: UInt64 { lock.withLock { knownBytes } }
}

/// Which file an open descriptor is, and as written when: what a check of its bytes holds for.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: UInt64
    let modificationNanoseconds: UInt64

    init(_ file: OpenFile) {
        device = file.device
        inode = file.inode
        size = file.size
        modificationNanoseconds = file.modificationNanoseconds
    }
}
