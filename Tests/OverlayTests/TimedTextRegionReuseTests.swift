import Animation
import Glibc
import Testing
@testable import Overlay

/// A timecode's frames made by copying back rectangles drawn on earlier frames (`RedrawnRegions`)
/// are the very frames drawing every change again gives, frame after frame, in every YUV layout
/// a mark is converted to and on RGBA, across second, minute and drop-frame boundaries and jumps.
@Suite struct TimedTextRegionReuseTests {
    /// The planes of one YUV layout, filled with detail so a blend over the wrong samples shows.
    final class YUVFrame {
        let width: Int, height: Int, shiftX: Int, shiftY: Int, bitDepth: Int
        var y: [UInt8], u: [UInt8], v: [UInt8]
        private let background: (y: [UInt8], u: [UInt8], v: [UInt8])

        init(width: Int, height: Int, shiftX: Int, shiftY: Int, bitDepth: Int) {
            self.width = width; self.height = height; self.shiftX = shiftX; self.shiftY = shiftY; self.bitDepth = bitDepth
            let bytes = bitDepth > 8 ? 2 : 1
            let chromaWidth = (width + (1 << shiftX) - 1) >> shiftX, chromaHeight = (height + (1 << shiftY) - 1) >> shiftY
            var lumaPlane = (0..<(width * height * bytes)).map { UInt8(truncatingIfNeeded: 16 + ($0 * 7 + $0 / width * 5) % 200) }
            let chroma = chromaWidth * chromaHeight * bytes
            var uPlane = (0..<chroma).map { UInt8(truncatingIfNeeded: 90 + $0 % 61) }
            var vPlane = (0..<chroma).map { UInt8(truncatingIfNeeded: 170 - $0 % 47) }
            if bitDepth > 8 {
                // Keep 10-bit samples in range: the high byte of each little-endian word 0…3.
                for i in stride(from: 1, to: lumaPlane.count, by: 2) { lumaPlane[i] &= 3 }
                for i in stride(from: 1, to: chroma, by: 2) { uPlane[i] &= 3; vPlane[i] &= 3 }
            }
            background = (lumaPlane, uPlane, vPlane)
            (y, u, v) = background
        }

        /// The background with `compositor`'s marks at `time`.
        func draw(_ compositor: Compositor, at time: PresentationTime) throws {
            (y, u, v) = background
            let bytes = bitDepth > 8 ? 2 : 1
            let chromaRow = ((width + (1 << shiftX) - 1) >> shiftX) * bytes
            try y.withUnsafeMutableBytes { yb in try u.withUnsafeMutableBytes { ub in try v.withUnsafeMutableBytes { vb in
                let canvas = PlanarYUVCanvas(width: width, height: height, luma: .init(base: yb.baseAddress!, bytesPerRow: width * bytes),
                                             u: .init(base: ub.baseAddress!, bytesPerRow: chromaRow),
                                             v: .init(base: vb.baseAddress!, bytesPerRow: chromaRow),
                                             chromaShiftX: shiftX, chromaShiftY: shiftY, bitDepth: bitDepth,
                                             matrix: .init(coefficients: .bt709, isFullRange: false))
                try compositor.composite(onto: canvas, at: time)
            } } }
        }

