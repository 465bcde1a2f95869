import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `videowm` and the ffmpeg tools for end-to-end tests, in a private
/// temporary folder per test.
struct Harness {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stdoutData: Data
    }

    /// The `videowm` binary next to the test bundle (both live in SwiftPM's bin folder).
    static let videowmPath: String = {
        if let env = ProcessInfo.processInfo.environment["VIDEOWM_BIN"] { return env }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("videowm").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/videowm").path
    }()

    /// Runs `executable` in the test folder to its end, stdin empty, stdout and stderr read;
    /// it inherits no other descriptor of this process (`ChildProcess`). `environment` adds to
    /// (or, with an empty value, removes from) the test's own.
    @discardableResult
    func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let path = executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)"
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.filter { !$0.value.isEmpty }
        let outcome = try ChildProcess.run(path, arguments, environment: variables, directory: directory.path)
        return Result(status: outcome.status, stdout: outcome.text, stderr: outcome.errorText, stdoutData: outcome.output)
    }

    @discardableResult
    func videowm(_ arguments: String...) throws -> Result {
        try run(Self.videowmPath, arguments)
    }

    func videowm(arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(Self.videowmPath, arguments, environment: environment)
    }

    /// Runs ffmpeg quietly and fails the test if it fails.
    func ffmpeg(_ arguments: [String]) throws {
        let r = try run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
        if r.status != 0 { throw HarnessError.toolFailed("ffmpeg \(arguments.joined(separator: " ")): \(r.stderr)") }
    }

    func ffprobe(_ arguments: [String]) throws -> String {
        let r = try run("ffprobe", ["-v", "error"] + arguments)
        if r.status != 0 { throw HarnessError.toolFailed("ffprobe \(arguments.joined(separator: " ")): \(r.stderr)") }
        return r.stdout
    }

    /// A test clip made with lavfi sources: moving test pattern plus a sine tone.
    func makeClip(_ name: String, width: Int = 320, height: Int = 240, rate: String = "30", seconds: Double = 2,
                  audio: Bool = true, extra: [String] = []) throws -> String {
        var args = ["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate):duration=\(seconds)"]
        if audio { args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"] }
        args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
        if audio { args += ["-c:a", "aac", "-b:a", "64k"] }
        args += extra + [path(name)]
        try ffmpeg(args)
        return path(name)
    }

    func write(_ name: String, _ text: String) throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    /// Number of decoded video frames, counted by ffprobe.
    func videoFrameCount(_ file: String) throws -> Int {
        let out = try ffprobe(["-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file])
        // MPEG-TS adds empty program lines: take the first number.
        return out.split(separator: "\n").lazy.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.first ?? -1
    }

    /// Presentation times of the video frames in seconds, as ffprobe reports them (to the microsecond).
    func videoFrameTimes(_ file: String) throws -> [String] {
        try decodedFrameTimes(file, stream: "v:0")
    }

    /// Presentation times of a stream's packets in seconds, in file order, as ffprobe reports them.
    func packetTimes(_ file: String, stream: String) throws -> [String] {
        try times(ffprobe(["-select_streams", stream, "-show_entries", "packet=pts_time", "-of", "csv=p=0", file]))
    }

    /// Presentation times of a stream's decoded frames in seconds (after the decoder drops any priming).
    func decodedFrameTimes(_ file: String, stream: String) throws -> [String] {
        try times(ffprobe(["-select_streams", stream, "-show_entries", "frame=pts_time", "-of", "csv=p=0", file]))
    }

    /// The first field of each ffprobe CSV line that holds a number (side data adds fields and lines).
    private func times(_ csv: String) -> [String] {
        csv.split(separator: "\n").compactMap { line in
            let field = line.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return Double(field) == nil ? nil : field
        }
    }

    /// One decoded frame as RGB24 bytes.
    func rgbFrame(_ file: String, at seconds: Double, width: Int, height: Int) throws -> [UInt8] {
        let r = try run("ffmpeg", ["-v", "error", "-ss", String(seconds), "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard r.status == 0 else { throw HarnessError.toolFailed(r.stderr) }
        #expect(r.stdoutData.count == width * height * 3)
        return [UInt8](r.stdoutData)
    }

    /// Per-packet checksums and timestamps of a stream, copied out by ffmpeg.
    func packetChecksums(_ file: String, stream: String) throws -> [String] {
        let r = try run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:\(stream)", "-c", "copy", "-f", "framemd5", "-"])
        guard r.status == 0 else { throw HarnessError.toolFailed(r.stderr) }
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }
}

enum HarnessError: Error { case toolFailed(String) }

/// Mean absolute difference of two RGB buffers over a rectangle.
func meanDifference(_ a: [UInt8], _ b: [UInt8], width: Int, x: Range<Int>, y: Range<Int>) -> Double {
    var total = 0, count = 0
    for row in y {
        for column in x {
            for c in 0..<3 {
                let i = (row * width + column) * 3 + c
                total += abs(Int(a[i]) - Int(b[i]))
                count += 1
            }
        }
    }
    return Double(total) / Double(max(count, 1))
}

/// Mean colour of a rectangle of an RGB buffer.
func meanColor(_ a: [UInt8], width: Int, x: Range<Int>, y: Range<Int>) -> (Double, Double, Double) {
    var sums = (0, 0, 0), count = 0
    for row in y {
        for column in x {
            let i = (row * width + column) * 3
            sums.0 += Int(a[i]); sums.1 += Int(a[i + 1]); sums.2 += Int(a[i + 2])
            count += 1
        }
    }
    let n = Double(max(count, 1))
    return (Double(sums.0) / n, Double(sums.1) / n, Double(sums.2) / n)
}
