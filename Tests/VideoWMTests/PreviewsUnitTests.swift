import Animation
import CFFmpeg
import Foundation
import TestSupport
import Overlay
import Testing
@testable import Media
@testable import VideoWM

@Suite("contact sheet layout")
struct ContactSheetLayoutTests {
    @Test("samples run from the first frame to the end, evenly")
    func sampleTimes() {
        #expect(ContactSheet.sampleTimes(count: 1, durationSeconds: 10) == [.zero])
        #expect(ContactSheet.sampleTimes(count: 5, durationSeconds: 10).map(\.seconds) == [0, 2.5, 5, 7.5, 10])
        #expect(ContactSheet.sampleTimes(count: 3, durationSeconds: 0) == [.zero])
    }

    @Test("labels show minutes, seconds and milliseconds, and hours past an hour")
    func labels() {
        #expect(ContactSheet.label(for: .zero) == "0:00.000")
        #expect(ContactSheet.label(for: PresentationTime(seconds: 7.5)) == "0:07.500")
        #expect(ContactSheet.label(for: PresentationTime(seconds: 62.04)) == "1:02.040")
        #expect(ContactSheet.label(for: PresentationTime(seconds: 3723.001)) == "1:02:03.001")
    }

    @Test("grids hold every frame, keep tiles at most 480 pixels, and never upscale")
    func grids() {
        let hd = ContactSheet.Layout(count: 12, displayWidth: 1920, displayHeight: 1080)
        #expect((hd.tileWidth, hd.tileHeight) == (480, 270))
        #expect((hd.columns, hd.rows) == (4, 3))
        #expect(hd.sheetWidth == 8 + 4 * (480 + 8) && hd.sheetHeight == 8 + 3 * (270 + 28 + 8))
        let small = ContactSheet.Layout(count: 6, displayWidth: 320, displayHeight: 240)
        #expect((small.tileWidth, small.tileHeight, small.columns, small.rows) == (320, 240, 3, 2))
        let portrait = ContactSheet.Layout(count: 12, displayWidth: 1080, displayHeight: 1920)
        #expect((portrait.tileWidth, portrait.tileHeight) == (270, 480))
        #expect(portrait.columns > portrait.rows)
        for count in 1...100 {
            let layout = ContactSheet.Layout(count: count, displayWidth: 640, displayHeight: 360)
            #expect(layout.columns * layout.rows >= count && layout.columns * (layout.rows - 1) < count, "\(count)")
            let last = layout.tileOrigin(count - 1)
            #expect(last.x + layout.tileWidth <= layout.sheetWidth && last.y + layout.tileHeight + 28 <= layout.sheetHeight)
        }
    }
}

@Suite("finding the frame shown at a time")
struct VideoFrameLocatorTests {
    /// A clip with B-frames and short GOPs, so seeks land mid-stream and frames are reordered.
    func makeClip(_ name: String, extra: [String] = []) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-locator-\(UUID().uuidString)-\(name)").path
        let made = try ChildProcess.run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4",
                                                            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "12", "-pix_fmt", "yuv420p"] + extra + [path])
        #expect(made.status == 0, "\(made.errorText)")
        return path
    }

    func checksum(_ frame: Frame) -> Int {
        var hasher = Hasher()
        _ = frame.withPlane(0) { luma in
            for row in 0..<frame.height { hasher.combine(bytes: UnsafeRawBufferPointer(start: luma.base + row * luma.bytesPerRow, count: frame.width)) }
        }
        return hasher.finalize()
    }

    @Test("seeking gives the frame, time and pixels a scan from the start gives", arguments: ["clip.mp4", "clip.mkv"])
    func seekingMatchesScanning(name: String) throws {
        let clip = try makeClip(name, extra: name.hasSuffix(".mp4") ? ["-bf", "3"] : [])
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let seeking = try VideoFrameLocator(path: clip)
        let scanning = try VideoFrameLocator(path: clip)
        for seconds in [0, 0.01, 0.039, 0.04, 0.47, 0.48, 0.5, 1.234, 2.0, 2.999, 3.95, 3.96, 3.999, 5] {
            let time = PresentationTime(seconds: seconds)
            let sought = try seeking.frame(at: time)
            let scanned = try scanning.frameByScanningFromStart(at: time)
            #expect(sought.time == scanned.time, "\(seconds) s")
            #expect(checksum(sought.frame) == checksum(scanned.frame), "\(seconds) s")
            #expect(sought.isLast == scanned.isLast, "\(seconds) s")
        }
        #expect(seeking.fullScans == 0, "every request should have been answered by seeking")
    }
}

/// Issue 30: MPEG-TS recordings joined with `cat`, whose timestamps jump (forward, or back to
/// where the first began). `InputFile` takes the jumps out as it reads; the locator must seek
/// by those corrected times, not decode from the start for every frame asked for.
@Suite("finding frames in a file whose timestamps jump")
struct JoinedTransportStreamLocatorTests {
    /// Runs ffmpeg quietly and fails the test when it fails.
    func ffmpeg(_ arguments: [String]) throws {
        let outcome = try ChildProcess.run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
        try #require(outcome.status == 0, "ffmpeg \(arguments.joined(separator: " ")): \(outcome.errorText)")
    }

