import Animation
import Foundation
import ImageMetadata
import Overlay

/// `videowm stamp`: marks still images with the same compositor as video, one at a time.
///
/// Memory stays bounded by one image however many are stamped: each picture is decoded,
/// marked, encoded and released before the next, and the marks prepared for a picture size
/// are kept only while the following pictures have the same size (a compositor caches one
/// set per size, which for a tiled layer is as large as the picture).
public final class StillStamper {
    private let layers: [LayerSpec]
    private let stacking: Compositor.Stacking
    private let time: PresentationTime
    private let quality: Int
    private let overwrite: Bool
    private let size: (request: ScaleRequest, upscale: Bool)?
    private let metadata: StillMetadataChoice
    private let warn: WarningHandler
    private var current: (width: Int, height: Int, compositor: Compositor)?
    private var warningsGiven = Set<String>()
    /// Warnings from marks prepared ahead of a decode, said once a picture of that size has
    /// decoded (a file that turns out damaged gets its error line and nothing else).
    private var heldWarnings: [String]?

    /// Stamps with `compositor`'s layers at `time` (animations evaluated there);
    /// `quality` is 1…100 for JPEG and WebP outputs. `scale` sizes the output (its picture
    /// scaled before marking; `upscale` lets it grow); `metadata` chooses the EXIF and XMP kept and set.
    public init(compositor: Compositor, at time: PresentationTime, quality: Int = 90, overwrite: Bool,
                scale: ScaleRequest? = nil, upscale: Bool = false, metadata: StillMetadataChoice = StillMetadataChoice(),
                warn: @escaping WarningHandler) {
        layers = compositor.layers
        stacking = compositor.stacking
        self.time = time
        self.quality = quality
        self.overwrite = overwrite
        size = scale.map { ($0, upscale) }
        self.metadata = metadata
        self.warn = warn
    }

    /// Marks `input` and writes `output` (format from its extension). EXIF orientation (or
    /// an HEIF's irot/imir) is applied first, so "bottom-right" is where a person sees it and
    /// the output displays upright without the tag; the ICC profile is carried over where the
    /// format allows.
    public func stamp(input: String, output: String) throws {
        let format = try StillImageWriter.checkFormat(output)
        let local = !RemoteImage.isURL(input)
        if local, HEIFReader.looksLikeHEIF(Self.firstBytes(of: input)) {
            try stampHEIF(input: input, output: output, format: format)
            return
        }
        // Marks for the size the file's header declares are prepared on a second core while
        // the picture decodes; the compositor is used again only after `finish`.
        let early = !local || size != nil ? nil : ImageHeader.declaredSize(ofFileAt: input).flatMap(prepareEarly)
        defer { early?.waitUntilDone() }
        let decoded = local ? try StillImageReader.decodeFrame(path: input) : nil
        try early?.finish()
        releaseHeldWarnings()
        if let decoded, decoded.isMultiPageTIFF {
            warnOnce("\(input): a TIFF of several pages; only the first is stamped")
        }
        if format == .jpeg, size == nil, let decoded, Self.canStampInYUV(decoded) {
            try stampInYUV(decoded, input: input, output: output)
            return
        }
        // Destructured so `image` holds the only reference and marking does not copy it.
        let iccProfile: [UInt8]?
        var image: StraightRGBAImage
        (image, iccProfile) = try Self.readUpright(input, decoded: decoded)
        try stamp(&image, iccProfile: iccProfile, colorSpace: Self.colorSpace(of: input, decoded: decoded, iccProfile: iccProfile),
                  metadata: nil, input: input, output: output, format: format)
    }

    /// HEIC/HEIF in (iPhone photos): libheif decodes it upright (irot/imir applied) with its
    /// ICC profile, EXIF and XMP.
    private func stampHEIF(input: String, output: String, format: StillImageWriter.Format) throws {
        var decoded = try HEIFReader.read(path: input, checkSize: { try StillImageReader.checkSize(width: $0, height: $1, path: input) })
        try stamp(&decoded.image, iccProfile: decoded.iccProfile, colorSpace: Self.colorSpace(of: input, decoded: nil, iccProfile: decoded.iccProfile),
                  metadata: StillMetadataBlocks(exif: decoded.exif, xmp: decoded.xmp), input: input, output: output, format: format)
    }

    /// Scales, marks, encodes and writes an upright picture, with the metadata chosen.
    /// `metadata` holds the input's blocks when they were read with the picture (HEIF).
    private func stamp(_ image: inout StraightRGBAImage, iccProfile: [UInt8]?, colorSpace: FrameColorSpace,
                       metadata inputBlocks: StillMetadataBlocks?, input: String, output: String, format: StillImageWriter.Format) throws {
        let destination = try StillImageWriter.reserve(output, overwrite: overwrite, inputs: [input])
        if let size { image = try image.scaled(size.request, upscale: size.upscale, file: input) }
        let compositor = try compositor(width: image.width, height: image.height)
        try LayerError.rethrowing { try image.withCanvas(colorSpace: colorSpace) { canvas in try compositor.composite(onto: canvas, at: time) } }
        let blocks = metadata.blocks(forInput: input, heif: inputBlocks, width: image.width, height: image.height)
        let encoded = try StillImageWriter.encode(image, format: format, path: output,
                                                  settings: StillImageWriter.Settings(quality: quality, iccProfile: iccProfile,
                                                                                      codePoints: StillColorSpace.pngCICP(StillColorSpace.fileStart(input)),
                                                                                      metadata: blocks))
        try StillImageWriter.write(bytes: encoded, into: destination)
    }

