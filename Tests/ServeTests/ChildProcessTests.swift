import Foundation
import Testing
import TestSupport

/// What the tests' own child processes promise (`ChildProcess`): they inherit nothing of the test
/// process but their three streams, so a pipe another test holds (not close-on-exec, as
/// Foundation makes them) never waits for them to end.
@Suite("test children")
struct ChildProcessTests {
    @Test func aChildSeesOnlyItsThreeStreams() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)  // another test's pipe: inheritable
        defer { ends.forEach { close($0) } }
        // ls opens the folder it lists: one more descriptor, which it closes before it exits.
        let listed = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"]).text
        let open = listed.split(separator: "\n").compactMap { Int($0) }.sorted()
        #expect(open == [0, 1, 2], "\(listed)")
    }

    @Test func anotherTestsPipeEndsWhenItsWriterClosesItThoughAChildStartedMeanwhile() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)  // another test's curl output, say
        let slow = try ChildProcess("/bin/sleep", ["10"])  // a server another test starts meanwhile
        defer { kill(slow.processIdentifier, SIGKILL); slow.waitUntilExit() }
        close(ends[1])  // the curl ends
        let started = Date()
        let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        #expect(reader.readDataToEndOfFile().isEmpty)  // end of file now, not when the server ends
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(slow.isRunning)
    }
}
