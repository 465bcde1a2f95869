import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How a run under hostile conditions ended: by an exit code, by a signal, or by our deadline.
struct Outcome: CustomStringConvertible {
    /// The exit code; nil when the process was killed by a signal or by the deadline.
    var exitStatus: Int32?
    /// The signal that ended the process, when one did.
    var signal: Int32?
    var timedOut: Bool
    var seconds: Double
    var stdout: String
    var stderr: String

    /// The non-empty lines of stderr.
    var errorLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    var description: String {
        let end = timedOut ? "still running after the deadline (killed)"
            : signal.map { "killed by signal \($0) (\(String(cString: strsignal($0))))" } ?? "exit \(exitStatus ?? -1)"
        return "\(end) after \(String(format: "%.2f", seconds)) s; stderr: \(stderr.prefix(2000))"
    }
}

/// A script started in its own process group, to signal or wait for.
struct RunningScript {
    let pid: pid_t
    let started: Date
    let stdoutPath: String
    let stderrPath: String

    /// Waits up to `timeout` seconds; past it, kills the whole process group.
    func wait(timeout: Double) -> Outcome {
        var status: Int32 = 0
        var timedOut = false
        let deadline = started.addingTimeInterval(timeout)
        while true {
            let done = TestCosts.wait(pid, &status, WNOHANG, program: "hostile script")
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
            if Date() >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                while TestCosts.wait(pid, &status, 0, program: "hostile script") < 0 && errno == EINTR {}
                break
            }
            usleep(5_000)
        }
        let seconds = Date().timeIntervalSince(started)
        // Whatever the script left behind in its group (a FIFO writer, a pipe's reader) goes too.
        kill(-pid, SIGKILL)
        let terminatingSignal = status & 0x7F
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return Outcome(exitStatus: !timedOut && terminatingSignal == 0 ? (status >> 8) & 0xFF : nil,
                       signal: !timedOut && terminatingSignal != 0 ? terminatingSignal : nil,
                       timedOut: timedOut, seconds: seconds, stdout: read(stdoutPath), stderr: read(stderrPath))
    }
}

extension Harness {
    /// Starts `script` with bash in the test folder, in a process group of its own, with
    /// `$VIDEOWM` naming the binary, every signal at its default action (as a shell would
    /// start it; the test runner may ignore SIGPIPE) and no scheduler variables inherited.
    /// Its stdout and stderr go to files (read when it ends) unless the script redirects them;
    /// it inherits no other descriptor (`ChildProcess`).
    func start(_ script: String, environment extra: [String: String] = [:]) throws -> RunningScript {
        let token = UUID().uuidString.prefix(8)
        let stdoutPath = path(".run-\(token).out"), stderrPath = path(".run-\(token).err")
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            !key.hasPrefix("SLURM_") && key != "JOB_COMPLETION_INDEX" && !key.hasPrefix("VIDEOWM_")
        }
        environment["VIDEOWM"] = Harness.videowmPath
        environment.merge(extra) { _, new in new }

        let started = Date()
        let pid = try ChildProcess.spawn("/bin/bash", arguments: ["-c", script], environment: environment, directory: directory.path,
                                         streams: [.file("/dev/null", flags: O_RDONLY), .file(stdoutPath, flags: O_WRONLY | O_CREAT | O_TRUNC),
                                                   .file(stderrPath, flags: O_WRONLY | O_CREAT | O_TRUNC)],
                                         ownProcessGroup: true)
        return RunningScript(pid: pid, started: started, stdoutPath: stdoutPath, stderrPath: stderrPath)
    }

    /// Runs `script` (see `start`) to its end, or kills it after `timeout` seconds.
    func shell(_ script: String, environment: [String: String] = [:], timeout: Double = 20) throws -> Outcome {
        try start(script, environment: environment).wait(timeout: timeout)
    }

    /// Temporary outputs anywhere under the test folder.
    func partialFiles() -> [String] {
        let walker = FileManager.default.enumerator(atPath: directory.path)
        var found: [String] = []
        while let entry = walker?.nextObject() as? String {
            if entry.contains("videowm-partial") { found.append(entry) }
        }
        return found
    }

    /// A word quoted for bash.
    static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// `arguments` as a bash command line running the binary.
    static func commandLine(_ arguments: [String]) -> String {
        "\"$VIDEOWM\" " + arguments.map(quoted).joined(separator: " ")
    }
}

/// The issue's bar for a failure: it ended by itself with `status` within `seconds`, printed
/// exactly one line (an error naming `naming`), and left no temporary file.
func expectCleanFailure(_ outcome: Outcome, status: Int32, naming: String?, within seconds: Double = 10, in h: Harness,
                        sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(outcome.exitStatus == status, "\(outcome)", sourceLocation: sourceLocation)
    #expect(outcome.seconds < seconds, "took \(outcome.seconds) s", sourceLocation: sourceLocation)
    #expect(outcome.errorLines.count == 1, "expected one line on stderr: \(outcome.stderr.prefix(2000))", sourceLocation: sourceLocation)
    if let line = outcome.errorLines.first {
        #expect(line.hasPrefix("videowm: error: "), "\(line)", sourceLocation: sourceLocation)
        if let naming { #expect(line.contains(naming), "the line should name \(naming): \(line)", sourceLocation: sourceLocation) }
    }
    #expect(h.partialFiles().isEmpty, "temporary files left: \(h.partialFiles())", sourceLocation: sourceLocation)
}

/// The process ended by itself (no signal, no deadline) with one of sysexits' codes.
func expectEndedByExitCode(_ outcome: Outcome, within seconds: Double, context: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!outcome.timedOut && outcome.signal == nil, "\(context): \(outcome)", sourceLocation: sourceLocation)
    if let status = outcome.exitStatus {
        #expect([0, 64, 65, 66, 71, 73, 74].contains(status), "\(context): \(outcome)", sourceLocation: sourceLocation)
    }
    #expect(outcome.seconds < seconds, "\(context): took \(outcome.seconds) s", sourceLocation: sourceLocation)
}
