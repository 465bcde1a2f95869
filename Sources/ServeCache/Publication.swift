import CProcessGuard
import Foundation
import VideoWM
#if canImport(Glibc)
import Glibc
#endif

/// What a cached file was when it was published: its length and SHA-256, in a hidden file
/// beside it (`.NAME.sum`, one line: `videowm-cache 1 LENGTH SHA256`). A file that another
/// process, a full disk or a failing one has since truncated or altered no longer matches its
/// record, and is rendered again instead of served. (A record beside the file rather than an
/// extended attribute: Debian 12's tmpfs has no user attributes; nor inside it: the cache holds
/// exactly the bytes served, which tests and operators read as they are.)
struct PublicationRecord: Equatable {
    let size: UInt64
    let digest: [UInt8]

    static let suffix = ".sum"

    static func path(of file: String) -> String {
        let folder = (file as NSString).deletingLastPathComponent
        return (folder as NSString).appendingPathComponent("." + (file as NSString).lastPathComponent + suffix)
    }

    var line: String { "videowm-cache 1 \(size) \(Hex.string(digest))\n" }

    init(size: UInt64, digest: [UInt8]) {
        self.size = size
        self.digest = digest
    }

    /// The record of `file`, or nil when there is none or it is not one.
    init?(of file: String) {
        let fd = open(Self.path(of: file), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { bytes in bytes.baseAddress.map { read(fd, $0, bytes.count) } ?? 0 }
        guard count > 0 else { return nil }
        let fields = String(decoding: buffer.prefix(count), as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == "videowm-cache", fields[1] == "1", let size = UInt64(fields[2]),
              fields[3].hasSuffix("\n"), fields[3].count == 65 else { return nil }
        let hex = Array(fields[3].utf8.dropLast())
        var digest: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            digest.append(byte)
        }
        self.init(size: size, digest: digest)
    }
}

/// A hidden temporary file beside the name it will take, owned: written, flushed, then renamed
/// into place by `commit`; removed otherwise when it goes. It is locked while it exists (a
/// sweep removes only temporary files nobody holds: those of a process that was killed) and
/// remembered by the process guard (removed should the process exit mid-write).
final class TemporaryFile {
    static let suffix = ".partial"
    let path: String
    let final: String
    private let fd: Int32
    private let guardSlot: Int32
    private var committed = false

    init(becoming final: String) throws(CacheError) {
        self.final = final
        let folder = (final as NSString).deletingLastPathComponent
        path = (folder as NSString).appendingPathComponent(
            "." + (final as NSString).lastPathComponent + "." + String(UInt64.random(in: 0...UInt64.max), radix: 36) + Self.suffix)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheError(path: path, operation: "creating", code: errno) }
        guardSlot = vwm_guard_remember(path, final)
        _ = flock(fd, LOCK_EX | LOCK_NB)
    }

    /// Writes `bytes` and flushes them to disk.
    func write(_ bytes: [UInt8]) throws(CacheError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in buffer.baseAddress.map { Glibc.write(fd, $0 + written, buffer.count - written) } ?? 0 }
            if n < 0 {
                if errno == EINTR { continue }
                throw CacheError(path: path, operation: "writing", code: errno)
            }
            written += n
        }
        guard fsync(fd) == 0 else { throw CacheError(path: path, operation: "flushing to disk", code: errno) }
    }

    func commit() throws(CacheError) {
        guard rename(path, final) == 0 else { throw CacheError(path: final, operation: "moving into place", code: errno) }
        committed = true
    }

    deinit {
        close(fd)
        if !committed { unlink(path) }
        vwm_guard_forget(guardSlot)
    }
}

extension SegmentCache {
    /// Writes `bytes` under `final` with its record: the record first, then the file, each
    /// through a temporary file renamed into place, so a reader finds a whole file with its
    /// record or no file. Throws when either cannot be written (nothing partial is left).
    func publish(_ bytes: [UInt8], record: PublicationRecord, to final: String) throws(CacheError) {
        try Self.makeFolders((final as NSString).deletingLastPathComponent)
        let file = try TemporaryFile(becoming: final)
        try file.write(bytes)
        let recordFile = try TemporaryFile(becoming: PublicationRecord.path(of: final))
        try recordFile.write(Array(record.line.utf8))
        try recordFile.commit()
        try file.commit()
    }

    /// `mkdir -p`, with the system's reason when it fails (ENOSPC on a full volume).
    static func makeFolders(_ path: String) throws(CacheError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try makeFolders(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw CacheError(path: path, operation: "creating a cache folder", code: errno) }
    }
}
