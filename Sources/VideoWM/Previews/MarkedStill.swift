import Animation
import Overlay

/// A decoded video frame marked the way `transcode` marks it, as an upright RGBA picture.
enum MarkedStill {
    /// Marks `located.frame` in YUV with `FrameMarker` (the code `transcode` runs), then
    /// converts it to RGBA at `size` (or its own size) and turns it upright. `request` (a
    /// thumbnail's size option) scales the frame before marking, as `transcode` does with
    /// the same option, so the thumbnail is that transcode's frame.
    static func upright(_ located: VideoFrameLocator.Located, rotation: DisplayRotation, compositor: Compositor, file: String,
                        scaledTo size: (width: Int, height: Int)? = nil,
                        request: (scale: ScaleRequest, upscale: Bool)? = nil) throws -> StraightRGBAImage {
        let frame = located.frame
        let sar = frame.sampleAspectRatio
        let format = FrameMarker.markingFormat(forDecoded: frame.pixelFormat)
        let scaled = request.flatMap { request in
            format.planarLayout.flatMap {
                VideoEncoderConfiguration.scaledPicture(width: frame.width, height: frame.height,
                                                        pixelAspect: PixelAspect(numerator: Int(sar.numerator), denominator: Int(sar.denominator)),
                                                        rotation: rotation, request: request.scale, upscale: request.upscale, layout: $0)
            }
        }
        let pixelAspect = scaled != nil ? .square : PixelAspect(numerator: Int(sar.numerator), denominator: Int(sar.denominator))
        let picture = scaled ?? (frame.width, frame.height)
        let marker = FrameMarker(compositor: compositor, targetFormat: format, rotation: rotation, pixelAspect: pixelAspect, file: file,
                                 streamWidth: frame.width, streamHeight: frame.height, pictureWidth: picture.width, pictureHeight: picture.height)
        let marked = try marker.mark(frame, at: located.time)
        // `size` is in display orientation; the scaler works on the stored picture. Without a
        // size, anamorphic pictures are widened to square pixels, as a player shows them.
        let storedSize = size.map { rotation.clockwiseQuarterTurns % 2 == 1 ? (width: $0.height, height: $0.width) : $0 }
            ?? (width: pixelAspect.squareWidth(ofStoredWidth: picture.width), height: picture.height)
        let colors = ColorConversion.toRGBA(from: marked.color, format: marked.pixelFormat, height: marked.height, stillRange: false)
        let converter = try RGBAConverter(from: marked, toWidth: storedSize.width, height: storedSize.height, colors: colors, file: file)
        let image = try converter.convert(marked)
        guard rotation != .upright else { return image }
        return image.premultiplied().rotated(clockwiseQuarterTurns: rotation.clockwiseQuarterTurns).unpremultipliedOpaque()
    }
}

extension PremultipliedRGBAImage {
    /// For opaque pictures, premultiplied and straight pixels are the same bytes.
    func unpremultipliedOpaque() -> StraightRGBAImage {
        StraightRGBAImage(width: width, height: height, pixels: pixels)
    }
}
