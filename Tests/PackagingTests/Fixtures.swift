import Foundation
import Packaging
import TestSupport
import Testing

/// A private temporary folder per test, and media made in it with ffmpeg's lavfi sources.
struct Scratch {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("packaging-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws -> String {
        let file = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        chmod(file, mode)
        return file
    }

    func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    /// Runs a tool from /usr/bin in the folder.
    func run(_ tool: String, _ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run("/usr/bin/\(tool)", arguments, environment: ProcessInfo.processInfo.environment, directory: directory)
    }

    func ffmpeg(_ arguments: [String]) throws {
        let outcome = try run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
        guard outcome.status == 0 else { throw FixtureError(description: "ffmpeg \(arguments.joined(separator: " ")): \(outcome.errorText)") }
    }

    /// A fragmented MP4 as FFmpeg's movenc writes CMAF-like output (`default_base_moof`, a fragment per key frame):
    /// H.264 with B-frames (and `x264` settings added), AAC when `audio`; split into the initialization segment and
    /// one media segment per `moof`+`mdat`.
    func fragmentedClip(seconds: Double = 2, audio: Bool = true, size: String = "160x120", x264: String = "bframes=2",
                        name: String = "clip.mp4") throws -> (initialization: [UInt8], segments: [[UInt8]]) {
        var arguments = ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=\(seconds)"]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"] }
        arguments += ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-x264-params", "keyint=25:min-keyint=25:scenecut=0:" + x264]
        if audio { arguments += ["-c:a", "aac", "-b:a", "64k"] }
        arguments += ["-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-f", "mp4", path(name)]
        try ffmpeg(arguments)
        return try Self.split(try read(name))
    }

    /// AAC alone in 1-second fragments (what a ladder's audio rendition is).
    func fragmentedAudio(seconds: Double = 2, name: String = "audio.mp4") throws -> (initialization: [UInt8], segments: [[UInt8]]) {
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)", "-c:a", "aac", "-b:a", "64k",
                    "-movflags", "+empty_moov+default_base_moof", "-frag_duration", "1000000", "-f", "mp4", path(name)])
        return try Self.split(try read(name))
    }

    /// The leading `ftyp`+`moov`, and each `moof` with the boxes up to the next `moof`.
    static func split(_ bytes: [UInt8]) throws -> (initialization: [UInt8], segments: [[UInt8]]) {
        var boxes: [(type: String, range: Range<Int>)] = []
        var at = 0
        while at + 8 <= bytes.count {
            let size = Int(bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            guard size >= 8, at + size <= bytes.count else { throw FixtureError(description: "a box does not fit at \(at)") }
            boxes.append((type, at..<at + size))
            at += size
        }
        guard let first = boxes.firstIndex(where: { $0.type == "moof" }) else { throw FixtureError(description: "no moof") }
        let initialization = Array(bytes[0..<boxes[first].range.lowerBound])
        var segments: [[UInt8]] = []
        for box in boxes[first...] {
            if box.type == "moof" { segments.append([]) }
            if box.type == "mfra" { continue }
            segments[segments.count - 1] += bytes[box.range]
        }
        return (initialization, segments)
    }

    /// The per-frame checksums ffmpeg's `framemd5` gives for a stream of `file` (header lines dropped).
    func frameChecksums(_ file: String, stream: String = "v:0", before: [String] = []) throws -> (status: Int32, lines: [String], errors: String) {
        let outcome = try run("ffmpeg", ["-hide_banner", "-loglevel", "error"] + before + ["-i", file, "-map", "0:\(stream)", "-f", "framemd5", "-"])
        let lines = outcome.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            // stream, dts, pts, duration, size, md5: the checksum and size say what the pixels are.
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.suffix(2).joined(separator: ",")
        }
        return (outcome.status, lines, outcome.errorText)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// A fixed key for tests (never a real one).
enum TestKeys {
    static let keyIDHex = "0123456789abcdef0123456789abcdef"
    static let keyHex = "00112233445566778899aabbccddeeff"
    static let otherKeyHex = "ffeeddccbbaa99887766554433221100"

    static func keySet(key: String = keyHex) throws -> ContentKeySet {
        try ContentKeySet.parse(Array("\(keyIDHex):\(key)\n".utf8), file: "test.key")
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in the bytes.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        let first = needle[0]
        var index = 0
        while index <= count - needle.count {
            if self[index] == first && Array(self[index..<index + needle.count]) == needle { return true }
            index += 1
        }
        return false
    }
}
