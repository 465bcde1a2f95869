import Animation
import Foundation
import Overlay
import Testing
@testable import VideoWM

/// A segment made alone decodes only its own GOPs, however far into the input it lies: what lets
/// a server render segment 95 of a lecture on request without the 95 before it. Counted through
/// the library (`RenderedSegment.decodedPictures`: every picture the decoder gave), on a
/// 10-minute input small enough to make in a few seconds.
@Suite("HLS: a segment alone decodes its own GOPs")
struct SegmentDecodingTests {
    /// 10 fps, a closed GOP every 2 s (20 pictures), B-frames, AAC.
    static let rate = 10, gopSeconds = 2

    /// A 10-minute 64×36 input in a fresh folder; the caller removes the folder.
    static func longInput() throws -> (input: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-segment-decoding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let input = folder.appendingPathComponent("long.mp4").path
        let gop = String(rate * gopSeconds)
        try ImageLoadingTests.runFFmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x36:rate=\(rate):duration=600",
                                         "-f", "lavfi", "-i", "sine=r=8000:d=600",
                                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                         "-x264-params", "keyint=\(gop):min-keyint=\(gop):scenecut=0:bframes=2",
                                         "-c:a", "aac", "-b:a", "16k", input])
        return (input, folder)
    }

    /// The mark shows 6 s of every 30 s (0–6 s, 30–36 s, …).
    static let config = #"""
    { "watermarks": [ { "text": "{email}", "size": 0.3, "start": 0, "interval": 6000, "skip": 24000 } ] }
    """#

    /// Pictures in the GOPs that hold [start, end): from the keyframe at or before `start` to the
    /// one at or after `end` — the most a segment over that span may decode.
    static func picturesOfGOPs(from start: Double, to end: Double) -> Int {
        let first = (start / Double(gopSeconds)).rounded(.down) * Double(gopSeconds)
        let last = (end / Double(gopSeconds)).rounded(.up) * Double(gopSeconds)
        return Int(((last - first) * Double(rate)).rounded())
    }

    static func secondsOf(_ time: PresentationTime) -> Double { Double(time.value) / Double(time.timescale) }

    @Test("segments 35 and 95 of a 10-minute input, marked, decode their own three GOPs; segment 37, unmarked, is read and decodes nothing; --render full's segments decode from the keyframe before them")
    func aSegmentDecodesOnlyItsGOPs() throws {
        let (input, folder) = try Self.longInput()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try WatermarkConfig.parse(Data(Self.config.utf8), file: "c.json", baseDirectory: folder.path, warn: { _ in })
        let source = try PresentationSource(input: input, segment: PresentationTime(value: 6, timescale: 1))
        let row = try PresentationRow(source: source, config: config, variables: ["email": "ada@example.com"])
        #expect(row.rendering == .sharedCopies)
        #expect(row.segments.count == 100)
        for k in [35, 95] {
            #expect(!row.segments[k].isShared, "segment \(k) (\(k * 6) s) carries the mark")
            let made = try row.render(segment: k)
            // 6 s at 10 fps, cut at its own keyframes: three GOPs, none of the k × 3 before them.
            #expect(made.decodedPictures == 60, "segment \(k) decoded \(made.decodedPictures) pictures")
            #expect(made.encodedPictures == 60 && made.videoSamples == 60, "segment \(k): \(made.encodedPictures) encoded, \(made.videoSamples) samples")
        }
        #expect(row.segments[37].isShared)
        let copied = try row.render(segment: 37)
        #expect(copied.decodedPictures == 0 && copied.encodedPictures == 0, "a copied segment decoded \(copied.decodedPictures) pictures")
        #expect(copied.videoSamples == 60)

        // --render full with 5-s cuts across the 2-s GOPs: a segment alone decodes from the
        // keyframe before its start to the GOP that holds its end, nothing more.
        let compositor = try Compositor.forJob(config: config, variables: ["email": "ada@example.com"], warn: { _ in })
        let fiveSecond = try PresentationSource(input: input, segment: PresentationTime(value: 5, timescale: 1))
        let full = try PresentationRow(source: fiveSecond, compositor: compositor, rendering: .encoded)
        #expect(full.segments.count == 120)
        // 35 starts at 175 s, inside the GOP of 174 s; 36 at 180 s, on a keyframe; 119 is the last.
        for k in [35, 36, 119] {
            let segment = full.segments[k]
            let start: Double = Self.secondsOf(segment.start), end: Double = start + Self.secondsOf(segment.duration)
            let made = try full.render(segment: k)
            let own = Int(((end - start) * Double(Self.rate)).rounded())
            #expect(made.encodedPictures == own, "segment \(k): \(made.encodedPictures) pictures encoded, \(own) in its span")
            #expect(made.decodedPictures >= own && made.decodedPictures <= Self.picturesOfGOPs(from: start, to: end),
                    "segment \(k) (\(start)–\(end) s) decoded \(made.decodedPictures) pictures; its GOPs hold \(Self.picturesOfGOPs(from: start, to: end))")
        }
    }
}
