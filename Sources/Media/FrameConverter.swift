internal import CFFmpeg
import Overlay

/// Converts frames of one size and pixel format into one reused output frame of another
/// format and size, placed as `Placement` says.
package final class FrameConverter {
    /// Where the converted picture goes in the output frame.
    package enum Placement: Equatable {
        /// At the top-left corner, at its own size. Extra columns and rows of a larger output
        /// (4:2:0 encoders need even sizes) repeat the picture's edge, so nothing is cropped.
        case padded
        /// Scaled to `width`×`height` (swscale's Lanczos filter: `--scale` and its kin) at the
        /// top-left corner, then padded like `.padded`.
        case scaled(width: Int, height: Int)
        /// Scaled into `rect` of the output (whole chroma samples, from `fit`), black around it:
        /// frames whose size differs from the stream's first.
        case fitted(PixelRect)
    }

    /// A picture's size and pixel format.
    package struct Shape: Equatable {
        var width: Int
        var height: Int
        package var format: PixelFormat

        /// The memberwise initializer, spelt out so VideoWM can call it.
        package init(width: Int, height: Int, format: PixelFormat) {
            self.width = width
            self.height = height
            self.format = format
        }
    }

    package let source: Shape
    let output: Frame
    private let scaler: PixelScaler
    private let placement: Placement
    /// The picture's size in the output, before padding.
    private let pictureSize: (width: Int, height: Int)
    /// The output's layout when something beside the picture must be drawn (padding, bars).
    private let layout: PlanarYUVLayout?
    private let targetFullRange: Bool
    private let file: String

    /// A converter from frames of `source` to frames of `target`; `file` names the video in errors.
    package init(from source: Shape, to target: Shape, placement: Placement = .padded, colors: ColorConversion, file: String) throws {
        let needsLayout: Bool
        let scaledSize: (width: Int, height: Int)
        var filter = PixelScaler.Filter.bicubic
        switch placement {
        case .padded:
            needsLayout = target.width != source.width || target.height != source.height
            scaledSize = (source.width, source.height)
        case .scaled(let width, let height):
            needsLayout = target.width != width || target.height != height
            scaledSize = (width, height)
            filter = .lanczos
        case .fitted(let rect):
            needsLayout = true
            scaledSize = (rect.width, rect.height)
        }
        layout = target.format.planarLayout
        if needsLayout && layout == nil {
            throw MediaError(file: file, detail: "cannot place frames in \(target.format)")
        }
        scaler = try PixelScaler(from: (source.width, source.height, source.format), to: (scaledSize.width, scaledSize.height, target.format),
                                 colors: colors, filter: filter, file: file)
        pictureSize = scaledSize
        output = try Frame(width: target.width, height: target.height, format: target.format, file: file)
        self.source = source
        self.placement = placement
        targetFullRange = colors.targetFullRange
        self.file = file
    }

    /// The largest rectangle of whole chroma samples (`unitX`×`unitY`) with the picture's
    /// displayed shape that fits the output, centred. Widths are in stored pixels, each
    /// `pixelAspect` (or `outputPixelAspect`) wide.
    package static func fit(width: Int, height: Int, pixelAspect: Double, into outputWidth: Int, _ outputHeight: Int,
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

    /// Converts `frame` into `output` (whose buffers are made writable first) and copies its properties.
    package func convert(_ frame: Frame) throws -> Frame {
        try output.makeWritable(file: file)
        switch placement {
        case .padded, .scaled:
            try scaler.scale(frame, into: output)
            if let layout, output.width != pictureSize.width || output.height != pictureSize.height { repeatEdges(layout) }
        case .fitted(let rect):
            // The encoder may still hold the last buffer, so the bars are drawn afresh each time.
            try fillBlack()
            try scaler.scale(frame, into: output, offsets: planeOffsets(of: rect))
        }
        try check(av_frame_copy_props(output.pointer, frame.pointer), OutputError.call("copying frame properties", file: file))
        return output
    }

    /// Byte offsets of `rect`'s corner in each of the output's planes.
    private func planeOffsets(of rect: PixelRect) -> (Int, Int, Int, Int) {
        guard let layout else { return (0, 0, 0, 0) }
        func offset(_ plane: Int) -> Int {
            let chroma = plane == 1 || plane == 2
            let x = chroma ? rect.x >> layout.chromaShiftX : rect.x, y = chroma ? rect.y >> layout.chromaShiftY : rect.y
            return y * Int(output.lineSizes[plane]) + x * layout.bytesPerSample
        }
        return (offset(0), offset(1), offset(2), offset(3))
    }

    private func fillBlack() throws {
        let code = withUnsafeTemporaryAllocation(of: Int.self, capacity: 4) { lines in
            for plane in 0..<4 { lines[plane] = Int(output.lineSizes[plane]) }
            return av_image_fill_black(output.dataPointers, lines.baseAddress, output.pixelFormat.av,
                                       targetFullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG, Int32(output.width), Int32(output.height))
        }
        try check(code, OutputError.call("clearing a frame", file: file))
    }

    /// Fills the padding columns and rows by repeating the last picture column and row.
    private func repeatEdges(_ layout: PlanarYUVLayout) {
        let bytes = layout.bytesPerSample
        for index in 0..<3 {
            let picture = layout.planeSize(index, width: pictureSize.width, height: pictureSize.height)
            let padded = layout.planeSize(index, width: output.width, height: output.height)
            _ = output.withPlane(index) { plane in
                if padded.width > picture.width {
                    for row in 0..<picture.height {
                        let line = plane.base + row * plane.bytesPerRow
                        for column in picture.width..<padded.width {
                            (line + column * bytes).update(from: line + (picture.width - 1) * bytes, count: bytes)
                        }
                    }
                }
                for row in picture.height..<padded.height {
                    (plane.base + row * plane.bytesPerRow).update(from: plane.base + (picture.height - 1) * plane.bytesPerRow,
                                                                  count: padded.width * bytes)
                }
            }
        }
    }
}