        func sameSamples(as other: YUVFrame) -> Bool {
            func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
                a.count == b.count && a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in memcmp(pa.baseAddress!, pb.baseAddress!, a.count) == 0 } }
            }
            return same(y, other.y) && same(u, other.u) && same(v, other.v)
        }
    }

    struct Case: CustomTestStringConvertible {
        var name: String
        var layer: LayerSpec
        var timecode: Timecode
        var width: Int
        var height: Int
        /// Frame numbers drawn in this order.
        var frames: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let thirty = try! Timecode(rateNumerator: 30, rateDenominator: 1)
        let ntsc = try! Timecode(rateNumerator: 30000, rateDenominator: 1001)
        let timecode = TimedText(frame: { $0.timecode?.string(at: $0.time) ?? "?" })
        let decorated = LayerSpec(content: .timedText(timecode), sizeFraction: 0.07, color: RGBAColor(red: 250, green: 220, blue: 40),
                                  opacity: 0.8, outline: LayerSpec.Outline(widthFraction: 0.006, color: .black),
                                  shadow: LayerSpec.Shadow(offsetXFraction: 0.01, offsetYFraction: 0.01, blurFraction: 0,
                                                           color: RGBAColor(argb: 0x80000000)),
                                  box: LayerSpec.Box(color: RGBAColor(argb: 0x60203040), paddingFraction: 0.01, radiusFraction: 0.01),
                                  timeline: LayerTimeline(xPercent: 37, yPercent: 63))
        return [
            Case(name: "bench layer, 1280×720 at 30 fps", layer: TimedTextPixelReferenceTests.benchLayer(timecode), timecode: thirty,
                 width: 1280, height: 720, frames: Array(0..<450)),
            // Across the first minute's dropped labels, then jumps back and forth as a seek would.
            Case(name: "outline, shadow and plate, 640×360 at 29.97 drop-frame", layer: decorated, timecode: ntsc,
                 width: 640, height: 360, frames: Array(1700..<1900) + Array(0..<300) + [1799, 1800, 17_982, 17_983, 5, 6, 1801]),
        ]
    }()

    @Test(arguments: cases)
    func framesWithRegionsCopiedBackEqualFramesDrawnAgain(_ test: Case) throws {
        let reusing = Compositor(layers: [test.layer], fonts: try FontLibrary())
        let drawing = Compositor(layers: [test.layer], fonts: try FontLibrary())
        drawing.reusesRedrawnRegions = false
        for compositor in [reusing, drawing] { compositor.timecode = test.timecode }
        // Every frame is marked in two YUV layouts (4:2:0 8-bit, 4:2:2 10-bit), so each mark keeps two conversions.
        let layouts = [(1, 1, 8), (1, 0, 10)]
        let framesReusing = layouts.map { YUVFrame(width: test.width, height: test.height, shiftX: $0.0, shiftY: $0.1, bitDepth: $0.2) }
        let framesDrawing = layouts.map { YUVFrame(width: test.width, height: test.height, shiftX: $0.0, shiftY: $0.1, bitDepth: $0.2) }
        var mismatches: [String] = []
        for (n, frame) in test.frames.enumerated() {
            let time = PresentationTime(value: Int64(frame) * test.timecode.rateDenominator, timescale: test.timecode.rateNumerator)
            for (a, b) in zip(framesReusing, framesDrawing) {
                try a.draw(reusing, at: time)
                try b.draw(drawing, at: time)
                if !a.sameSamples(as: b) { mismatches.append("frame \(frame), \(a.bitDepth)-bit 4:\(a.shiftY == 1 ? "2:0" : "2:2")") }
            }
            // RGBA (a still's canvas) now and then: the copied sprite pixels themselves.
            if n % 50 == 49 {
                let width = test.width / 2, height = test.height / 2
                if try CanvasMeasurements.render(reusing, width: width, height: height, at: time)
                    != CanvasMeasurements.render(drawing, width: width, height: height, at: time) {
                    mismatches.append("frame \(frame), RGBA")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        // The fast path is the one taken: after the first seconds almost every change is a copy.
        #expect(reusing.timedTextFullDraws == drawing.timedTextFullDraws && reusing.timedTextRedraws == drawing.timedTextRedraws)
        #expect(drawing.timedTextRegionsReused == 0)
        #expect(Double(reusing.timedTextRegionsReused) > 0.6 * Double(reusing.timedTextRedraws),
                "\(reusing.timedTextRegionsReused) of \(reusing.timedTextRedraws) redraws copied back")
    }

    @Test func aFreshCompositorDrawsWhatOneThatCopiedBackShows() throws {
        let test = Self.cases[1]
        let running = Compositor(layers: [test.layer], fonts: try FontLibrary())
        running.timecode = test.timecode
        let frame = YUVFrame(width: test.width, height: test.height, shiftX: 1, shiftY: 1, bitDepth: 8)
        for number in 0..<400 {
            try frame.draw(running, at: PresentationTime(value: Int64(number) * 1001, timescale: 30000))
        }
        #expect(running.timedTextRegionsReused > 300)
        for number in [400, 409, 410, 1799, 1800] {
            let time = PresentationTime(value: Int64(number) * 1001, timescale: 30000)
            let fresh = Compositor(layers: [test.layer], fonts: try FontLibrary())
            fresh.timecode = test.timecode
            let expected = YUVFrame(width: test.width, height: test.height, shiftX: 1, shiftY: 1, bitDepth: 8)
            try frame.draw(running, at: time)
            try expected.draw(fresh, at: time)
            #expect(frame.sameSamples(as: expected), "frame \(number)")
        }
    }
}
