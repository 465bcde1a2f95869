import CFFmpeg
import Overlay
import Testing
@testable import Media
@testable import VideoWM

@Suite("pixel formats marks can be blended into")
struct PixelFormatTests {
    @Test func planarYUVFormatsAreBlendableInPlace() {
        for (format, shiftX, shiftY, depth) in [(AV_PIX_FMT_YUV420P, 1, 1, 8), (AV_PIX_FMT_YUV422P, 1, 0, 8), (AV_PIX_FMT_YUV444P, 0, 0, 8),
                                                (AV_PIX_FMT_YUVJ420P, 1, 1, 8), (AV_PIX_FMT_YUV420P10LE, 1, 1, 10),
                                                (AV_PIX_FMT_YUV422P10LE, 1, 0, 10), (AV_PIX_FMT_YUV444P12LE, 0, 0, 12)] {
            let layout = PixelFormat(format).planarLayout
            #expect(layout == PlanarYUVLayout.init(chromaShiftX: shiftX, chromaShiftY: shiftY, bitDepth: depth), "\(format)")
        }
    }

    @Test func otherFormatsAreConvertedFirst() {
        for format in [AV_PIX_FMT_GBRP, AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR0, AV_PIX_FMT_NV12, AV_PIX_FMT_YUYV422, AV_PIX_FMT_YUV420P10BE,
                       AV_PIX_FMT_PAL8, AV_PIX_FMT_GRAY8] {
            #expect(PixelFormat(format).planarLayout == nil, "\(String(cString: av_get_pix_fmt_name(format)))")
        }
    }
}

@Suite("fitting a resized picture into the stream's size")
struct PictureFitTests {
    struct Case: Sendable {
        var width: Int, height: Int, aspect: Double
        var outWidth: Int, outHeight: Int, outAspect: Double
        var expected: PixelRect
    }

    static let cases: [Case] = [
        // A narrower picture: pillarboxed.
        Case(width: 160, height: 240, aspect: 1, outWidth: 320, outHeight: 240, outAspect: 1, expected: PixelRect(x: 80, y: 0, width: 160, height: 240)),
        // A wider one: letterboxed.
        Case(width: 640, height: 240, aspect: 1, outWidth: 320, outHeight: 240, outAspect: 1, expected: PixelRect(x: 0, y: 60, width: 320, height: 120)),
        // Stored 2:1-wide pixels into square ones: 100 stored columns show as 200.
        Case(width: 100, height: 100, aspect: 2, outWidth: 200, outHeight: 200, outAspect: 1, expected: PixelRect(x: 0, y: 50, width: 200, height: 100)),
        // A square picture into a stream of 2:1-wide pixels (200×200 stored shows as 400×200):
        // 200×200 shown is 100×200 stored.
        Case(width: 100, height: 100, aspect: 1, outWidth: 200, outHeight: 200, outAspect: 2, expected: PixelRect(x: 50, y: 0, width: 100, height: 200)),
        // Odd results round to whole 2×2 chroma blocks.
        Case(width: 101, height: 77, aspect: 1, outWidth: 320, outHeight: 240, outAspect: 1, expected: PixelRect(x: 2, y: 0, width: 314, height: 240)),
    ]

    @Test("shape kept, centred, whole chroma samples", arguments: cases)
    func fit(_ c: Case) {
        let rect = FrameConverter.fit(width: c.width, height: c.height, pixelAspect: c.aspect, into: c.outWidth, c.outHeight,
                                      outputPixelAspect: c.outAspect, unitX: 2, unitY: 2)
        #expect(rect == c.expected)
    }
}
