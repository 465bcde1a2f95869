import CCrypto
import CProcessGuard
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The platform's secret: 32 random bytes in a file only its owner can read (`videowm keygen`),
/// or another secret read the same way (a token key shared with the platform).
///
/// The bytes live in memory this object owns and wipes when it goes (`OPENSSL_cleanse`), and
/// never in a `String`: the key's description, debug description and mirror say only which
/// file it came from, so no log line, error message or `dump` can show it.
public final class SecretKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable, @unchecked Sendable {
    // Written once in init, then only read: safe to share between threads.
    /// The size of the keys `generate` makes and `read(fromFile:)` expects.
    public static let byteCount = 32

    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// The file the key was read from, for messages; nil for a key made in memory.
    public let file: String?

    /// A key made of these bytes, at least one (tests, and keys a caller holds in memory already).
    public init(bytes: some Sequence<UInt8>, file: String? = nil) {
        storage = withContiguous(bytes) { bytes in
            precondition(!bytes.isEmpty, "a key has bytes")
            let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = storage.initialize(from: bytes)
            return storage
        }
        self.file = file
    }

    /// How many bytes the key has (32 for a key `videowm keygen` made).
    public var count: Int { storage.count }

    deinit {
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    /// A new random key.
    public static func generate() throws(CryptoError) -> SecretKey {
        var bytes = try SecureRandom.bytes(count: byteCount)
        defer { OPENSSL_cleanse(&bytes, bytes.count) }
        return SecretKey(bytes: bytes)
    }

    /// The key's bytes, for the HMAC that uses them; they stay inside the call.
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(storage))
    }

    /// The bytes as a sequence, for `HMACSHA256(key:)`, which copies them into libcrypto's
    /// context while the caller holds the key.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(storage) }

    public var description: String { file.map { "the key in \($0)" } ?? "a key" }
    public var debugDescription: String { "SecretKey(\(description))" }
    public var customMirror: Mirror { Mirror(self, children: ["file": file as Any]) }

    // MARK: Key files

    /// Reads the key in `path`: a regular file of exactly 32 bytes (or a size in `byteCounts`)
    /// that neither group nor other users can read or write.
    ///
    /// Loose permissions are refused, not warned about: whoever can read the key can compute any
    /// student's path and frame them, and whoever can replace it can make the next copies
    /// traceable to a key they know — a warning scrolls by in a batch log while the damage is
    /// done (OpenSSH refuses such private keys for the same reason). A missing or unreadable
    /// file is an `InputError`; loose permissions or another size a `KeyFileError`.
    public static func read(fromFile path: String, byteCounts: ClosedRange<Int> = byteCount...byteCount) throws -> SecretKey {
        precondition(byteCounts.lowerBound > 0 && byteCounts.upperBound <= 1 << 20, "a key file of 1 byte to 1 MB")
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: throw InputError.missing(path)
            case EACCES: throw InputError(file: path, problem: .permissionDenied)
            default: throw InputError(file: path, problem: .cannotOpen, code: ErrorCode(errno: errno))
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw InputError(file: path, problem: .cannotOpen, code: ErrorCode(errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw InputError(file: path, problem: .notARegularFile) }
        guard info.st_mode & 0o077 == 0 else { throw KeyFileError(file: path, problem: .accessibleByOthers(mode: UInt32(info.st_mode))) }
        guard byteCounts.contains(Int(info.st_size)) else {
            throw KeyFileError(file: path, problem: .wrongSize(bytes: Int(info.st_size), expected: byteCounts))
        }
        // One byte more than the file's size shows a file that grew since fstat.
        let size = Int(info.st_size)
        var buffer = [UInt8](repeating: 0, count: size + 1)
        defer { OPENSSL_cleanse(&buffer, buffer.count) }
        var count = 0
        while count < buffer.count {
            // The buffer has at least one byte (size + 1).
            let n = buffer.withUnsafeMutableBytes { bytes in bytes.baseAddress.map { Glibc.read(descriptor, $0 + count, bytes.count - count) } ?? 0 }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(file: path, problem: .unreadable(what: "the key file"), code: ErrorCode(errno: errno))
            }
            count += n
        }
        guard count == size else { throw KeyFileError(file: path, problem: .wrongSize(bytes: count, expected: byteCounts)) }
        return SecretKey(bytes: buffer[0..<size], file: path)
    }

    /// Writes the key to a new file at `path`, readable and writable by its owner only (mode
    /// 0600 whatever the umask), complete or not at all, never replacing a file: the bytes go
    /// to a temporary file beside it, are flushed to disk and are linked to the name, and `link`
    /// refuses a name that exists — even one made by another process in the same instant.
    public func write(toNewFile path: String) throws {
        var existing = stat()
        if lstat(path, &existing) == 0 {
            throw OutputError(file: path, stage: .creating, detail: "already exists (a key file is never replaced: remove it first if you mean to)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(
            PartialOutputFiles.temporaryName(forTargetNamed: (path as NSString).lastPathComponent, token: PartialOutputFiles.randomToken()))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw OutputError(file: path, stage: .creating, operation: "creating", code: ErrorCode(errno: errno)) }
        let guardSlot = vwm_guard_remember(temporary, path)
        defer {
            unlink(temporary)
            vwm_guard_forget(guardSlot)
        }
        func fail(_ operation: String, _ code: Int32) -> OutputError {
            close(descriptor)
            return OutputError(file: path, stage: .writing, operation: operation, code: ErrorCode(errno: code))
        }
        // The mode given to open is masked by the umask; a key's must be exactly 0600.
        guard fchmod(descriptor, 0o600) == 0 else { throw fail("setting the mode", errno) }
        var written = 0
        while written < storage.count, let base = storage.baseAddress {
            let n = Glibc.write(descriptor, base + written, storage.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                throw fail("writing", errno)
            }
            written += n
        }
        guard fsync(descriptor) == 0 else { throw fail("flushing to disk", errno) }
        close(descriptor)
        guard link(temporary, path) == 0 else {
            let code = errno
            if code == EEXIST { throw OutputError(file: path, stage: .creating, detail: "already exists (a key file is never replaced)") }
            throw OutputError(file: path, stage: .creating, operation: "moving the key into place", code: ErrorCode(errno: code))
        }
    }
}
