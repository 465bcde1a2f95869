import CFFmpeg
import Overlay

/// An owned `SwsContext` converting frames of one size and format to another format,
/// with the output frame allocated once and reused.
///
/// The output may be padded to `paddedWidth`×`paddedHeight` (for 4:2:0 encoders, which need
/// even sizes): the extra column or row repeats the picture's edge, so nothing is cropped.
/// Or, `fitting` a frame of another size into the output, the picture is scaled to fit,
/// keeping its shape, and centred between black bars.
final class FrameConverter {
    private let context: OpaquePointer
    let output: Frame
    let sourceFormat: AVPixelFormat
    /// The size of the frames converted.
    let width: Int
    let height: Int
    /// Where the converted picture goes in `output`, and its size there.
    private let destination: PixelRect
    private let padding: PlanarYUVLayout?
    private let bars: (layout: PlanarYUVLayout, range: AVColorRange)?

    convenience init(width: Int, height: Int, from source: AVPixelFormat, to target: AVPixelFormat,
                     sourceMatrix: Int32 = SWS_CS_DEFAULT, sourceFullRange: Bool = false, targetFullRange: Bool = false,
                     paddedWidth: Int? = nil, paddedHeight: Int? = nil) throws {
        let outWidth = max(width, paddedWidth ?? width), outHeight = max(height, paddedHeight ?? height)
        try self.init(width: width, height: height, from: source, to: target, outputWidth: outWidth, outputHeight: outHeight,
                      destination: PixelRect(x: 0, y: 0, width: width, height: height), barsRange: nil,
                      sourceMatrix: sourceMatrix, sourceFullRange: sourceFullRange, targetFullRange: targetFullRange)
    }

    /// A converter scaling `width`×`height` frames whose pixels are `pixelAspect` wide into
    /// the top-left `pictureWidth`×`pictureHeight` of an `outputWidth`×`outputHeight` frame of
    /// `outputPixelAspect`-wide pixels: as large as fits with the picture's displayed shape
    /// kept, centred between black bars.
    convenience init(fitting width: Int, height: Int, pixelAspect: Double = 1, from source: AVPixelFormat,
                     into pictureWidth: Int, _ pictureHeight: Int, outputPixelAspect: Double = 1,
                     outputWidth: Int, outputHeight: Int, to target: AVPixelFormat,
                     sourceMatrix: Int32 = SWS_CS_DEFAULT, sourceFullRange: Bool = false, targetFullRange: Bool = false) throws {
        guard let layout = PlanarYUVLayout(target) else {
            throw MediaError(file: "-", detail: "cannot place frames in \(String(cString: av_get_pix_fmt_name(target)))")
        }
        let rect = Self.fit(width: width, height: height, pixelAspect: pixelAspect, into: pictureWidth, pictureHeight,
                            outputPixelAspect: outputPixelAspect, unitX: 1 << layout.chromaShiftX, unitY: 1 << layout.chromaShiftY)
        try self.init(width: width, height: height, from: source, to: target, outputWidth: outputWidth, outputHeight: outputHeight,
                      destination: rect, barsRange: targetFullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG,
                      sourceMatrix: sourceMatrix, sourceFullRange: sourceFullRange, targetFullRange: targetFullRange)
    }

