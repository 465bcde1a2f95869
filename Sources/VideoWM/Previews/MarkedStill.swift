import Animation
import Overlay

/// How a still made from a PQ or HLG video frame shows it (SDR frames are written as they are).
public enum HDRStillRendering: Sendable {
    /// Tone-mapped to SDR sRGB (`HDRToneMapping`: BT.2390's EETF), tagged sRGB: what any
    /// viewer shows right.
    case toneMappedToSDR
    /// The frame's own PQ or HLG signal, tagged so (PNG `cICP`, AVIF `nclx`, an ICC `cicp` tag
    /// in JPEG and WebP), for HDR displays and viewers that read the tag.
    case keptHDR
}

/// A still's pixels and the colour they are in: H.273 code points (primaries, transfer,
/// matrix 0, full range) for the writer to state, nil for an SDR frame written as before
/// (sRGB by convention).
struct RenderedStill {
    var image: StraightRGBAImage
    var codePoints: [UInt8]?
}

/// A decoded video frame marked the way `transcode` marks it, as an upright RGBA picture.
enum MarkedStill {
    /// sRGB (BT.709 primaries, IEC 61966-2-1 transfer), what a tone-mapped still is.
    static let srgbCodePoints: [UInt8] = [1, 13, 0, 1]

    /// The code points of a PQ or HLG frame's own signal.
    static func codePoints(of colorSpace: FrameColorSpace) -> [UInt8]? {
        guard colorSpace.isHDR else { return nil }
        return [colorSpace.primaries == .bt709 ? 1 : 9, colorSpace.transfer == .pq ? 16 : 18, 0, 1]
    }

    /// Marks `located.frame` in YUV with `FrameMarker` (the code `transcode` runs), then
    /// converts it to RGBA at `size` (or its own size) and turns it upright. `request` (a
    /// thumbnail's size option) scales the frame before marking, as `transcode` does with
    /// the same option, so the thumbnail is that transcode's frame. A PQ or HLG frame is
    /// tone-mapped to SDR unless `hdr` keeps it (the marks are drawn at graphics white
    /// either way, as in the video).
    static func upright(_ located: VideoFrameLocator.Located, rotation: DisplayRotation, compositor: Compositor, file: String,
                        scaledTo size: (width: Int, height: Int)? = nil,
                        request: (scale: ScaleRequest, upscale: Bool)? = nil,
                        hdr: HDRStillRendering = .toneMappedToSDR, toneMapping: HDRToneMapping? = nil) throws -> RenderedStill {
        let frame = located.frame
        let sar = frame.sampleAspectRatio
        let format = FrameMarker.markingFormat(forDecoded: frame.pixelFormat)
        let scaled = request.flatMap {
            VideoEncoderConfiguration.scaledPicture(width: frame.width, height: frame.height,
                                                    pixelAspect: PixelAspect(numerator: Int(sar.numerator), denominator: Int(sar.denominator)),
                                                    rotation: rotation, request: $0.scale, upscale: $0.upscale, layout: format.planarLayout!)
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
        let colorSpace = marked.color.frameColorSpace
        let image: StraightRGBAImage, codePoints: [UInt8]?
        if colorSpace.isHDR && hdr == .toneMappedToSDR {
            let converter = try RGB48Converter(from: marked, toWidth: storedSize.width, height: storedSize.height, colors: colors, file: file)
            let samples = try converter.convert(marked)
            let mapping = toneMapping ?? HDRToneMapping(colorSpace: colorSpace, sourcePeakNits: frame.sourcePeakNits)
            image = samples.withUnsafeBufferPointer { mapping.sdrImage(rgb48: $0, width: storedSize.width, height: storedSize.height) }
            codePoints = srgbCodePoints
        } else {
            let converter = try RGBAConverter(from: marked, toWidth: storedSize.width, height: storedSize.height, colors: colors, file: file)
            image = try converter.convert(marked)
            codePoints = Self.codePoints(of: colorSpace)
        }
        guard rotation != .upright else { return RenderedStill(image: image, codePoints: codePoints) }
        return RenderedStill(image: image.premultiplied().rotated(clockwiseQuarterTurns: rotation.clockwiseQuarterTurns).unpremultipliedOpaque(),
                             codePoints: codePoints)
    }
}

extension PremultipliedRGBAImage {
    /// For opaque pictures, premultiplied and straight pixels are the same bytes.
    func unpremultipliedOpaque() -> StraightRGBAImage {
        StraightRGBAImage(width: width, height: height, pixels: pixels)
    }
}
