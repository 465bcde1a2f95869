import Foundation
import Testing
@testable import VideoWM
#if canImport(Glibc)
import Glibc
#endif

/// Small input files read without blocking forever or without bound.
@Suite("bounded reads")
struct BoundedReadTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func refusal(_ body: () throws(BoundedRead.Refusal) -> [UInt8]) -> BoundedRead.Refusal? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a regular file is read whole, or refused by its size before it is read")
    func regularFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/small.json"
        try Data(repeating: 65, count: 1000).write(to: URL(fileURLWithPath: path))
        #expect(try BoundedRead.contents(of: path, accepting: .regularFiles, maximumBytes: 1000).count == 1000)
        #expect(refusal { () throws(BoundedRead.Refusal) in try BoundedRead.contents(of: path, accepting: .regularFiles, maximumBytes: 999) } == .tooLarge(bytes: 1000))
        #expect(try BoundedRead.prefix(of: path, count: 10).count == 10)
        #expect(refusal { () throws(BoundedRead.Refusal) in try BoundedRead.contents(of: folder + "/none", accepting: .regularFiles, maximumBytes: 10) } == .missing)
    }

    @Test("devices, folders and FIFOs where files are expected are refused without reading")
    func notRegular() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        for path in ["/dev/zero", "/dev/null", folder, fifo] {
            #expect(refusal { () throws(BoundedRead.Refusal) in try BoundedRead.contents(of: path, accepting: .regularFiles, maximumBytes: 10) } == .notARegularFile, "\(path)")
            #expect(refusal { () throws(BoundedRead.Refusal) in try BoundedRead.prefix(of: path, count: 10) } == .notARegularFile, "\(path)")
        }
        #expect(refusal { () throws(BoundedRead.Refusal) in try BoundedRead.contents(of: "/dev/zero", accepting: .regularFilesAndPipes, maximumBytes: 10) } == .notARegularFile)
    }

    @Test("a pipe is read as it arrives, within its limit and its deadline")
    func pipes() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/pipe"
        #expect(mkfifo(fifo, 0o644) == 0)
        // No writer at all: end of file at once, not a wait.
        #expect(try BoundedRead.contents(of: fifo, accepting: .regularFilesAndPipes, maximumBytes: 10, idleSeconds: 5).isEmpty)

        // A writer (this test, through a read-write descriptor, which never blocks) that sends
        // 5 bytes, then holds the pipe open without writing.
        let writer = open(fifo, O_RDWR)
        #expect(writer >= 0)
        defer { close(writer) }
        #expect(write(writer, "hello", 5) == 5)
        let started = Date()
        #expect(refusal { () throws(BoundedRead.Refusal) in try BoundedRead.contents(of: fifo, accepting: .regularFilesAndPipes, maximumBytes: 100, idleSeconds: 1) } == .timedOut(seconds: 1))
        #expect(Date().timeIntervalSince(started) < 2.5)
        // A pipe that sends more than the limit is refused once it has.
        #expect(write(writer, "world", 5) == 5)
        #expect(refusal { () throws(BoundedRead.Refusal) in try BoundedRead.contents(of: fifo, accepting: .regularFilesAndPipes, maximumBytes: 3, idleSeconds: 1) } == .tooLarge(bytes: 4))
    }
}
