import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts the harness's children with nothing open but stdin, stdout and stderr.
///
/// The test process holds many descriptors a child has no business with, none of them
/// close-on-exec: the sockets and pipes Foundation makes for every `Process` (about 13 while the
/// suite runs tests in parallel), other tests' pipes, whatever the runner itself inherited. A
/// child given them counts them against its open-file limit and keeps other tests' pipes open.
/// Marking them close-on-exec in this process would race with other threads making more, so the
/// child closes them instead, as the last of its spawn file actions, before it runs anything:
/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), looked up at run time because
/// Swift's Glibc module does not import it.
enum ChildProcess {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func glibc<T>(_ name: String, as type: T.Type) -> T {
        // RTLD_DEFAULT is a null handle in glibc.
        guard let symbol = dlsym(nil, name) else { fatalError("\(name) is missing: the tests need glibc 2.34 or later") }
        return unsafeBitCast(symbol, to: type)
    }

    private static let addCloseFrom = glibc("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
    private static let addChangeDirectory = glibc("posix_spawn_file_actions_addchdir_np", as: AddChangeDirectory.self)

    /// What a child's stdin, stdout or stderr is.
    enum Stream {
        case file(String, flags: Int32)
        case descriptor(Int32)
    }

    /// Spawns `executable` in `directory` with the streams given and every other descriptor
    /// closed; `attributes` (signals, process group) as the caller sets them. Returns its pid.
    static func spawn(_ executable: String, arguments: [String], environment: [String: String], directory: String,
                      streams: [Stream], attributes: UnsafePointer<posix_spawnattr_t>? = nil) throws -> pid_t {
        precondition(streams.count == 3, "stdin, stdout and stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        _ = addChangeDirectory(&actions, directory)
        for (target, stream) in streams.enumerated() {
            switch stream {
            case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, Int32(target), path, flags, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, Int32(target))
            }
        }
        _ = addCloseFrom(&actions, 3)
        var pid: pid_t = 0
        let code = withCStrings([executable] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in posix_spawn(&pid, executable, &actions, attributes, argv, envp) }
        }
        guard code == 0 else { throw HarnessError.toolFailed("posix_spawn \(executable): \(String(cString: strerror(code)))") }
        return pid
    }

    /// A pipe whose ends are close-on-exec (a child gets an end only through `Stream.descriptor`;
    /// `pipe2` is not imported either, and the children here close what they inherit anyway).
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw HarnessError.toolFailed("pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Waits for `pid`: its exit code, or the signal that ended it (as Foundation's `terminationStatus`).
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : signal
    }
}

func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
