import Animation
import CFFmpeg
import Foundation
import Overlay
import Testing
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4",
                             "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "12", "-pix_fmt", "yuv420p"] + extra + [path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
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
