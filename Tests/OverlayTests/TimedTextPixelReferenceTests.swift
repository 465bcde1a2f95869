import Animation
import Foundation
import Testing
@testable import Overlay

/// Per-frame text (`{timecode}`, `{pts}`) composited frame after frame onto YUV 4:2:0 pictures,
/// each picture's checksum compared with one committed from the renderer as it was before the
/// per-frame path was made faster (issue 28): speed work on that path must not change a pixel.
///
/// The reference is `References/timed-text-frames.txt`, one line per frame: case, frame number,
/// FNV-1a 64 of the Y, U and V planes. A missing reference, or any reference when
/// `VIDEOWM_UPDATE_REFERENCES=1`, is written from the current rendering and the test fails saying
/// so (as `ReferenceImageTests` does): regenerating is a deliberate step, never a side effect.
@Suite("timed text pixel reference")
struct TimedTextPixelReferenceTests {
    static let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("References/timed-text-frames.txt")

    struct Case {
        var name: String
        var width: Int
        var height: Int
        var layer: LayerSpec
        var timecode: Timecode
        /// Frame numbers drawn in this order by one compositor (so redraws build on each other).
        var frames: [Int]
    }

    /// Bench job 7's layer: white at 0.9 on a half-transparent plate, bottom right.
    static func benchLayer(_ text: TimedText) -> LayerSpec {
        LayerSpec(content: .timedText(text), sizeFraction: 0.04, color: .white, opacity: 0.9,
                  box: LayerSpec.Box(color: RGBAColor(argb: 0x80000000), paddingFraction: 0.01, radiusFraction: 0),
                  timeline: LayerTimeline(xPercent: 100, yPercent: 100))
    }

    static func cases() throws -> [Case] {
        let thirty = try Timecode(rateNumerator: 30, rateDenominator: 1)
        let ntsc = try Timecode(rateNumerator: 30000, rateDenominator: 1001)
        let timecode = TimedText(frame: { frame in frame.timecode?.string(at: frame.time) ?? "?" })
        // `{pts}`-like: seconds with three decimals, whose width changes at 10 s (a full preparation).
        let seconds = TimedText { time in
            let millis = Int((time.seconds * 1000).rounded())
            return "pts \(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000) s"
        }
        let decorated = LayerSpec(content: .timedText(timecode), sizeFraction: 0.07, color: RGBAColor(red: 250, green: 220, blue: 40),
                                  opacity: 1, outline: LayerSpec.Outline(widthFraction: 0.006, color: .black),
                                  shadow: LayerSpec.Shadow(offsetXFraction: 0.01, offsetYFraction: 0.01, blurFraction: 0,
                                                           color: RGBAColor(argb: 0x80000000)),
                                  box: LayerSpec.Box(color: RGBAColor(argb: 0x60203040), paddingFraction: 0.01, radiusFraction: 0.01),
                                  timeline: LayerTimeline(xPercent: 30, yPercent: 70))
        return [
            Case(name: "bench-720p", width: 1280, height: 720, layer: benchLayer(timecode), timecode: thirty,
                 frames: Array(0..<64) + [1799, 1800, 1801, 108_000]),
            Case(name: "bench-1080p", width: 1920, height: 1080, layer: benchLayer(timecode), timecode: thirty, frames: Array(25..<36)),
            Case(name: "decorated-2997", width: 640, height: 360, layer: decorated, timecode: ntsc,
                 frames: Array(0..<40) + [1797, 1798, 1799, 1800, 1801, 17_982, 17_983]),
            Case(name: "pts-seconds", width: 480, height: 270, layer: benchLayer(seconds), timecode: thirty,
                 frames: Array(295..<305)),
        ]
    }

    /// A background with detail in every plane, so a blend over the wrong samples shows.
    static func background(width: Int, height: Int) -> (y: [UInt8], u: [UInt8], v: [UInt8]) {
        var y = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height { for column in 0..<width { y[row * width + column] = UInt8(truncatingIfNeeded: 16 + (column * 3 + row * 5) % 220) } }
        let chroma = (width / 2) * (height / 2)
        let u = (0..<chroma).map { UInt8(truncatingIfNeeded: 90 + $0 % 70) }
        let v = (0..<chroma).map { UInt8(truncatingIfNeeded: 170 - $0 % 50) }
        return (y, u, v)
    }

    static func fnv1a(_ planes: [UInt8]...) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for plane in planes { for byte in plane { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 } }
        return hash
    }

    /// Every frame of `test`, composited by one compositor in order: "name frame digest" lines.
    static func render(_ test: Case) throws -> [String] {
        let compositor = Compositor(layers: [test.layer], fonts: try FontLibrary())
        compositor.timecode = test.timecode
        let base = background(width: test.width, height: test.height)
        let (w, h) = (test.width, test.height)
        return try test.frames.map { frame in
            var (y, u, v) = base
            try y.withUnsafeMutableBytes { yb in try u.withUnsafeMutableBytes { ub in try v.withUnsafeMutableBytes { vb in
                let canvas = PlanarYUVCanvas(width: w, height: h, luma: .init(base: yb.baseAddress!, bytesPerRow: w),
                                             u: .init(base: ub.baseAddress!, bytesPerRow: w / 2),
                                             v: .init(base: vb.baseAddress!, bytesPerRow: w / 2),
                                             chromaShiftX: 1, chromaShiftY: 1, bitDepth: 8,
                                             matrix: .init(coefficients: .bt709, isFullRange: false))
                let time = PresentationTime(value: Int64(frame) * test.timecode.rateDenominator, timescale: test.timecode.rateNumerator)
                try compositor.composite(onto: canvas, at: time)
            } } }
            return "\(test.name) \(frame) \(String(fnv1a(y, u, v), radix: 16))"
        }
    }

    @Test func everyFrameMatchesTheCommittedChecksums() throws {
        let lines = try Self.cases().flatMap(Self.render)
        let update = ProcessInfo.processInfo.environment["VIDEOWM_UPDATE_REFERENCES"] == "1"
        guard !update, let committed = try? String(contentsOf: Self.reference, encoding: .utf8) else {
            try (lines.joined(separator: "\n") + "\n").write(to: Self.reference, atomically: true, encoding: .utf8)
            Issue.record("wrote \(Self.reference.path) from the current rendering; check it in")
            return
        }
        let expected = committed.split(separator: "\n").map(String.init)
        #expect(lines.count == expected.count)
        for (got, want) in zip(lines, expected) where got != want {
            Issue.record("\(got) (committed: \(want))")
        }
    }
}
