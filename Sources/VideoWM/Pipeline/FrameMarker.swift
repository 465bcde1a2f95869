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
    let targetFormat: PixelFormat
    private let targetLayout: PlanarYUVLayout
    let rotation: DisplayRotation
    let pixelAspect: PixelAspect
    let file: String
    /// The stream's decoded size; the size of the picture marked (the decoded one, or the
    /// size `--scale` asks for, which frames are scaled to first); and the (possibly padded)
    /// size of the frames handed on.
    let streamWidth: Int
    let streamHeight: Int
    let pictureWidth: Int
    let pictureHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    private var converter: FrameConverter?
    /// Scales frames whose size differs from the stream's first (a resolution change mid-stream).
    private var resizer: FrameConverter?
    /// The frame shape `resizer` was made for.
    private var resizerKey: ResizeKey?
    private var reportedSizes: Set<ResizeKey> = []
    private let warn: WarningHandler

    /// What a resizer is made for: a frame's size, pixel format and pixel shape.
    private struct ResizeKey: Hashable {
        var width: Int
        var height: Int
        var format: PixelFormat
        var sampleAspectNumerator: Int32
        var sampleAspectDenominator: Int32
    }

    init(compositor: Compositor, targetFormat: PixelFormat, rotation: DisplayRotation, pixelAspect: PixelAspect = .square,
         file: String, streamWidth: Int? = nil, streamHeight: Int? = nil, pictureWidth: Int, pictureHeight: Int,
         outputWidth: Int? = nil, outputHeight: Int? = nil,
         warn: @escaping WarningHandler = { _ in }) {
        guard let layout = targetFormat.planarLayout else { preconditionFailure("marks need a planar YUV target") }
        targetLayout = layout
        self.compositor = compositor
        self.targetFormat = targetFormat
        self.rotation = rotation
        self.pixelAspect = pixelAspect
        self.file = file
        self.streamWidth = streamWidth ?? pictureWidth
        self.streamHeight = streamHeight ?? pictureHeight
        self.pictureWidth = pictureWidth
        self.pictureHeight = pictureHeight
        self.outputWidth = outputWidth ?? pictureWidth
        self.outputHeight = outputHeight ?? pictureHeight
        self.warn = warn
    }

    /// The format marks are blended in for a stream decoding to `decoded`: the same when it can be, else 4:2:0.
    static func markingFormat(forDecoded decoded: PixelFormat) -> PixelFormat {
        decoded.planarLayout != nil ? decoded : .yuv420p
    }

    /// Returns the marked frame: `frame` itself, or a converter's reused output frame.
    func mark(_ frame: Frame, at time: PresentationTime) throws -> Frame {
        try draw(on: try converted(frame, at: time), at: time)
    }

    /// What a marker converts frames with (format, sizes, pixel shape): markers of one
    /// `Conversion` turn a frame into the same pixels, so rows marking one picture at one size (a
    /// ladder rendition's variants and students) can convert it once and each draw on a copy.
    struct Conversion: Hashable {
        let format: PixelFormat
        let stream: [Int]
        let picture: [Int]
        let output: [Int]
        let pixelAspect: [Int]
    }

    var conversion: Conversion {
        Conversion(format: targetFormat, stream: [streamWidth, streamHeight], picture: [pictureWidth, pictureHeight],
                   output: [outputWidth, outputHeight], pixelAspect: [pixelAspect.numerator, pixelAspect.denominator])
    }

    /// `frame` converted to the target format and size, unmarked: `frame` itself when it already
    /// is, else the converter's reused output frame.
    func converted(_ frame: Frame, at time: PresentationTime) throws -> Frame {
        var target = frame
        let resized = frame.width != streamWidth || frame.height != streamHeight
        if resized || frame.pixelFormat != targetFormat || outputWidth != streamWidth || outputHeight != streamHeight {
            let source = frame.color
            let color = source.convertedForMarking(from: frame.pixelFormat, height: frame.height)
            let colors = ColorConversion.marking(from: source, format: frame.pixelFormat, to: color, height: frame.height)
            target = try (resized ? resizer(for: frame, colors: colors, at: time) : converter(for: frame, colors: colors)).convert(frame)
            target.color = color
            if resized {
                target.sampleAspectRatio = Rational(Int32(pixelAspect.numerator), Int32(pixelAspect.denominator))
            }
        }
        return target
    }

    /// Draws the marks shown at `time` on `target` (a frame `converted` made), copied first when
    /// its pixels are shared; returns it.
    func draw(on target: Frame, at time: PresentationTime) throws -> Frame {
        // Frames where every layer is hidden are passed on without the copy-on-write.
        if compositor.drawsAnything(at: time) {
            try target.makeWritable(file: file)
            // Marks go on the picture, not on padding.
            try target.withPlanarCanvas(width: pictureWidth, height: pictureHeight) { canvas in
                try LayerError.rethrowing { try compositor.composite(onto: canvas, at: time, rotation: rotation, pixelAspect: pixelAspect) }
            }
        }
        return target
    }

    /// The converter to the target format (and scaled or padded size) for frames of the stream's size.
    private func converter(for frame: Frame, colors: ColorConversion) throws -> FrameConverter {
        if let converter, converter.source.format == frame.pixelFormat { return converter }
        let scales = pictureWidth != streamWidth || pictureHeight != streamHeight
        let made = try FrameConverter(from: .init(width: frame.width, height: frame.height, format: frame.pixelFormat),
                                      to: .init(width: outputWidth, height: outputHeight, format: targetFormat),
                                      placement: scales ? .scaled(width: pictureWidth, height: pictureHeight) : .padded,
                                      colors: colors, file: file)
        converter = made
        return made
    }

    /// The converter for frames of another size than the stream's first: scaled to fit the
    /// output's picture with their shape kept, between black bars — encoders and players
    /// expect one size per stream, and the marks keep their place on the output's picture.
    private func resizer(for frame: Frame, colors: ColorConversion, at time: PresentationTime) throws -> FrameConverter {
        let sar = frame.sampleAspectRatio
        let key = ResizeKey(width: frame.width, height: frame.height, format: frame.pixelFormat,
                            sampleAspectNumerator: sar.numerator, sampleAspectDenominator: sar.denominator)
        if let resizer, key == resizerKey { return resizer }
        let aspect = sar.isValid ? Double(sar.numerator) / Double(sar.denominator) : 1
        let layout = targetLayout
        let rect = FrameConverter.fit(width: frame.width, height: frame.height, pixelAspect: aspect, into: pictureWidth, pictureHeight,
                                      outputPixelAspect: pixelAspect.ratio, unitX: 1 << layout.chromaShiftX, unitY: 1 << layout.chromaShiftY)
        let made = try FrameConverter(from: .init(width: frame.width, height: frame.height, format: frame.pixelFormat),
                                      to: .init(width: outputWidth, height: outputHeight, format: targetFormat), placement: .fitted(rect),
                                      colors: colors, file: file)
        (resizer, resizerKey) = (made, key)
        if reportedSizes.insert(key).inserted {
            warn("\(file): the picture changes size at \(String(format: "%.3f", time.seconds)) s (\(pictureWidth)×\(pictureHeight) → \(frame.width)×\(frame.height)); those frames are scaled to fit \(pictureWidth)×\(pictureHeight) between black bars")
        }
        return made
    }
}

