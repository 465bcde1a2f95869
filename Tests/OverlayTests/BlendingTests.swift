import Testing
@testable import Overlay

/// Known colours over known backgrounds at several alphas, checked against the formulas
/// worked out by hand, and pixels outside the mark checked to be untouched.
@Suite("blending")
struct BlendingTests {
    func mark(_ color: RGBAColor, width: Int = 2, height: Int = 2) -> PreparedMark {
        let straight = StraightRGBAImage(width: width, height: height, fill: color)
        let image = straight.premultiplied()
        return PreparedMark(sprite: Sprite(image: image, layoutBox: PixelRect(x: 0, y: 0, width: width, height: height)))
    }

    @Test func divideBy255IsRoundedDivisionForEveryProductOfTwoBytes() {
        for x in 0...(255 * 255) {
            let expected = UInt8((Double(x) / 255).rounded())
            if divideBy255(UInt32(x)) != expected {
                Issue.record("divideBy255(\(x)) = \(divideBy255(UInt32(x))), expected \(expected)")
                return
            }
        }
    }

    @Test(arguments: [0, 1, 64, 128, 200, 254, 255])
    func sourceOverOpaqueBackground(alpha: Int) {
        var frame = StraightRGBAImage(width: 4, height: 4, fill: RGBAColor(red: 10, green: 100, blue: 250))
        let m = mark(RGBAColor(red: 250, green: 20, blue: 0, alpha: UInt8(alpha)))
        frame.withCanvas { $0.blend(m, atX: 1, y: 1, opacity: 255) }
        let a = Double(alpha) / 255
        let expect = { (s: Double, d: Double) in UInt8((s * a + d * (1 - a)).rounded()) }
        let p = frame.pixel(x: 1, y: 1)
        #expect(abs(Int(p.red) - Int(expect(250, 10))) <= 1)
        #expect(abs(Int(p.green) - Int(expect(20, 100))) <= 1)
        #expect(abs(Int(p.blue) - Int(expect(0, 250))) <= 1)
        #expect(p.alpha == 255)
        // Outside the 2×2 mark at (1, 1): untouched.
        for (x, y) in [(0, 0), (3, 3), (0, 1), (3, 1), (1, 3), (1, 0)] {
            #expect(frame.pixel(x: x, y: y) == RGBAColor(red: 10, green: 100, blue: 250))
        }
    }

    @Test func opaqueMarkReplacesAndTransparentMarkLeavesAlone() {
        var frame = StraightRGBAImage(width: 2, height: 2, fill: .black)
        frame.withCanvas { $0.blend(mark(RGBAColor(red: 1, green: 2, blue: 3)), atX: 0, y: 0, opacity: 255) }
        #expect(frame.pixel(x: 1, y: 1) == RGBAColor(red: 1, green: 2, blue: 3))
        frame.withCanvas { $0.blend(mark(.clear), atX: 0, y: 0, opacity: 255) }
        #expect(frame.pixel(x: 1, y: 1) == RGBAColor(red: 1, green: 2, blue: 3))
    }

    @Test func opacityScalesTheMark() {
        var frame = StraightRGBAImage(width: 1, height: 1, fill: .black)
        frame.withCanvas { $0.blend(mark(.white, width: 1, height: 1), atX: 0, y: 0, opacity: 128) }
        #expect(frame.pixel(x: 0, y: 0) == RGBAColor(red: 128, green: 128, blue: 128))
    }

    @Test func overTranslucentBackgroundIsPorterDuff() {
        var frame = StraightRGBAImage(width: 1, height: 1, fill: RGBAColor(red: 0, green: 0, blue: 255, alpha: 128))
        frame.withCanvas { $0.blend(mark(RGBAColor(red: 255, green: 0, blue: 0, alpha: 128), width: 1, height: 1), atX: 0, y: 0, opacity: 255) }
        let p = frame.pixel(x: 0, y: 0)
        // αo = 0.502 + 0.502·0.498 ≈ 0.752 → 192; red = 0.502/0.752 ≈ 170; blue = 0.25/0.752 ≈ 85.
        #expect(abs(Int(p.alpha) - 192) <= 1)
        #expect(abs(Int(p.red) - 170) <= 2)
        #expect(abs(Int(p.blue) - 85) <= 2)
    }

    @Test func marksPartlyOffTheFrameAreClipped() {
        var frame = StraightRGBAImage(width: 3, height: 3, fill: .black)
        frame.withCanvas { $0.blend(mark(.white, width: 2, height: 2), atX: -1, y: 2, opacity: 255) }
        #expect(frame.pixel(x: 0, y: 2) == .white)
        #expect(frame.pixel(x: 1, y: 2) == .black)
        #expect(frame.pixel(x: 0, y: 1) == .black)
        frame.withCanvas { $0.blend(mark(.white), atX: 10, y: 10, opacity: 255) }  // entirely outside: no crash
    }