    private init(width: Int, height: Int, from source: AVPixelFormat, to target: AVPixelFormat,
                 outputWidth: Int, outputHeight: Int, destination: PixelRect, barsRange: AVColorRange?,
                 sourceMatrix: Int32, sourceFullRange: Bool, targetFullRange: Bool) throws {
        guard let ctx = sws_getContext(Int32(width), Int32(height), source, Int32(destination.width), Int32(destination.height), target,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil) else {
            let from = String(cString: av_get_pix_fmt_name(source)), to = String(cString: av_get_pix_fmt_name(target))
            throw MediaError(file: "-", detail: "cannot convert pixels from \(from) to \(to)")
        }
        context = ctx
        // Use the frame's own matrix so colours survive the conversion.
        let coefficients = sws_getCoefficients(sourceMatrix)
        sws_setColorspaceDetails(ctx, coefficients, sourceFullRange ? 1 : 0, coefficients, targetFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        output = try Frame()
        output.pointer.pointee.width = Int32(outputWidth)
        output.pointer.pointee.height = Int32(outputHeight)
        output.pointer.pointee.format = target.rawValue
        try check(av_frame_get_buffer(output.pointer, 0), OutputError.call("allocating a frame", file: "-"))
        sourceFormat = source
        self.width = width
        self.height = height
        self.destination = destination
        if let barsRange {
            bars = (PlanarYUVLayout(target)!, barsRange)
            padding = nil
        } else if outputWidth != width || outputHeight != height {
            guard let layout = PlanarYUVLayout(target) else {
                throw MediaError(file: "-", detail: "cannot pad frames of \(String(cString: av_get_pix_fmt_name(target)))")
            }
            padding = layout
            bars = nil
        } else {
            padding = nil
            bars = nil
        }
    }

    /// The largest rectangle of whole chroma samples with the picture's displayed shape
    /// that fits the output, centred.
    static func fit(width: Int, height: Int, pixelAspect: Double, into outputWidth: Int, _ outputHeight: Int,
                    outputPixelAspect: Double, unitX: Int, unitY: Int) -> PixelRect {
        // Widths in displayed units: stored columns × pixel aspect.
        let shownWidth = Double(width) * pixelAspect, shownHeight = Double(height)
        let scale = min(Double(outputWidth) * outputPixelAspect / shownWidth, Double(outputHeight) / shownHeight)
        func whole(_ v: Double, _ unit: Int, max limit: Int) -> Int {
            min(limit / unit * unit, max(unit, Int((v / Double(unit)).rounded()) * unit))
        }
        let w = whole(shownWidth * scale / outputPixelAspect, unitX, max: outputWidth)
        let h = whole(shownHeight * scale, unitY, max: outputHeight)
        return PixelRect(x: (outputWidth - w) / 2 / unitX * unitX, y: (outputHeight - h) / 2 / unitY * unitY, width: w, height: h)
    }

    deinit { sws_freeContext(context) }

    /// Converts `frame` into `output` (whose buffers are made writable first) and copies its properties.
    func convert(_ frame: Frame) throws -> Frame {
        try check(av_frame_make_writable(output.pointer), OutputError.call("allocating a frame", file: "-"))
        // The encoder may still hold the last buffer, so the bars are drawn afresh each time.
        if let bars { try fillBlack(bars.layout, range: bars.range) }
        let src = frame.pointer
        let offsets = planeOffsets()
        let code = withUnsafePointer(to: &src.pointee.data) { srcData in
            withUnsafePointer(to: &src.pointee.linesize) { srcLines in
                withUnsafeMutablePointer(to: &output.pointer.pointee.data) { dstData in
                    withUnsafeMutablePointer(to: &output.pointer.pointee.linesize) { dstLines in
                        srcData.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { s in
                            srcLines.withMemoryRebound(to: Int32.self, capacity: 8) { sl in
                                dstData.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                                    dstLines.withMemoryRebound(to: Int32.self, capacity: 8) { dl in
                                        var planes = (0..<4).map { plane in d[plane].map { $0 + offsets[plane] } }
                                        return sws_scale(context, s, sl, 0, Int32(height), &planes, dl)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        try check(code, MediaError.call("converting pixels", file: "-"))
        try check(av_frame_copy_props(output.pointer, src), OutputError.call("copying frame properties", file: "-"))
        if let padding { repeatEdges(padding) }
        return output
    }

    /// Byte offsets of the destination rectangle's corner in each of the output's planes.
    private func planeOffsets() -> [Int] {
        guard destination.x != 0 || destination.y != 0, let layout = bars?.layout else { return [0, 0, 0, 0] }
        let f = output.pointer.pointee
        let bytesPerSample = layout.bitDepth > 8 ? 2 : 1
        let lines = [Int(f.linesize.0), Int(f.linesize.1), Int(f.linesize.2), Int(f.linesize.3)]
        return (0..<4).map { plane in
            let shiftX = plane == 1 || plane == 2 ? layout.chromaShiftX : 0
            let shiftY = plane == 1 || plane == 2 ? layout.chromaShiftY : 0
            return (destination.y >> shiftY) * lines[plane] + (destination.x >> shiftX) * bytesPerSample
        }
    }

    private func fillBlack(_ layout: PlanarYUVLayout, range: AVColorRange) throws {
        let f = output.pointer
        var lines: [Int] = withUnsafeBytes(of: f.pointee.linesize) { Array($0.bindMemory(to: Int32.self).prefix(4)).map(Int.init) }
        let code = withUnsafeMutablePointer(to: &f.pointee.data) { data in
            data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                av_image_fill_black(d, &lines, AVPixelFormat(rawValue: f.pointee.format), range, f.pointee.width, f.pointee.height)
            }
        }
        try check(code, OutputError.call("clearing a frame", file: "-"))
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

