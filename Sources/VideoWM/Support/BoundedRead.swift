#if canImport(Glibc)
import Glibc
#endif

/// Reading the small files a job starts from (a config, a CSV, an image's header) so that no
/// read can block forever and no file can make the process allocate without bound.
///
/// Files are opened non-blocking and checked with `fstat` on the opened descriptor: a regular
/// file is read up to a size limit that is checked before any of it is read; a pipe (a
/// config given as `-c <(generate)`) is read as it arrives, with a deadline between chunks
/// and the same limit; anything else — a FIFO where only regular files make sense, a device
/// such as /dev/zero, a folder — is refused before a byte is read.
enum BoundedRead {
    /// What kinds of file a caller accepts.
    enum Accepts {
        case regularFiles
        case regularFilesAndPipes
    }

    /// Why a file was not read.
    enum Refusal: Error, Equatable {
        /// No such file (ENOENT).
        case missing
        /// Not a regular file (or a pipe, where pipes are accepted).
        case notARegularFile
        /// Larger than the limit: `bytes` is the file's size (or how much arrived before the limit).
        case tooLarge(bytes: Int)
        /// A pipe that sent nothing for the deadline.
        case timedOut(seconds: Int)
        /// Opening or reading failed with this errno.
        case failed(errno: Int32)

        /// The input error for a refusal other than `tooLarge` (whose limit only the caller can word).
        func inputError(file: String, what: String) -> InputError {
            switch self {
            case .missing: InputError.missing(file)
            case .notARegularFile: InputError(file: file, problem: .notARegularFile)
            case .tooLarge(let bytes): InputError(file: file, problem: .unreadable(what: "\(what) (\(bytes) bytes, more than expected)"))
            case .timedOut(let seconds): InputError(file: file, problem: .unreadable(what: "\(what): nothing arrived for \(seconds) s"))
            case .failed(let code): InputError(file: file, problem: .cannotOpen, code: ErrorCode(errno: code))
            }
        }
    }

    /// Opens `path` for reading without blocking (a FIFO with no writer would block `open`)
    /// and returns the descriptor with the file's type; the caller closes it.
    static func open(_ path: String, accepting accepts: Accepts) throws(Refusal) -> (descriptor: Int32, isPipe: Bool, size: Int) {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw errno == ENOENT ? .missing : .failed(errno: errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw .failed(errno: code)
        }
        let type = info.st_mode & S_IFMT
        let isPipe = type == S_IFIFO
        guard type == S_IFREG || (isPipe && accepts == .regularFilesAndPipes) else {
            close(descriptor)
            throw .notARegularFile
        }
        if !isPipe {
            // Regular files never block; reads below may then treat EAGAIN as an error.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        }
        return (descriptor, isPipe, Int(info.st_size))
    }

    /// The whole file, at most `maximumBytes`; a pipe must send something every `idleSeconds`.
    static func contents(of path: String, accepting accepts: Accepts, maximumBytes: Int,
                         idleSeconds: Int = 60) throws(Refusal) -> [UInt8] {
        let (descriptor, isPipe, size) = try open(path, accepting: accepts)
        defer { close(descriptor) }
        if !isPipe && size > maximumBytes { throw .tooLarge(bytes: size) }
        return try read(descriptor, isPipe: isPipe, upTo: maximumBytes, failWhenLarger: true, idleSeconds: idleSeconds)
    }

    /// The first `count` bytes of a regular file (fewer when it is shorter).
    static func prefix(of path: String, count: Int) throws(Refusal) -> [UInt8] {
        let (descriptor, _, _) = try open(path, accepting: .regularFiles)
        defer { close(descriptor) }
        return try read(descriptor, isPipe: false, upTo: count, failWhenLarger: false, idleSeconds: 0)
    }

    private static func read(_ descriptor: Int32, isPipe: Bool, upTo limit: Int, failWhenLarger: Bool,
                             idleSeconds: Int) throws(Refusal) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            // One byte past the limit tells "exactly the limit" from "larger".
            let wanted = min(chunk.count, limit + (failWhenLarger ? 1 : 0) - bytes.count)
            if wanted <= 0 { break }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
                continue
            }
            if count == 0 { break }  // end of file, or a pipe with no writer (left)
            if errno == EINTR { continue }
            guard errno == EAGAIN, isPipe else { throw .failed(errno: errno) }
            // A writer is connected but has sent nothing yet: wait for data, not for ever.
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(idleSeconds, 1_000_000) * 1000))
            if ready == 0 { throw .timedOut(seconds: idleSeconds) }
            if ready < 0 && errno != EINTR { throw .failed(errno: errno) }
        }
        if failWhenLarger && bytes.count > limit { throw .tooLarge(bytes: bytes.count) }
        return bytes
    }
}