    /// A 4:2:0 8-bit frame in plain arrays.
    struct YUVFrame {
        var width: Int, height: Int
        var y: [UInt8], u: [UInt8], v: [UInt8]
        init(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8) {
            self.width = width
            self.height = height
            self.y = [UInt8](repeating: y, count: width * height)
            self.u = [UInt8](repeating: u, count: (width / 2) * (height / 2))
            self.v = [UInt8](repeating: v, count: (width / 2) * (height / 2))
        }
        mutating func blend(_ m: PreparedMark, x: Int, yPos: Int, matrix: YUVColorMatrix = .init(coefficients: .bt601, isFullRange: false)) {
            let w = width, h = height
            y.withUnsafeMutableBytes { yb in u.withUnsafeMutableBytes { ub in v.withUnsafeMutableBytes { vb in
                let canvas = PlanarYUVCanvas(width: w, height: h,
                                             luma: .init(base: yb.baseAddress!, bytesPerRow: w),
                                             u: .init(base: ub.baseAddress!, bytesPerRow: w / 2),
                                             v: .init(base: vb.baseAddress!, bytesPerRow: w / 2),
                                             chromaShiftX: 1, chromaShiftY: 1, bitDepth: 8, matrix: matrix)
                canvas.blend(m, atX: x, y: yPos, opacity: 255)
            } } }
        }
    }

    @Test func opaqueWhiteOnYUVIsLimitedRangeWhite() {
        var frame = YUVFrame(width: 8, height: 8, y: 16, u: 128, v: 128)
        frame.blend(mark(.white, width: 4, height: 4), x: 2, yPos: 2)
        #expect(frame.y[2 * 8 + 2] == 235)
        #expect(frame.y[5 * 8 + 5] == 235)
        #expect(frame.u[1 * 4 + 1] == 128 && frame.v[1 * 4 + 1] == 128)
        // Untouched outside: luma row 1 and column 6, chroma sample (0, 0) and (3, 3).
        #expect(frame.y[1 * 8 + 3] == 16 && frame.y[3 * 8 + 6] == 16)
        #expect(frame.u[0] == 128 && frame.u[3 * 4 + 3] == 128)
    }

    @Test func halfTransparentRedOnYUVMatchesTheFormula() {
        var frame = YUVFrame(width: 4, height: 4, y: 100, u: 90, v: 160)
        frame.blend(mark(RGBAColor(red: 255, green: 0, blue: 0, alpha: 128), width: 4, height: 4), x: 0, yPos: 0)
        // BT.601 limited: red → Y 81.5, U 90.2, V 240. Mixed at α = 128/255 with the background.
        let a = 128.0 / 255
        #expect(abs(Double(frame.y[5]) - (81.481 * a + 100 * (1 - a))) <= 1)
        #expect(abs(Double(frame.u[0]) - (90.222 * a + 90 * (1 - a))) <= 1)
        #expect(abs(Double(frame.v[0]) - (240 * a + 160 * (1 - a))) <= 1)
    }

    /// Full-range chroma of pure blue (U) and red (V) is 255.5 before rounding; stored as a
    /// byte it must stay 255, not wrap to 0 (a yellow or green mark).
    @Test(arguments: [(RGBAColor(red: 0, green: 0, blue: 255), true), (RGBAColor(red: 255, green: 0, blue: 0), false)])
    func saturatedBlueAndRedKeepTheirChromaOnFullRangeVideo(color: RGBAColor, isBlue: Bool) {
        var frame = YUVFrame(width: 32, height: 4, y: 0, u: 128, v: 128)
        // 32 columns: the vectorised path; then a 4-column mark for the scalar one.
        for width in [32, 4] {
            frame.blend(mark(color, width: width, height: 4), x: 0, yPos: 0, matrix: .init(coefficients: .bt709, isFullRange: true))
            #expect((isBlue ? frame.u : frame.v).prefix(width / 2).allSatisfy { $0 == 255 }, "\(isBlue ? frame.u : frame.v)")
        }
    }

    @Test func oddPositionsAverageChromaOverTheCoveredPart() {
        var frame = YUVFrame(width: 4, height: 4, y: 16, u: 128, v: 128)
        // A 1×1 opaque red mark at (1, 1) covers a quarter of chroma block (0, 0).
        frame.blend(mark(RGBAColor(red: 255, green: 0, blue: 0), width: 1, height: 1), x: 1, yPos: 1)
        #expect(abs(Int(frame.v[0]) - Int((240.0 * 0.25 + 128 * 0.75).rounded())) <= 1)
        #expect(frame.v[1] == 128 && frame.v[2] == 128)
        #expect(frame.y[5] == 81 || frame.y[5] == 82)
        #expect(frame.y[0] == 16 && frame.y[6] == 16)
    }
}
