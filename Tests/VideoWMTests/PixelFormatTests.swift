import CFFmpeg
import Testing
@testable import VideoWM

@Suite("pixel formats marks can be blended into")
struct PixelFormatTests {
    @Test func planarYUVFormatsAreBlendableInPlace() {
        for (format, shiftX, shiftY, depth) in [(AV_PIX_FMT_YUV420P, 1, 1, 8), (AV_PIX_FMT_YUV422P, 1, 0, 8), (AV_PIX_FMT_YUV444P, 0, 0, 8),
                                                (AV_PIX_FMT_YUVJ420P, 1, 1, 8), (AV_PIX_FMT_YUV420P10LE, 1, 1, 10),
                                                (AV_PIX_FMT_YUV422P10LE, 1, 0, 10), (AV_PIX_FMT_YUV444P12LE, 0, 0, 12)] {
            let layout = PlanarYUVLayout(format)
            #expect(layout == PlanarYUVLayout.init(chromaShiftX: shiftX, chromaShiftY: shiftY, bitDepth: depth), "\(format)")
        }
    }

    @Test func otherFormatsAreConvertedFirst() {
        for format in [AV_PIX_FMT_GBRP, AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR0, AV_PIX_FMT_NV12, AV_PIX_FMT_YUYV422, AV_PIX_FMT_YUV420P10BE,
                       AV_PIX_FMT_PAL8, AV_PIX_FMT_GRAY8] {
            #expect(PlanarYUVLayout(format) == nil, "\(String(cString: av_get_pix_fmt_name(format)))")
        }
    }
}
