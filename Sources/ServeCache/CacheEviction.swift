import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeping the cache within its bounds: its capacity, and the room its volume has.
extension SegmentCache {
    struct Entry {
        let path: String
        let size: UInt64
        let lastUse: Double
    }

    /// Every cached file (not the lock folder), and the hidden files beside them (records,
    /// temporary files).
    func scan() -> (files: [Entry], hidden: [String]) {
        var entries: [Entry] = []
        var hidden: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return ([], []) }
        while let relative = walker.nextObject() as? String {
            if relative == ".locks" { walker.skipDescendants(); continue }
            let path = path(of: relative)
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            guard !(relative as NSString).lastPathComponent.hasPrefix(".") else {
                hidden.append(path)
                continue
            }
            entries.append(Entry(path: path, size: UInt64(info.st_size),
                                 lastUse: Double(info.st_atim.tv_sec) + Double(info.st_atim.tv_nsec) / 1e9))
        }
        return (entries, hidden)
    }

    /// Removes what processes left behind: temporary files nobody holds (their writer was
    /// killed) and records, a minute old, of files that are gone.
    func sweep(_ hidden: [String]) {
        for path in hidden {
            let name = (path as NSString).lastPathComponent
            if name.hasSuffix(TemporaryFile.suffix) {
                let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
                close(fd)
            } else if name.hasSuffix(PublicationRecord.suffix) {
                let file = ((path as NSString).deletingLastPathComponent as NSString)
                    .appendingPathComponent(String(name.dropFirst().dropLast(PublicationRecord.suffix.count)))
                var info = stat()
                guard access(file, F_OK) != 0, stat(path, &info) == 0, Double(time(nil) - info.st_mtim.tv_sec) > 60 else { continue }
                unlink(path)
            }
        }
    }

    /// Removes least recently used files until the cache is at 90% of its capacity, when it
    /// is over it (and sweeps what killed processes left, once a minute). One process evicts at
    /// a time (others skip); it rescans the folder first, so files written by other processes count.
    public func evictIfNeeded() {
        let due = lock.withLock { knownBytes > capacity || CacheClock.now() - lastScan > 60 }
        guard due else { return }
        evict { total in total > capacity ? capacity / 10 * 9 : nil }
    }

    /// After a write failed for want of space: sweeps, and removes the least recently used files
    /// until `bytes` and as much again, and a twentieth of the cache, have been freed — room for
    /// this file and the next few.
    func makeRoom(for bytes: UInt64) {
        evict { total in
            let wanted = max(2 * bytes, total / 20)
            return total > wanted ? total - wanted : 0
        }
    }

    /// Passes an eviction makes at most when asked again while it ran.
    static let evictionPasses = 3

    /// Rescans, sweeps, and removes the least recently used files (their records with them) down
    /// to `target(total)` bytes (nil: none). An eviction asked for while another of this process
    /// runs is not skipped: the running one passes again, since its scan may predate the file
    /// that asked (and its count would overwrite that file's bytes, leaving the cache over its
    /// capacity until the next file is stored).
    private func evict(to target: (UInt64) -> UInt64?) {
        guard let evictionLock = try? KeyLock(path: (lockFolder as NSString).appendingPathComponent("eviction.lock"), waitSeconds: 0) else {
            lock.withLock { evictionMissed = true }
            return
        }
        defer { evictionLock.release() }
        for _ in 0..<Self.evictionPasses {
            lock.withLock { evictionMissed = false }
            evictionPass(to: target)
            guard lock.withLock({ evictionMissed }) else { break }
        }
    }

    private func evictionPass(to target: (UInt64) -> UInt64?) {
        let (entries, hidden) = scan()
        sweep(hidden)
        var total = entries.reduce(0) { $0 + $1.size }
        var removed = 0
        if let target = target(total) {
            for entry in entries.sorted(by: { $0.lastUse < $1.lastUse }) where total > target {
                let key = String(entry.path.dropFirst(folder.count + 1))
                // A file whose key is locked is being made (or re-made) right now: leave it.
                guard let keyLock = try? KeyLock(path: lockPath(of: key), waitSeconds: 0) else { continue }
                if unlink(entry.path) == 0 {
                    unlink(PublicationRecord.path(of: entry.path))
                    total -= entry.size
                    removed += 1
                }
                keyLock.release(removingLockFile: true)
            }
        }
        lock.withLock {
            knownBytes = total
            lastScan = CacheClock.now()
            evictedFiles += removed
        }
    }
}
