import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What each test's child processes cost, for keeping the suite within its budget (CI runs it on
/// 2 cores in well under 25 minutes). Swift Testing runs tests side by side, so a test's own
/// duration says how long it waited as much as what it cost; the CPU time of the processes it ran
/// (videowm, ffmpeg, a server) does not. With `VIDEOWM_TEST_COSTS=FILE`, every child reaped by
/// `ChildProcess` appends one line `CPU-MILLISECONDS<TAB>TEST<TAB>PROGRAM` to FILE;
/// `scripts/test-costs FILE` sums them per test (docs/design/testing.md).
public enum TestCosts {
    private static let file: Int32? = {
        guard let path = ProcessInfo.processInfo.environment["VIDEOWM_TEST_COSTS"], !path.isEmpty else { return nil }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        return descriptor >= 0 ? descriptor : nil
    }()

    /// Waits for `pid` as `waitpid(pid, &status, options)` does, recording what the child cost
    /// when it was reaped.
    public static func wait(_ pid: pid_t, _ status: inout Int32, _ options: Int32, program: String) -> pid_t {
        var usage = rusage()
        let reaped = wait4(pid, &status, options, &usage)
        if reaped == pid, let file {
            let milliseconds = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
                + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
            let test = (Test.current?.name ?? "(outside a test)").replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
            let line = "\(milliseconds)\t\(test)\t\((program as NSString).lastPathComponent)\n"
            // One write of a short line: O_APPEND keeps lines of concurrent tests whole.
            _ = line.withCString { write(file, $0, strlen($0)) }
        }
        return reaped
    }
}
