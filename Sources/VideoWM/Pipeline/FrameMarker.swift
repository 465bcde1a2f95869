import CFFmpeg
import Animation
import Foundation
import Overlay

/// Marks decoded frames: converts them to the target pixel format when needed (reusing one
/// converter and one output frame), then blends the marks in YUV, in place.
///
/// Transcode and thumbnail share this, which is what makes a thumbnail's mark identical
/// to the mark on the same frame of the video.
final class FrameMarker {
    let compositor: Compositor
    let targetFormat: AVPixelFormat
    let rotation: DisplayRotation
    let pixelAspect: PixelAspect
    let file: String
    /// The decoded picture size, and the (possibly padded) size of the frames handed on.
    let pictureWidth: Int
    let pictureHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    private let targetLayout: PlanarYUVLayout
    private var converter: FrameConverter?
    /// Scales frames whose size differs from the stream's first (a resolution change mid-stream).
    private var resizer: FrameConverter?
    /// The frame size, format and pixel shape `resizer` was made for.
    private var resizerKey: [Int] = []
    private var reportedSizes: Set<[Int]> = []
    private let warn: WarningHandler

    init(compositor: Compositor, targetFormat: AVPixelFormat, rotation: DisplayRotation, pixelAspect: PixelAspect = .square,
         file: String, pictureWidth: Int, pictureHeight: Int, outputWidth: Int? = nil, outputHeight: Int? = nil,
         warn: @escaping WarningHandler = { _ in }) {
        guard let layout = PlanarYUVLayout(targetFormat) else { preconditionFailure("marks need a planar YUV target") }
        targetLayout = layout
        self.compositor = compositor
        self.targetFormat = targetFormat
        self.rotation = rotation
        self.pixelAspect = pixelAspect
        self.file = file
        self.pictureWidth = pictureWidth
        self.pictureHeight = pictureHeight
        self.outputWidth = outputWidth ?? pictureWidth
        self.outputHeight = outputHeight ?? pictureHeight
        self.warn = warn
    }

    /// The size an encoder of `format` needs for a `width`×`height` picture: rounded up to
    /// whole chroma samples (4:2:0 and 4:2:2 encoders refuse odd sizes).
    static func encodableSize(width: Int, height: Int, format: AVPixelFormat) -> (width: Int, height: Int) {
        guard let layout = PlanarYUVLayout(format) else { return (width, height) }
        let unitX = 1 << layout.chromaShiftX, unitY = 1 << layout.chromaShiftY
        return ((width + unitX - 1) / unitX * unitX, (height + unitY - 1) / unitY * unitY)
    }

    /// The format marks are blended in for a stream decoding to `decoded`: the same when it can be, else 4:2:0.
    static func markingFormat(forDecoded decoded: AVPixelFormat) -> AVPixelFormat {
        PlanarYUVLayout(decoded) != nil ? decoded : AV_PIX_FMT_YUV420P
    }

    /// Returns the marked frame: `frame` itself, or a converter's reused output frame.
    func mark(_ frame: Frame, at time: PresentationTime) throws -> Frame {
        var target = frame
        let resized = frame.width != pictureWidth || frame.height != pictureHeight
        if resized || frame.pixelFormat != targetFormat || outputWidth != pictureWidth || outputHeight != pictureHeight {
            let f = frame.pointer.pointee
            let color = ConvertedColor(decodedFormat: frame.pixelFormat, colorspace: f.colorspace, range: f.color_range, height: frame.height)
            target = try (resized ? resizer(for: frame, color: color, at: time) : converter(for: frame, color: color)).convert(frame)
            target.pointer.pointee.colorspace = color.colorspace
            target.pointer.pointee.color_range = color.range
            if resized {
                target.pointer.pointee.sample_aspect_ratio = AVRational(num: Int32(pixelAspect.numerator), den: Int32(pixelAspect.denominator))
            }
        }
        // Frames where every layer is hidden are passed on without the copy-on-write.
        if compositor.drawsAnything(at: time) {
            try check(av_frame_make_writable(target.pointer), OutputError.call("preparing a frame", file: file))
            // Marks go on the picture, not on padding.
            let canvas = planarCanvas(for: target.pointer, layout: targetLayout, width: pictureWidth, height: pictureHeight)
            try LayerError.rethrowing { try compositor.composite(onto: canvas, at: time, rotation: rotation, pixelAspect: pixelAspect) }
        }
        return target
    }

    /// How swscale reads and writes `frame`'s colours: its own matrix and range (for RGB
    /// sources, which have no matrix, the one `color` gives the output).
    private func colorParameters(_ frame: Frame, _ color: ConvertedColor) -> (matrix: Int32, sourceFullRange: Bool, targetFullRange: Bool) {
        let f = frame.pointer.pointee
        let isRGB = color.colorspace != f.colorspace
        return (swsMatrix(for: color.colorspace, height: frame.height), isRGB || f.color_range == AVCOL_RANGE_JPEG,
                color.range == AVCOL_RANGE_JPEG)
    }

    /// The converter to the target format (and padded size) for frames of the stream's size.
    private func converter(for frame: Frame, color: ConvertedColor) throws -> FrameConverter {
        if let converter, converter.sourceFormat == frame.pixelFormat { return converter }
        let colors = colorParameters(frame, color)
        let made = try FrameConverter(width: frame.width, height: frame.height, from: frame.pixelFormat, to: targetFormat,
                                      sourceMatrix: colors.matrix, sourceFullRange: colors.sourceFullRange,
                                      targetFullRange: colors.targetFullRange, paddedWidth: outputWidth, paddedHeight: outputHeight)
        converter = made
        return made
    }

    /// The converter for frames of another size than the stream's first: scaled to fit the
    /// output's picture with their shape kept, between black bars — encoders and players
    /// expect one size per stream, and the marks keep their place on the output's picture.
    private func resizer(for frame: Frame, color: ConvertedColor, at time: PresentationTime) throws -> FrameConverter {
        let f = frame.pointer.pointee
        let key = [frame.width, frame.height, Int(frame.pixelFormat.rawValue), Int(f.sample_aspect_ratio.num), Int(f.sample_aspect_ratio.den)]
        if let resizer, key == resizerKey { return resizer }
        let aspect = f.sample_aspect_ratio.num > 0 && f.sample_aspect_ratio.den > 0
            ? Double(f.sample_aspect_ratio.num) / Double(f.sample_aspect_ratio.den) : 1
        let colors = colorParameters(frame, color)
        let made = try FrameConverter(fitting: frame.width, height: frame.height, pixelAspect: aspect,
                                      from: frame.pixelFormat, into: pictureWidth, pictureHeight, outputPixelAspect: pixelAspect.ratio,
                                      outputWidth: outputWidth, outputHeight: outputHeight, to: targetFormat,
                                      sourceMatrix: colors.matrix, sourceFullRange: colors.sourceFullRange,
                                      targetFullRange: colors.targetFullRange)
        (resizer, resizerKey) = (made, key)
        if reportedSizes.insert(key).inserted {
            warn("\(file): the picture changes size at \(String(format: "%.3f", time.seconds)) s (\(pictureWidth)×\(pictureHeight) → \(frame.width)×\(frame.height)); those frames are scaled to fit \(pictureWidth)×\(pictureHeight) between black bars")
        }
        return made
    }
}
