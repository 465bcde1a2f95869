import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests, started and waited for with the system calls themselves: what
/// every test target uses instead of Foundation's `Process`.
///
/// - It is waited for with `waitpid`. Foundation's `waitUntilExit` spins a run loop until its
///   manager thread reports the exit, which has been seen to hang under load
///   (github.com/cai-layer/cai pull 49). On CI, under the sanitizer stage's parallel load, a
///   full-queue test's four curls, whose 503s the server counted, were seen to end only when a
///   fifth, held on purpose, was killed 60 s later; this removes that machinery from every test.
/// - It inherits nothing but its stdin, stdout and stderr. All test targets run in one process,
///   tests in parallel, and it holds many descriptors that are not close-on-exec (Foundation's
///   pipes and sockets, other tests' pipes, whatever the runner inherited); a child that got
///   them would keep other tests' pipes open while it runs. Marking them close-on-exec here
///   would race with other threads making more, so the child closes them, as the last of its
///   spawn file actions: glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), looked up
///   at run time because Swift's Glibc module does not import it. Pipes made here are
///   close-on-exec too.
/// - It starts with every signal at its default action and none blocked, as a shell starts a
///   program: test threads block signals, and a child inherits the mask.
public final class ChildProcess: @unchecked Sendable {
    /// What a child's stdin, stdout or stderr is.
    public enum Stream {
        /// This process's own stream (a test's output goes to the test log).
        case inherit
        /// /dev/null.
        case null
        case file(String, flags: Int32)
        case descriptor(Int32)
        /// A pipe whose other end this process holds (`input`, `output` or `errors`).
        case pipe
    }

    public let processIdentifier: pid_t
    /// The write end of the child's stdin, when it is `.pipe`.
    public let input: FileHandle?
    /// The read end of the child's stdout, when it is `.pipe`.
    public let output: FileHandle?
    /// The read end of the child's stderr, when it is `.pipe`.
    public let errors: FileHandle?
    private let lock = NSLock()
    private var status: Int32?
    /// The program, as `TestCosts` names it.
    private let program: String

    /// Starts `executable` (an absolute path) with `arguments`; `environment` nil inherits this
    /// process's, `directory` nil its working folder; with `ownProcessGroup`, in a process group
    /// of its own (signalled as a whole, as a shell's job).
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil, directory: String? = nil,
                stdin: Stream = .null, stdout: Stream = .inherit, stderr: Stream = .inherit,
                ownProcessGroup: Bool = false) throws {
        program = executable
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = []
        var streams: [Stream] = []
        do {
            for (index, stream) in [stdin, stdout, stderr].enumerated() {
                guard case .pipe = stream else { streams.append(stream); continue }
                let ends = try Self.pipe()
                parentEnds[index] = index == 0 ? ends.write : ends.read
                let childEnd = index == 0 ? ends.read : ends.write
                childEnds.append(childEnd)
                streams.append(.descriptor(childEnd))
            }
            let variables = environment ?? ProcessInfo.processInfo.environment
            processIdentifier = try Self.spawn(executable, arguments: arguments, environment: variables, directory: directory,
                                 streams: streams, ownProcessGroup: ownProcessGroup)
        } catch {
            (childEnds + parentEnds.compactMap { $0 }).forEach { close($0) }
            throw error
        }
        childEnds.forEach { close($0) }
        input = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        output = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        errors = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    /// Waits for the child to end; returns `terminationStatus`.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if status == nil {
            var raw: Int32 = 0
            while TestCosts.wait(processIdentifier, &raw, 0, program: program) < 0 && errno == EINTR {}
            status = raw
        }
        return Self.code(status!)
    }

    /// Whether the child has not ended yet (reaping it when it has).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return false }
        var raw: Int32 = 0
        guard TestCosts.wait(processIdentifier, &raw, WNOHANG, program: program) == processIdentifier else { return true }
        status = raw
        return false
    }

    /// Its exit code, or the signal that ended it (as Foundation's `terminationStatus`); only
    /// once it has ended.
    public var terminationStatus: Int32 { waitUntilExit() }

    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    /// Whether it exited or a signal ended it (as Foundation's); waits for it to end.
    public var terminationReason: TerminationReason {
        waitUntilExit()
        return lock.withLock { status! & 0x7F == 0 ? .exit : .uncaughtSignal }
    }

    /// What `run` collects.
    public struct Outcome: Sendable {
        public let status: Int32
        public let output: Data
        public let errors: Data
        public var text: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Runs `executable` to its end, stdin empty, stdout and stderr read (both at once, so a
    /// chatty child cannot block on a full pipe).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           directory: String? = nil) throws -> Outcome {
        let child = try ChildProcess(executable, arguments, environment: environment, directory: directory,
                                     stdin: .null, stdout: .pipe, stderr: .pipe)
        // Handed over through the semaphore, which orders the reader's write before this read
        // (polling `Thread.isFinished` does not, and ThreadSanitizer says so).
        final class Box: @unchecked Sendable { var data = Data() }
        let errors = Box()
        let read = DispatchSemaphore(value: 0)
        Thread {
            errors.data = child.errors!.readDataToEndOfFile()
            read.signal()
        }.start()
        let output = child.output!.readDataToEndOfFile()
        let status = child.waitUntilExit()
        read.wait()
        return Outcome(status: status, output: output, errors: errors.data)
    }

    // MARK: The system calls

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func glibc<T>(_ name: String, as type: T.Type) -> T {
        // RTLD_DEFAULT is a null handle in glibc.
        guard let symbol = dlsym(nil, name) else { fatalError("\(name) is missing: the tests need glibc 2.34 or later") }
        return unsafeBitCast(symbol, to: type)
    }

    private static let addCloseFrom = glibc("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
    private static let addChangeDirectory = glibc("posix_spawn_file_actions_addchdir_np", as: AddChangeDirectory.self)

    /// Spawns `executable` with the streams given and every other descriptor closed, every signal
    /// at its default action and none blocked, as a shell starts a program (test threads block
    /// signals, and a child inherits the mask); with `ownProcessGroup`, in a group of its own.
    /// Returns its pid.
    public static func spawn(_ executable: String, arguments: [String], environment: [String: String], directory: String?,
                             streams: [Stream], ownProcessGroup: Bool = false) throws -> pid_t {
        precondition(streams.count == 3, "stdin, stdout and stderr")
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let directory { _ = addChangeDirectory(&actions, directory) }
        for (target, stream) in streams.enumerated() {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, Int32(target), path, flags, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, Int32(target))
            case .pipe: preconditionFailure("a pipe is made by init")
            }
        }
        _ = addCloseFrom(&actions, 3)
        var pid: pid_t = 0
        let code = withCStrings([executable] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard code == 0 else { throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(code)))") }
        return pid
    }

    /// A pipe whose ends are close-on-exec (a child gets an end only through `Stream.descriptor`;
    /// `pipe2` is not imported, and the children here close what they inherit anyway).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Waits for `pid`: its exit code, or the signal that ended it (as Foundation's `terminationStatus`).
    public static func wait(_ pid: pid_t, program: String = "?") -> Int32 {
        var status: Int32 = 0
        while TestCosts.wait(pid, &status, 0, program: program) < 0 && errno == EINTR {}
        return code(status)
    }

    private static func code(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : signal
    }
}

public func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
