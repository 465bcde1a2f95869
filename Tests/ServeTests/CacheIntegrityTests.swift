import Foundation
import TestSupport
import Testing
import VideoWM
@testable import ServeCache

/// The cache against what the world does to it: files truncated or altered behind its back, a
/// volume that fills up, a lock held by a process that hangs, leftovers of a killed one.
@Suite("serve: cache integrity", .serialized)
struct CacheIntegrityTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    func temporaryFolder() -> String {
        let path = NSTemporaryDirectory() + "videowm-cache-integrity-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func bytes(_ seed: UInt8, count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }

    @Test func aTruncatedOrAlteredFileIsRenderedAgainNeverHandedOut() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = Lines()
        let cache = try SegmentCache(folder: folder, capacity: 1 << 30, log: { log.append($0) })
        let key = "l/r/own/s/v/1.m4s"
        let original = bytes(1, count: 10_000)
        #expect(try cache.produce(key) { original }.rendered)
        #expect(cache.open(key)?.size == 10_000)
        let path = cache.path(of: key)
        // Truncated to half by someone else: the length no longer matches the record.
        #expect(truncate(path, 5_000) == 0)
        #expect(cache.open(key) == nil)
        let again = try cache.produce(key) { original }
        #expect(again.rendered && again.item.size == 10_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(original))
        // One byte altered in place, length kept: this process checked the file before, but its
        // modification time changed, so it is checked again, and refused. (After a pause: within
        // one tick of the kernel's clock the time would not change.)
        usleep(50_000)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4_000)
        try handle.write(contentsOf: Data([0xFF ^ original[4_000]]))
        try handle.close()
        #expect(cache.open(key) == nil)
        #expect(try cache.produce(key) { original }.rendered)
        // Another process (a new cache on the folder) checks a file it has not checked before.
        let other = try SegmentCache(folder: folder, capacity: 1 << 30)
        #expect(other.open(key) == nil)  // not checked yet: not handed out by the cheap path
        #expect(try other.produce(key) { Issue.record("rendered a whole file again"); return [] }.rendered == false)
        #expect(other.open(key) != nil)
        // Without its record, a file is not trusted either.
        unlink(PublicationRecord.path(of: path))
        #expect(try other.produce(key) { original }.rendered)
        #expect(cache.damagedFiles == 2 && other.damagedFiles == 1)
        #expect(log.all.filter { $0.contains("damaged") }.count == 2, "\(log.all)")
        #expect(PublicationRecord(of: path) == PublicationRecord(size: 10_000, digest: ContentDigest.sha256(original)))
    }

    @Test func aLockHeldByAHungProcessDelaysARenderOnlyUpToTheBound() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try SegmentCache(folder: folder, capacity: 1 << 30, lockWaitSeconds: 1)
        let key = "l/r/own/s/v/2.m4s"
        let script = "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)"
        let holder = try ChildProcess("/usr/bin/env", ["python3", "-c", script, cache.lockPath(of: key)], stdout: .pipe)
        defer {
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()
        }
        _ = holder.output?.availableData  // "locked"
        let started = Date()
        let made = try cache.produce(key) { [7, 7, 7] }
        let waited = Date().timeIntervalSince(started)
        #expect(made.rendered && made.item.size == 3)
        #expect(waited >= 0.9 && waited < 5, "\(waited)")
    }

    @Test func leftoversOfAKilledWriterAreSweptAndNeverServed() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/l/r/own/s/v", withIntermediateDirectories: true)
        let partial = folder + "/l/r/own/s/v/.3.m4s.abc.partial"
        let orphanRecord = folder + "/l/r/own/s/v/.4.m4s.sum"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: partial))
        try Data("videowm-cache 1 3 00\n".utf8).write(to: URL(fileURLWithPath: orphanRecord))
        var old = [timespec(tv_sec: time(nil) - 120, tv_nsec: 0), timespec(tv_sec: time(nil) - 120, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, orphanRecord, &old, 0)
        let cache = try SegmentCache(folder: folder, capacity: 1 << 20)
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(!FileManager.default.fileExists(atPath: orphanRecord))
        #expect(cache.open("l/r/own/s/v/3.m4s") == nil)
    }

    /// A 2 MB tmpfs as the cache volume (root only; skipped with the reason otherwise).
    @Test func aFullVolumeAnswersFromMemoryMakesRoomAndRecovers() throws {
        let mount = temporaryFolder()
        defer {
            _ = try? ChildProcess.run("/bin/umount", [mount])
            try? FileManager.default.removeItem(atPath: mount)
        }
        let mounted = try? ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mount])
        guard geteuid() == 0, mounted?.status == 0 else {
            print("skipped: cannot mount a 2 MB tmpfs here (needs root and mount permission)")
            return
        }
        let log = Lines()
        let cache = try SegmentCache(folder: mount + "/cache", capacity: 1 << 30, log: { log.append($0) })
        // Ballast outside the cache leaves room for about two files of 400 KB.
        let ballast = mount + "/ballast"
        try Data(count: 1_100_000).write(to: URL(fileURLWithPath: ballast))
        // (No answer is kept: an open file's blocks stay in use until it is closed, as while one is sent.)
        for index in 0..<6 {
            let content = bytes(UInt8(index), count: 400_000)
            let made = try cache.produce("l/r/own/s/v/\(index).m4s") { content }
            #expect(made.rendered && made.item.size == 400_000 && made.item.digest == ContentDigest.sha256(content))
            guard case .file = made.item.body else { Issue.record("file \(index) not stored though eviction could make room"); continue }
        }
        // Eviction made room for the newest files; what was evicted is gone whole, with its record.
        #expect(cache.evictedFiles >= 1)
        let listed = (FileManager.default.enumerator(atPath: mount + "/cache")?.allObjects as? [String] ?? [])
        #expect(!listed.contains { $0.hasSuffix(".partial") }, "\(listed)")
        for file in listed where file.hasSuffix(".m4s") {
            let path = mount + "/cache/" + file
            #expect(PublicationRecord(of: path)?.size == 400_000, "\(file)")
        }
        // A file larger than all the room eviction can make: nothing can be stored, every answer
        // comes from memory, one line says so, nothing partial is left.
        for index in 6..<9 {
            let content = bytes(UInt8(index), count: 1_200_000)
            let made = try cache.produce("l/r/own/s/v/\(index).m4s") { content }
            guard case .memory(let held) = made.item.body else { Issue.record("stored on a full volume"); continue }
            #expect(held == content && made.item.digest == ContentDigest.sha256(content))
        }
        #expect(cache.unstoredFiles == 3 && cache.isVolumeFull, "\(cache.unstoredFiles) \(log.all)")
        #expect(log.all.filter { $0.contains("volume is full") }.count == 1, "\(log.all)")
        #expect(!((FileManager.default.enumerator(atPath: mount + "/cache")?.allObjects as? [String] ?? []).contains { $0.hasSuffix(".partial") }))
        // Space returns: the next file is stored, and the log says so once.
        unlink(ballast)
        let made = try cache.produce("l/r/own/s/v/9.m4s") { bytes(9, count: 1_200_000) }
        guard case .file = made.item.body else { Issue.record("not stored once space returned"); return }
        #expect(!cache.isVolumeFull)
        #expect(log.all.filter { $0.contains("storing files again") }.count == 1, "\(log.all)")
    }
}
