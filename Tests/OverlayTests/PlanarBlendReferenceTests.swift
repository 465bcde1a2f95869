import TestSupport
import Testing
@testable import Overlay

/// `PlanarYUVCanvas` on 8-bit frames against a plain scalar implementation of its formula,
/// kept here: random marks, frames, opacities and positions (partly off the frame too), and
/// mark widths from 1 to 70 so that the 16-column vector steps and the column-by-column
/// remainders both run. Every byte of every plane, row padding included, must agree.
@Suite("planar blend reference")
struct PlanarBlendReferenceTests {
    enum ChromaFormat: String, CaseIterable, CustomTestStringConvertible {
        case yuv420, yuv422, yuv444
        var shifts: (x: Int, y: Int) {
            switch self { case .yuv420: (1, 1); case .yuv422: (1, 0); case .yuv444: (0, 0) }
        }
        var testDescription: String { rawValue }
    }

    @Test(arguments: ChromaFormat.allCases)
    func vectorisedBlendMatchesTheScalarFormula(format: ChromaFormat) {
        var random = SplitMix64(seed: 0x5EED_0000 + UInt64(ChromaFormat.allCases.firstIndex(of: format)!))
        for trial in 0..<400 {
            let mark = Self.randomMark(&random)
            var frame = Frame.random(&random, shifts: format.shifts)
            let matrix = YUVColorMatrix(coefficients: [.bt601, .bt709, .bt2020][random.below(3)],
                                        isFullRange: random.below(2) == 0)
            let opacity = random.below(2) == 0 ? 255 : UInt8(1 + random.below(255))
            let width = mark.sprite.image.width, height = mark.sprite.image.height
            let x = random.below(frame.width + width + 4) - width - 2
            let y = random.below(frame.height + height + 4) - height - 2

            var expected = frame
            expected.referenceBlend(mark, atX: x, y: y, opacity: opacity, matrix: matrix)
            frame.blend(mark, atX: x, y: y, opacity: opacity, matrix: matrix)
            let difference = frame.firstDifference(from: expected)
            #expect(difference == nil, """
                trial \(trial): \(width)×\(height) mark at (\(x), \(y)), opacity \(opacity), \(matrix) \
                on \(frame.width)×\(frame.height): \(difference ?? "")
                """)
        }
    }

    /// The blend passes over transparent columns inside a 16-column window on the premise
    /// that their samples are zero, whatever colour (even one brighter than its alpha, which
    /// a premultiplied image should not hold) a pixel of tiny alpha had.
    @Test func aBrightSpeckAveragedAwayLeavesZeroChroma() {
        // One pixel of alpha 1 in a 2×2 block: chroma alpha 0.25 rounds to 0, while its blue
        // (brighter than its alpha) would give U ≈ 32.
        let image = PremultipliedRGBAImage(width: 2, height: 2, pixels: [0, 0, 255, 1] + [UInt8](repeating: 0, count: 12))
        let mark = PreparedMark(sprite: Sprite(image: image, layoutBox: PixelRect(x: 0, y: 0, width: 2, height: 2)))
        let planar = mark.planar(for: .init(matrix: YUVColorMatrix(coefficients: .bt709, isFullRange: true), bitDepth: 8,
                                            chromaShiftX: 1, chromaShiftY: 1, phaseX: 0, phaseY: 0))
        #expect(planar.chromaAlpha == [0] && planar.chromaU == [0] && planar.chromaV == [0])
    }

    @Test(arguments: ChromaFormat.allCases)
    func samplesAreZeroWhereAlphaIs(format: ChromaFormat) {
        var random = SplitMix64(seed: 0x2E40 + UInt64(ChromaFormat.allCases.firstIndex(of: format)!))
        for _ in 0..<100 {
            let mark = Self.randomMark(&random)
            let (shifts, blockW, blockH) = (format.shifts, 1 << format.shifts.x, 1 << format.shifts.y)
            let planar = mark.planar(for: .init(matrix: YUVColorMatrix(coefficients: .bt709, isFullRange: random.below(2) == 0),
                                                bitDepth: 8, chromaShiftX: shifts.x, chromaShiftY: shifts.y,
                                                phaseX: random.below(blockW), phaseY: random.below(blockH)))
            #expect(planar.lumaAlpha.indices.allSatisfy { planar.lumaAlpha[$0] != 0 || planar.luma[$0] == 0 })
            // Premultiplied: no sample above its alpha (at 8 bits), so no blend can overflow a byte.
            #expect(planar.luma.indices.allSatisfy { planar.luma[$0] <= UInt16(planar.lumaAlpha[$0]) })
            #expect(planar.chromaU.indices.allSatisfy {
                max(planar.chromaU[$0], planar.chromaV[$0]) <= UInt16(planar.chromaAlpha[$0])
            })
            #expect(planar.chromaAlpha.indices.allSatisfy {
                planar.chromaAlpha[$0] != 0 || (planar.chromaU[$0] == 0 && planar.chromaV[$0] == 0)
            })
        }
    }

    /// A mark with no, rare or frequent transparent gaps (so rows have one long run or several
    /// short ones), opaque pixels, saturated blues and reds, whose full-range chroma comes to
    /// 255.5 before `PlanarMark` clamps it, and a few pixels brighter than their alpha.
    static func randomMark(_ random: inout SplitMix64) -> PreparedMark {
        let width = 1 + random.below(70), height = 1 + random.below(6)
        let gapEvery = [0, 24, 4][random.below(3)]
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            let alpha: Int
            if gapEvery > 0 && random.below(gapEvery) == 0 {
                alpha = 0
            } else {
                switch random.below(8) {
                case 0, 1, 2: alpha = 255
                case 3: alpha = 1  // a speck, which averages to zero chroma alpha beside transparent pixels
                default: alpha = 1 + random.below(255)
                }
            }
            var rgb = (0..<3).map { _ in random.below(alpha + 1) }
            switch random.below(8) {
            case 0: rgb = random.below(2) == 0 ? [0, 0, alpha] : [alpha, 0, 0]
            case 1: rgb = (0..<3).map { _ in random.below(256) }
            default: break
            }
            pixels[i * 4 ..< i * 4 + 4] = [UInt8(rgb[0]), UInt8(rgb[1]), UInt8(rgb[2]), UInt8(alpha)]
        }
        let image = PremultipliedRGBAImage(width: width, height: height, pixels: pixels)
        return PreparedMark(sprite: Sprite(image: image, layoutBox: PixelRect(x: 0, y: 0, width: width, height: height)))
    }

    /// An 8-bit planar frame in arrays, rows padded past the plane width with random bytes.
    struct Frame {
        var width: Int, height: Int
        var shifts: (x: Int, y: Int)
        var strides: [Int]
        var planes: [[UInt8]]

        var chromaWidth: Int { (width + (1 << shifts.x) - 1) >> shifts.x }
        var chromaHeight: Int { (height + (1 << shifts.y) - 1) >> shifts.y }

        static func random(_ random: inout SplitMix64, shifts: (x: Int, y: Int)) -> Frame {
            var frame = Frame(width: 1 + random.below(80), height: 1 + random.below(12), shifts: shifts, strides: [], planes: [])
            for plane in 0..<3 {
                let (w, h) = plane == 0 ? (frame.width, frame.height) : (frame.chromaWidth, frame.chromaHeight)
                let stride = w + random.below(8)
                frame.strides.append(stride)
                frame.planes.append((0..<(stride * h)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            }
            return frame
        }

        /// Through `PlanarYUVCanvas`, the code under test.
        mutating func blend(_ mark: PreparedMark, atX x: Int, y: Int, opacity: UInt8, matrix: YUVColorMatrix) {
            let (w, h, shifts, strides) = (width, height, shifts, strides)
            var (luma, u, v) = (planes[0], planes[1], planes[2])
            luma.withUnsafeMutableBytes { luma in u.withUnsafeMutableBytes { u in v.withUnsafeMutableBytes { v in
                let canvas = PlanarYUVCanvas(width: w, height: h,
                                             luma: .init(base: luma.baseAddress!, bytesPerRow: strides[0]),
                                             u: .init(base: u.baseAddress!, bytesPerRow: strides[1]),
                                             v: .init(base: v.baseAddress!, bytesPerRow: strides[2]),
                                             chromaShiftX: shifts.x, chromaShiftY: shifts.y, bitDepth: 8, matrix: matrix)
                canvas.blend(mark, atX: x, y: y, opacity: opacity)
            } } }
            planes = [luma, u, v]
        }

        /// The same blend one sample at a time, from the mark's planar conversion. Like the
        /// canvas, it leaves the frame alone when the mark misses its luma entirely.
        mutating func referenceBlend(_ mark: PreparedMark, atX x: Int, y: Int, opacity: UInt8, matrix: YUVColorMatrix) {
            let image = mark.sprite.image
            guard x < width, y < height, x + image.width > 0, y + image.height > 0 else { return }
            let blockW = 1 << shifts.x, blockH = 1 << shifts.y
            let phaseX = ((x % blockW) + blockW) % blockW, phaseY = ((y % blockH) + blockH) % blockH
            let planar = mark.planar(for: .init(matrix: matrix, bitDepth: 8, chromaShiftX: shifts.x, chromaShiftY: shifts.y,
                                                phaseX: phaseX, phaseY: phaseY))
            let chromaX = (x - phaseX) >> shifts.x, chromaY = (y - phaseY) >> shifts.y
            blendPlane(0, planeWidth: width, planeHeight: height, samples: planar.luma, alpha: planar.lumaAlpha,
                       markWidth: planar.width, atX: x, y: y, opacity: opacity)
            for (plane, samples) in [(1, planar.chromaU), (2, planar.chromaV)] {
                blendPlane(plane, planeWidth: chromaWidth, planeHeight: chromaHeight, samples: samples, alpha: planar.chromaAlpha,
                           markWidth: planar.chromaWidth, atX: chromaX, y: chromaY, opacity: opacity)
            }
        }

        /// Where the planes of two frames first differ, or nil.
        func firstDifference(from other: Frame) -> String? {
            for plane in 0..<3 {
                guard let i = planes[plane].indices.first(where: { planes[plane][$0] != other.planes[plane][$0] }) else { continue }
                return "plane \(plane) row \(i / strides[plane]) column \(i % strides[plane]): "
                    + "\(planes[plane][i]), expected \(other.planes[plane][i])"
            }
            return nil
        }

        private mutating func blendPlane(_ plane: Int, planeWidth: Int, planeHeight: Int, samples: [UInt16], alpha: [UInt8],
                                         markWidth: Int, atX x: Int, y: Int, opacity: UInt8) {
            for i in alpha.indices where alpha[i] != 0 {
                let column = x + i % markWidth, row = y + i / markWidth
                guard column >= 0, row >= 0, column < planeWidth, row < planeHeight else { continue }
                let d = row * strides[plane] + column
                planes[plane][d] = Self.blend(planes[plane][d], sample: samples[i], alpha: alpha[i], opacity: opacity)
            }
        }

        /// `min(255, P + D·(255 − A) / 255)`, with P and A first scaled by the opacity, each
        /// division rounded to nearest.
        static func blend(_ d: UInt8, sample: UInt16, alpha: UInt8, opacity: UInt8) -> UInt8 {
            func divideRounded(_ x: Int) -> Int { (x + 127) / 255 }
            var p = Int(sample), a = Int(alpha)
            if opacity != 255 {
                p = divideRounded(p * Int(opacity))
                a = divideRounded(a * Int(opacity))
            }
            return UInt8(min(255, p + divideRounded(Int(d) * (255 - a))))
        }
    }
}