    /// Two copies of one recording (H.264 with B-frames, a keyframe every `gop` frames, AAC)
    /// joined byte for byte, the second starting at `secondStart` seconds on the TS clock.
    func joined(seconds: Int, rate: Int, gop: Int, secondStart: Double) throws -> (path: String, cleanUp: () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-joined-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = folder.appendingPathComponent("first.ts").path, second = folder.appendingPathComponent("second.ts").path
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=\(rate):duration=\(seconds)", "-f", "lavfi", "-i", "sine=r=8000:d=\(seconds)",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", String(gop), "-bf", "2", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-b:a", "16k", "-f", "mpegts", first])
        try ffmpeg(["-i", first, "-c", "copy", "-output_ts_offset", String(secondStart), "-f", "mpegts", second])
        var data = try Data(contentsOf: URL(fileURLWithPath: first))
        data.append(try Data(contentsOf: URL(fileURLWithPath: second)))
        let joined = folder.appendingPathComponent("joined.ts").path
        try data.write(to: URL(fileURLWithPath: joined))
        return (joined, { try? FileManager.default.removeItem(at: folder) })
    }

    func checksum(_ frame: Frame) -> Int {
        var hasher = Hasher()
        let hadLuma = frame.withPlane(0) { luma in
            for row in 0..<frame.height { hasher.combine(bytes: UnsafeRawBufferPointer(start: luma.base + row * luma.bytesPerRow, count: frame.width)) }
        }
        #expect(hadLuma != nil, "a decoded picture has a luma plane")
        return hasher.finalize()
    }

    @Test("seeking gives the frame, time and pixels a scan from the start gives, on both sides of the jump",
          arguments: [1000.0, 1.4])
    func seekingMatchesScanning(secondStart: Double) throws {
        // 1.4: ffmpeg's own 1.4-s start, so the second recording starts where the first did.
        let (path, cleanUp) = try joined(seconds: 3, rate: 25, gop: 12, secondStart: secondStart)
        defer { cleanUp() }
        let seeking = try VideoFrameLocator(path: path)
        let scanning = try VideoFrameLocator(path: path)
        let duration = try #require(seeking.durationSeconds)
        // 6 s of frames; the second half follows the first's audio, which ends 0.2 s after its video (8-kHz AAC frames).
        #expect(duration > 6 - 0.05 && duration < 6.5, "the video lasts about 6 s without the jump: \(duration)")
        for seconds in [0, 0.5, 2.96, 2.999, 3.0, 3.01, 3.47, 3.48, 4.5, 5.5, 5.96, 5.999, 6.5] {
            let time = PresentationTime(seconds: seconds)
            let sought = try seeking.frame(at: time)
            let scanned = try scanning.frameByScanningFromStart(at: time)
            #expect(sought.time == scanned.time, "\(seconds) s: \(sought.time) vs \(scanned.time)")
            #expect(checksum(sought.frame) == checksum(scanned.frame), "\(seconds) s")
            #expect(sought.isLast == scanned.isLast, "\(seconds) s")
        }
        #expect(seeking.fullScans == 0, "every request should have been answered by seeking")
    }

    /// What `videowm preview` asks of a ten-minute lecture recorded in two halves: 12 tiles.
    @Test("a contact sheet of a ten-minute joined recording decodes each tile from the keyframe before it")
    func previewOfLongJoinedFile() throws {
        let rate = 10, gop = 20
        let (path, cleanUp) = try joined(seconds: 300, rate: rate, gop: gop, secondStart: 5000)
        defer { cleanUp() }
        let locator = try VideoFrameLocator(path: path)
        let duration = try #require(locator.durationSeconds)
        #expect(duration > 600 - 0.2 && duration < 600.5, "\(duration)")
        let times = ContactSheet.sampleTimes(count: 12, durationSeconds: duration)
        var shown: [PresentationTime] = []
        for time in times { shown.append(try locator.frame(at: time).time) }
        #expect(locator.fullScans == 0 && locator.seeks == 12)
        // Each tile: at most one GOP and the frames that follow it in decode order (B-frames),
        // plus the first frame read when the locator opened the file.
        let bound = 1 + times.count * (gop + 4)
        #expect(locator.decodedFrames <= bound, "decoded \(locator.decodedFrames) frames for 12 tiles (of 6000); at most \(bound)")
        // And the frames shown are those a scan from the start shows (checked at both ends and across the jump).
        let scanning = try VideoFrameLocator(path: path)
        for index in [5, 6, 11] {
            #expect(try scanning.frameByScanningFromStart(at: times[index]).time == shown[index], "tile \(index)")
        }
    }
}
