import Foundation
import ImageMetadata
import Overlay

/// Encodes an RGBA image to PNG, JPEG, WebP or AVIF (chosen by the output's extension) and
/// writes it atomically. PNG and WebP go through FFmpeg's encoders, JPEG through
/// libjpeg-turbo (`JPEGWriter`), AVIF through libheif's AV1 encoder (`AVIFWriter`).
///
/// What is kept from the input: the ICC colour profile, in PNG (`iCCP`, which FFmpeg's png
/// encoder writes from the frame's side data), JPEG (`APP2`), AVIF (`colr`) and WebP (`ICCP`,
/// put in afterwards: FFmpeg 5.1's libwebp wrapper cannot write one). The colour the pixels
/// are in, as H.273 code points (a PNG's `cICP`, a still made from HDR video), is said in
/// every format: PNG `cICP`, AVIF `nclx`, and for PQ or HLG in JPEG and WebP an ICC profile
/// with a `cicp` tag when there is no profile of the input's. EXIF and XMP only as
/// `--keep-metadata`/`--set-metadata` choose (`Settings.metadata`, see `StillMetadataChoice`).
enum StillImageWriter {
    enum Format {
        case png, jpeg, webp, avif

        init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            case "webp": self = .webp
            case "avif": self = .avif
            default: return nil
            }
        }

    }

    /// How the still is encoded, beyond its format.
    struct Settings {
        /// 1…100, the libjpeg/libwebp scale; PNG is lossless and ignores it.
        var quality = 90
        /// Written into the output when the format can hold it.
        var iccProfile: [UInt8]?
        /// H.273 code points of the colour the pixels are in (primaries, transfer, matrix, full
        /// range): an input PNG's `cICP`, or what a still made from video is. The marks were
        /// drawn in that signal, PQ or HLG, so the output must say so.
        var codePoints: [UInt8]?
        /// The EXIF and XMP blocks to write (nil: none).
        var metadata: StillMetadataBlocks?
    }

    static func checkFormat(_ path: String) throws -> Format {
        guard let format = Format(path: path) else {
            throw RequestError(subject: path, problem: "unknown image format (use .png, .jpg, .webp or .avif)")
        }
        return format
    }

    /// Encodes `image` into the bytes of a file of `format`.
    static func encode(_ image: StraightRGBAImage, format: Format, path: String, settings: Settings = Settings()) throws -> [UInt8] {
        let profile = settings.iccProfile
        // JPEG and WebP have no code points of their own: an HDR colour goes into an ICC profile.
        let hdrProfile = settings.codePoints.flatMap { StillColorSpace.isHDR(codePoints: $0) ? StillColorSpace.iccProfile(codePoints: $0) : nil }
        let bytes: [UInt8]
        switch format {
        case .jpeg:
            bytes = try JPEGWriter.encode(image, quality: settings.quality, iccProfile: profile ?? hdrProfile, path: path)
        case .png:
            // Paeth prediction: much smaller files than none, at little cost.
            let png = try encodeWithFFmpeg(image, encoderName: "png", pixelFormat: image.isOpaque ? .rgb24 : .rgba,
                                           options: ["pred": "paeth"], iccProfile: profile, path: path)
            bytes = settings.codePoints.map { StillColorSpace.insertingCICP($0, intoPNG: png) } ?? png
        case .webp:
            let webp = try encodeWithFFmpeg(image, encoderName: "libwebp", pixelFormat: image.isOpaque ? .yuv420p : .yuva420p,
                                            options: ["quality": String(max(1, min(100, settings.quality)))], iccProfile: nil, path: path)
            bytes = (profile ?? hdrProfile).map { ColorProfileContainer.inserting($0, intoWebP: webp) } ?? webp
        case .avif:
            // libheif writes the metadata as items of the file itself.
            return try AVIFWriter.encode(image, quality: settings.quality, iccProfile: profile, codePoints: profile == nil ? settings.codePoints : nil,
                                         exif: settings.metadata?.exif, xmp: settings.metadata?.xmp, path: path)
        }
        return try StillMetadataChoice.inserting(settings.metadata, into: bytes, format: format, path: path)
    }

    private static func encodeWithFFmpeg(_ image: StraightRGBAImage, encoderName: String, pixelFormat target: PixelFormat,
                                         options: [String: String], iccProfile: [UInt8]?, path: String) throws -> [UInt8] {
        let encoder = try ImageEncoder(encoderName: encoderName, width: image.width, height: image.height, format: target,
                                       options: options, file: path)
        return try image.withBorrowedFrame { source in
            // The encoder converts to its own pixel format here, straight from the image's memory.
            let frame: Frame
            if target == .rgba {
                frame = source
            } else {
                // libwebp's YUV (like VP8's) is limited range; RGB targets ignore it.
                let shape = FrameConverter.Shape(width: image.width, height: image.height, format: .rgba)
                let converter = try FrameConverter(from: shape, to: FrameConverter.Shape(width: image.width, height: image.height, format: target),
                                                   colors: .rgbaToWebP, file: path)
                frame = try converter.convert(source)
                frame.color.markLimitedRange()
            }
            if let iccProfile { try frame.attachICCProfile(iccProfile) }
            return try encoder.encode(frame)
        }
    }

    /// Writes encoded bytes into a reserved output and moves it into place.
    static func write(bytes: [UInt8], into output: AtomicOutput) throws {
        let path = output.target
        guard let handle = FileHandle(forWritingAtPath: output.temporaryPath) else {
            throw OutputError(file: path, stage: .creating, detail: "cannot open the temporary file")
        }
        do {
            try handle.write(contentsOf: bytes)
            try handle.close()
        } catch {
            try? handle.close()
            throw OutputError(file: path, stage: .writing, detail: error.localizedDescription)
        }
        try Interruption.throwIfRequested()
        try output.commit()
    }

    /// Encodes and writes atomically (temporary file, fsync, rename).
    static func write(_ image: StraightRGBAImage, to path: String, overwrite: Bool, inputs: [String], settings: Settings = Settings()) throws {
        let output = try reserve(path, overwrite: overwrite, inputs: inputs)
        try write(image, into: output, settings: settings)
    }

    /// Checks the output (format, folder, an existing file, not an input) and claims its
    /// temporary file, so a long job fails before the work rather than after it.
    static func reserve(_ path: String, overwrite: Bool, inputs: [String]) throws -> AtomicOutput {
        _ = try checkFormat(path)
        return try AtomicOutput(target: path, overwrite: overwrite, inputs: inputs)
    }

    /// Encodes into a reserved output and moves it into place.
    static func write(_ image: StraightRGBAImage, into output: AtomicOutput, settings: Settings = Settings()) throws {
        let path = output.target
        let bytes = try encode(image, format: try checkFormat(path), path: path, settings: settings)
        try write(bytes: bytes, into: output)
    }
}

extension StraightRGBAImage {
    /// Whether every pixel is fully opaque (then PNG needs no alpha channel).
    var isOpaque: Bool {
        pixels.withUnsafeBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            // Alpha is each pixel's fourth byte: the top byte of the word read little-endian.
            let alpha = UInt32(0xFF00_0000).littleEndian
            for word in words where word & alpha != alpha { return false }
            return true
        }
    }
}
