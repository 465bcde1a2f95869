import CFFmpeg
import Overlay

/// An owned `SwsContext` that turns a decoded (and marked) video frame into an RGBA still,
/// optionally resized, writing straight into the image's own buffer.
///
/// Full-size conversions use the same flags and colour handling as `FrameConverter`, so a
/// thumbnail's pixels are what the pipeline's own conversion gives.
final class RGBAScaler {
    private let context: OpaquePointer
    let targetWidth: Int
    let targetHeight: Int
    private let file: String

    /// A scaler for frames shaped like `frame`: its size, pixel format, colour matrix and range.
    init(from frame: Frame, toWidth width: Int, height: Int, file: String) throws {
        precondition(width > 0 && height > 0, "scaling to an empty picture")
        let f = frame.pointer.pointee
        guard let ctx = sws_getContext(f.width, f.height, frame.pixelFormat, Int32(width), Int32(height), AV_PIX_FMT_RGBA,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil) else {
            let name = av_get_pix_fmt_name(frame.pixelFormat).map { String(cString: $0) } ?? "unknown"
            throw MediaError(file: file, detail: "cannot convert \(name) pictures to RGBA")
        }
        context = ctx
        let coefficients = sws_getCoefficients(swsMatrix(for: f.colorspace, height: frame.height))
        sws_setColorspaceDetails(ctx, coefficients, colorMatrix(of: frame.pointer).isFullRange ? 1 : 0, coefficients, 1, 0, 1 << 16, 1 << 16)
        targetWidth = width
        targetHeight = height
        self.file = file
    }

    deinit { sws_freeContext(context) }

    func scale(_ frame: Frame) throws -> StraightRGBAImage {
        var pixels = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        let f = frame.pointer.pointee
        let sourcePlanes: [UnsafePointer<UInt8>?] = [f.data.0, f.data.1, f.data.2, f.data.3].map { $0.map { UnsafePointer($0) } }
        let sourceStrides: [Int32] = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        let targetStrides: [Int32] = [Int32(targetWidth * 4), 0, 0, 0]
        let code = pixels.withUnsafeMutableBufferPointer { buffer in
            let targetPlanes: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            return sws_scale(context, sourcePlanes, sourceStrides, 0, f.height, targetPlanes, targetStrides)
        }
        try check(code, MediaError.call("converting pixels", file: file))
        return StraightRGBAImage(width: targetWidth, height: targetHeight, pixels: pixels)
    }
}