    /// The first bytes of a file (empty when it cannot be read, or is a FIFO or a device,
    /// which `BoundedRead` opens without blocking and does not read: the decoder then says why).
    private static func firstBytes(of path: String) -> [UInt8] {
        (try? BoundedRead.prefix(of: path, count: 64)) ?? []
    }

    /// Whether the picture can be marked in its decoded YUV planes and encoded as they are:
    /// 8-bit full-range planar YUV (a JPEG) that is already upright.
    private static func canStampInYUV(_ decoded: StillImageReader.DecodedFrame) -> Bool {
        guard let layout = decoded.frame.pixelFormat.planarLayout else { return false }
        return JPEGWriter.canEncode(layout) && !decoded.frame.color.isLimitedRange
            && (decoded.exifOrientation.flatMap(ExifOrientation.init) ?? .upright) == .upright
    }

    /// JPEG in, JPEG out: the marks are blended into the decoded YUV planes, which are encoded
    /// as they are, as the video path does, with no conversion to RGBA and back.
    private func stampInYUV(_ decoded: StillImageReader.DecodedFrame, input: String, output: String) throws {
        let frame = decoded.frame
        let destination = try StillImageWriter.reserve(output, overwrite: overwrite, inputs: [input])
        let compositor = try compositor(width: frame.width, height: frame.height)
        try frame.makeWritable(file: input)
        let canvas = frame.planarCanvas(width: frame.width, height: frame.height,
                                        colorSpace: Self.colorSpace(of: input, decoded: decoded, iccProfile: decoded.iccProfile))
        try LayerError.rethrowing { try compositor.composite(onto: canvas, at: time) }
        let bytes = try JPEGWriter.encode(ycbcr: frame, quality: quality, iccProfile: decoded.iccProfile, path: output)
        let blocks = metadata.blocks(forInput: input, heif: nil, width: frame.width, height: frame.height)
        try StillImageWriter.write(bytes: try StillMetadataChoice.inserting(blocks, into: bytes, format: .jpeg, path: output), into: destination)
    }

    /// Whether the picture is PQ or HLG coded, as its decoder, `cICP` chunk or ICC profile says
    /// (see `StillColorSpace`): its marks are then placed at graphics white.
    private static func colorSpace(of input: String, decoded: StillImageReader.DecodedFrame?, iccProfile: [UInt8]?) -> FrameColorSpace {
        if let declared = decoded?.frame.color.frameColorSpace, declared.isHDR { return declared }
        return StillColorSpace.detect(iccProfile: iccProfile, fileStart: StillColorSpace.fileStart(input))
    }

    /// The decoded picture turned upright; the stored-orientation pixels are released on return.
    private static func readUpright(_ input: String, decoded frame: StillImageReader.DecodedFrame?) throws -> (image: StraightRGBAImage, iccProfile: [UInt8]?) {
        let decoded = try frame.map(StillImageReader.rgba(from:)) ?? StillImageReader.read(path: input)
        let orientation = decoded.exifOrientation.flatMap(ExifOrientation.init) ?? ExifOrientation.inPNG(at: input) ?? .upright
        return (decoded.image.oriented(orientation), decoded.iccProfile)
    }

    /// Starts preparing the marks for a `width`×`height` picture, unless they are ready.
    /// Should the upright picture turn out another size (an EXIF rotation), `compositor`
    /// replaces these marks, so at most one picture's marks are ever kept.
    private func prepareEarly(width: Int, height: Int) -> EarlyPreparation? {
        if let current, current.width == width, current.height == height { return nil }
        guard let compositor = try? compositor(width: width, height: height) else { return nil }
        heldWarnings = []
        return EarlyPreparation(compositor: compositor, width: width, height: height)
    }

    private func warnOnce(_ message: String) {
        if heldWarnings != nil {
            heldWarnings!.append(message)
        } else if warningsGiven.insert(message).inserted {
            warn(message)
        }
    }

    private func releaseHeldWarnings() {
        let held = heldWarnings ?? []
        heldWarnings = nil
        held.forEach(warnOnce)
    }

    private func compositor(width: Int, height: Int) throws -> Compositor {
        if let current, current.width == width, current.height == height { return current.compositor }
        current = nil  // release the previous size's prepared marks first
        heldWarnings = heldWarnings.map { _ in [] }  // and what preparing them had to say
        let fonts = try TextEngineError.fontLibrary()
        let compositor = Compositor(layers: layers, fonts: fonts, stacking: stacking, warn: { [unowned self] message in
            // The same warning (an upscaled logo, a substituted font) is said once per run, not once per size.
            warnOnce(message)
        })
        current = (width, height, compositor)
        return compositor
    }
}

/// `Compositor.prepare` on a second thread (`SecondThreadWork`: inline when no thread can
/// start). The compositor is not thread-safe: it is handed over whole — nothing else touches
/// it (or the stamper's warning set its warnings go to) until `finish` or `waitUntilDone`
/// has returned, which joins the thread and so orders the two threads' accesses.
private final class EarlyPreparation {
    private let work: SecondThreadWork<Void>

    init(compositor: Compositor, width: Int, height: Int) {
        work = SecondThreadWork { try compositor.prepare(storedWidth: width, storedHeight: height) }
    }

    /// Waits for the work; a preparation error is thrown as composing would have thrown it.
    func finish() throws {
        try LayerError.rethrowing { try work.result() }
    }

    /// Waits for the work, its outcome unused (the stamp already failed another way).
    func waitUntilDone() {
        _ = try? work.result()
    }
}