extension FrameMarker {
    /// The marks' side of re-encoding `video`: the compositor told the stream's timecode and
    /// prepared for the picture the marks are laid out on (the stored picture, or `scaled` when a
    /// size option scales it first, with square pixels then), and the marker that converts frames
    /// to `format` at `outputWidth`×`outputHeight` and draws on them. Every way of re-encoding
    /// (a full render, smart rendering's spans, an HLS segment) sets its marks up here.
    static func prepared(compositor: Compositor, video: VideoStreamDescription, timecode: Timecode?, file: String,
                         format: PixelFormat, outputWidth: Int, outputHeight: Int, scaled: (width: Int, height: Int)? = nil,
                         warn: @escaping WarningHandler) throws -> FrameMarker {
        let picture = scaled ?? (video.width, video.height)
        let pixelAspect = scaled == nil ? video.pixelAspect : .square
        compositor.timecode = timecode
        try LayerError.rethrowing {
            try compositor.prepare(storedWidth: picture.width, storedHeight: picture.height, rotation: video.rotation, pixelAspect: pixelAspect)
        }
        return FrameMarker(compositor: compositor, targetFormat: format, rotation: video.rotation, pixelAspect: pixelAspect,
                           file: file, streamWidth: video.width, streamHeight: video.height,
                           pictureWidth: picture.width, pictureHeight: picture.height,
                           outputWidth: outputWidth, outputHeight: outputHeight, warn: warn)
    }
}
