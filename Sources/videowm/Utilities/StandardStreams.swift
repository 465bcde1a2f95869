import Foundation
import VideoWM
#if canImport(Glibc)
import Glibc
#endif

/// Standard output and standard error as the tool writes them: with `write(2)`, retried after
/// EINTR and short writes, and a failure (a closed descriptor, a full device, a pipe whose
/// reader has gone — SIGPIPE is ignored, so that is EPIPE) returned to the caller instead of
/// trapping (`FileHandle.write`) or killing the process.
///
/// Callers decide what a failure means: progress and messages are dropped (the job the user
/// asked for goes on), while an output the user asked for on stdout (`probe`, `help`,
/// `--version`) ends the command with 74.
enum StandardStream: Sendable {
    case output
    case error

    var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// How the stream is named in an error line.
    var name: String { self == .output ? "standard output" : "standard error" }

    /// Writes all of `text`, or throws once the stream refuses it: an `OutputError` naming
    /// the stream (exit 74 when it ends the command).
    func write(_ text: String) throws(OutputError) {
        if StandardDescriptors.wasClosed(descriptor) { throw failure(EBADF) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            if written == 0 { throw failure(EIO) }
            bytes = bytes.dropFirst(written)
        }
    }

    private func failure(_ errorNumber: Int32) -> OutputError {
        OutputError(file: name, stage: .writing, operation: "writing", code: ErrorCode(errno: errorNumber))
    }
}

/// The three standard descriptors, made to exist before anything else opens a file.
///
/// A process started with stdout or stderr closed (`>&-`) would otherwise hand descriptor 1
/// or 2 to the first file it opens — the temporary output, say — and progress lines would be
/// written into the video. A closed descriptor is reopened on /dev/null, and remembered, so
/// writing to it still fails as the user's redirection meant it to.
enum StandardDescriptors {
    nonisolated(unsafe) private static var closed: Set<Int32> = []

    /// Call first thing in `main`, before any other thread or file exists.
    static func secure() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
            closed.insert(descriptor)
        }
    }

    static func wasClosed(_ descriptor: Int32) -> Bool { closed.contains(descriptor) }
}
