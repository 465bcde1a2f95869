import CFFmpeg

/// An owned `SwsContext` converting frames of one size and format to another format,
/// with the output frame allocated once and reused.
///
/// The output may be padded to `paddedWidth`×`paddedHeight` (for 4:2:0 encoders, which need
/// even sizes): the extra column or row repeats the picture's edge, so nothing is cropped.
final class FrameConverter {
    private let context: OpaquePointer
    let output: Frame
    let sourceFormat: AVPixelFormat
    let width: Int
    let height: Int
    private let padding: PlanarYUVLayout?

    init(width: Int, height: Int, from source: AVPixelFormat, to target: AVPixelFormat,
         sourceMatrix: Int32 = SWS_CS_DEFAULT, sourceFullRange: Bool = false, targetFullRange: Bool = false,
         paddedWidth: Int? = nil, paddedHeight: Int? = nil) throws {
        guard let ctx = sws_getContext(Int32(width), Int32(height), source, Int32(width), Int32(height), target,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil) else {
            let from = String(cString: av_get_pix_fmt_name(source)), to = String(cString: av_get_pix_fmt_name(target))
            throw VideoWMError(.dataError, "cannot convert pixels from \(from) to \(to)")
        }
        context = ctx
        // Use the frame's own matrix so colours survive the conversion.
        let coefficients = sws_getCoefficients(sourceMatrix)
        sws_setColorspaceDetails(ctx, coefficients, sourceFullRange ? 1 : 0, coefficients, targetFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        output = try Frame()
        let outWidth = max(width, paddedWidth ?? width), outHeight = max(height, paddedHeight ?? height)
        output.pointer.pointee.width = Int32(outWidth)
        output.pointer.pointee.height = Int32(outHeight)
        output.pointer.pointee.format = target.rawValue
        try check(av_frame_get_buffer(output.pointer, 0), "allocating a frame", file: "-", status: .ioError)
        sourceFormat = source
        self.width = width
        self.height = height
        if outWidth != width || outHeight != height {
            guard let layout = PlanarYUVLayout(target) else {
                throw VideoWMError(.dataError, "cannot pad frames of \(String(cString: av_get_pix_fmt_name(target)))")
            }
            padding = layout
        } else {
            padding = nil
        }
    }

    deinit { sws_freeContext(context) }

    /// Converts `frame` into `output` (whose buffers are made writable first) and copies its properties.
    func convert(_ frame: Frame) throws -> Frame {
        try check(av_frame_make_writable(output.pointer), "allocating a frame", file: "-", status: .ioError)
        let src = frame.pointer
        let code = withUnsafePointer(to: &src.pointee.data) { srcData in
            withUnsafePointer(to: &src.pointee.linesize) { srcLines in
                withUnsafeMutablePointer(to: &output.pointer.pointee.data) { dstData in
                    withUnsafeMutablePointer(to: &output.pointer.pointee.linesize) { dstLines in
                        srcData.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { s in
                            srcLines.withMemoryRebound(to: Int32.self, capacity: 8) { sl in
                                dstData.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                                    dstLines.withMemoryRebound(to: Int32.self, capacity: 8) { dl in
                                        sws_scale(context, s, sl, 0, Int32(height), d, dl)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        try check(code, "converting pixels", file: "-", status: .dataError)
        try check(av_frame_copy_props(output.pointer, src), "copying frame properties", file: "-", status: .ioError)
        if let padding { repeatEdges(padding) }
        return output
    }

    /// Fills the padding column and row by repeating the last picture column and row.
    private func repeatEdges(_ layout: PlanarYUVLayout) {
        let f = output.pointer.pointee
        let bytesPerSample = layout.bitDepth > 8 ? 2 : 1
        let planes = [(f.data.0!, Int(f.linesize.0), 0, 0), (f.data.1!, Int(f.linesize.1), layout.chromaShiftX, layout.chromaShiftY),
                      (f.data.2!, Int(f.linesize.2), layout.chromaShiftX, layout.chromaShiftY)]
        for (base, stride, shiftX, shiftY) in planes {
            let pictureW = (width + (1 << shiftX) - 1) >> shiftX, pictureH = (height + (1 << shiftY) - 1) >> shiftY
            let planeW = (Int(f.width) + (1 << shiftX) - 1) >> shiftX, planeH = (Int(f.height) + (1 << shiftY) - 1) >> shiftY
            if planeW > pictureW {
                for row in 0..<pictureH {
                    let line = base + row * stride
                    for column in pictureW..<planeW {
                        (line + column * bytesPerSample).update(from: line + (pictureW - 1) * bytesPerSample, count: bytesPerSample)
                    }
                }
            }
            for row in pictureH..<planeH {
                (base + row * stride).update(from: base + (pictureH - 1) * stride, count: planeW * bytesPerSample)
            }
        }
    }
}

