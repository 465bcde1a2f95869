#if canImport(Glibc)
import Glibc
#endif

/// A file opened for reading, owned: closed when the last reference goes. The HTTP layer
/// hands the library a duplicate of the descriptor, which the library closes itself.
public final class OpenFile: @unchecked Sendable {
    public let descriptor: Int32
    public let size: UInt64
    /// When the file was last written.
    public let modificationNanoseconds: UInt64
    /// Device and inode: which file this is, whatever its name now.
    let device: UInt64
    let inode: UInt64

    /// Opens `path` for reading, or nil when it is not a regular file that can be read.
    public init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        descriptor = fd
        size = UInt64(info.st_size)
        modificationNanoseconds = UInt64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ UInt64(info.st_mtim.tv_nsec)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The whole file, read from its start (nil on a read error or if it changed size meanwhile).
    func contents() -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { pread(descriptor, $0 + done, buffer.count - done, off_t(done)) } ?? 0
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }

    deinit { close(descriptor) }
}

/// What the cache hands out for a key: its file (sent with sendfile), or — when the bytes just
/// rendered could not be stored (the cache volume full) — those bytes, for this answer only.
public struct CacheItem: Sendable {
    public enum Body: Sendable {
        case file(OpenFile)
        case memory([UInt8])
    }

    public let body: Body
    /// SHA-256 of the bytes, as recorded when the file was published (every process and replica
    /// agrees on it: an ETag).
    public let digest: [UInt8]

    public var size: UInt64 {
        switch body {
        case .file(let file): file.size
        case .memory(let bytes): UInt64(bytes.count)
        }
    }
}
