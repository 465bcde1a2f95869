import Animation
import Foundation
import Overlay

/// `videowm stamp`: marks still images with the same compositor as video, one at a time.
///
/// Memory stays bounded by one image however many are stamped: each picture is decoded,
/// marked, encoded and released before the next, and the marks prepared for a picture size
/// are kept only while the following pictures have the same size (a compositor caches one
/// set per size, which for a tiled layer is as large as the picture).
public final class StillStamper {
    private let layers: [LayerSpec]
    private let time: PresentationTime
    private let quality: Int
    private let overwrite: Bool
    private let warn: WarningHandler
    private var current: (width: Int, height: Int, compositor: Compositor)?
    private var warningsGiven = Set<String>()

    /// Stamps with `compositor`'s layers at `time` (animations evaluated there);
    /// `quality` is 1…100 for JPEG and WebP outputs.
    public init(compositor: Compositor, at time: PresentationTime, quality: Int = 90, overwrite: Bool,
                warn: @escaping WarningHandler) {
        layers = compositor.layers
        self.time = time
        self.quality = quality
        self.overwrite = overwrite
        self.warn = warn
    }

    /// Marks `input` and writes `output` (format from its extension). EXIF orientation is
    /// applied first, so "bottom-right" is where a person sees it and the output displays
    /// upright without the tag; the ICC profile is carried over where the format allows.
    public func stamp(input: String, output: String) throws {
        _ = try StillImageWriter.checkFormat(output)
        // Destructured so `image` holds the only reference and marking does not copy it.
        let iccProfile: [UInt8]?
        var image: StraightRGBAImage
        (image, iccProfile) = try Self.readUpright(input)
        let compositor = try compositor(width: image.width, height: image.height)
        try mapOverlayErrors { try image.withCanvas { canvas in try compositor.composite(onto: canvas, at: time) } }
        try StillImageWriter.write(image, to: output, overwrite: overwrite, inputs: [input],
                                   settings: StillImageWriter.Settings(quality: quality, iccProfile: iccProfile))
    }

    /// The decoded picture turned upright; the stored-orientation pixels are released on return.
    private static func readUpright(_ input: String) throws -> (image: StraightRGBAImage, iccProfile: [UInt8]?) {
        let decoded = try StillImageReader.read(path: input)
        let orientation = decoded.exifOrientation.flatMap(ExifOrientation.init) ?? ExifOrientation.inPNG(at: input) ?? .upright
        return (decoded.image.oriented(orientation), decoded.iccProfile)
    }

    private func compositor(width: Int, height: Int) throws -> Compositor {
        if let current, current.width == width, current.height == height { return current.compositor }
        current = nil  // release the previous size's prepared marks first
        let fonts: FontLibrary
        do { fonts = try FontLibrary() } catch { throw VideoWMError(.dataError, "cannot start FreeType: \(error)") }
        let compositor = Compositor(layers: layers, fonts: fonts, warn: { [unowned self] message in
            // The same warning (an upscaled logo, a substituted font) is said once per run, not once per size.
            if warningsGiven.insert(message).inserted { warn(message) }
        })
        current = (width, height, compositor)
        return compositor
    }
}
