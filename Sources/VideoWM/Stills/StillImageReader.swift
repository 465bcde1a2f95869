import Foundation
import ImageMetadata
import Overlay

/// Decodes a still image (PNG, JPEG, WebP… anything FFmpeg's image demuxers read) to
/// straight-alpha RGBA, refusing absurd sizes before any pixel memory is allocated.
/// Ordinary JPEGs are decoded by libjpeg-turbo (`JPEGReader`), everything else by FFmpeg.
enum StillImageReader {
    static let maximumSide = 16384
    static let maximumPixels = 100_000_000

    /// A decoded still plus what the file says about how to show it.
    struct Decoded {
        var image: StraightRGBAImage
        /// EXIF orientation (1…8) when the file carries one.
        var exifOrientation: Int?
        /// The embedded ICC colour profile, byte for byte, when the decoder found one.
        var iccProfile: [UInt8]? = nil
    }

    /// A decoded still in the decoder's own pixel format (YUV for JPEG), before any conversion.
    struct DecodedFrame {
        var frame: Frame
        var exifOrientation: Int?
        var iccProfile: [UInt8]?
        /// What errors call the picture (its path, or the URL it came from).
        var name: String
        /// A TIFF with more than one page (FFmpeg decodes the first).
        var isMultiPageTIFF = false
    }

    /// Decodes the image at `path`, a file or an http(s) URL (fetched with a time limit, see
    /// `RemoteImage`). Errors name the file `name` (by default the path).
    static func read(path: String, name: String? = nil) throws -> Decoded {
        if RemoteImage.isURL(path) { return try RemoteImage.read(url: path) }
        return try rgba(from: decodeFrame(path: path, name: name))
    }

    /// A decoded frame converted to straight RGBA.
    static func rgba(from decoded: DecodedFrame) throws -> Decoded {
        let frame = decoded.frame
        // Stills are full range unless they say otherwise (lossy WebP says "tv").
        let colors = ColorConversion.toRGBA(from: frame.color, format: frame.pixelFormat, height: frame.height, stillRange: true)
        let shape = FrameConverter.Shape(width: frame.width, height: frame.height, format: frame.pixelFormat)
        let converter = try FrameConverter(from: shape, to: FrameConverter.Shape(width: frame.width, height: frame.height, format: .rgba),
                                           colors: colors, file: decoded.name)
        let pixels = try converter.convert(frame).packedRGBA(width: frame.width, height: frame.height)
        return Decoded(image: StraightRGBAImage(width: frame.width, height: frame.height, pixels: pixels),
                       exifOrientation: decoded.exifOrientation, iccProfile: decoded.iccProfile)
    }

    /// Decodes a local still to a frame in the decoder's pixel format, with its orientation tag and colour profile.
    static func decodeFrame(path: String, name: String? = nil) throws -> DecodedFrame {
        let name = name ?? path
        try requireRegularFile(path, name: name)
        // FFmpeg's probing decodes a PNG to learn its size: refuse an absurd header before that.
        let header = (try? BoundedRead.prefix(of: path, count: ImageHeader.prefixBytes)) ?? []
        // FFmpeg 5.1 decodes no WebP animation (logos go through `AnimatedImageReader` first):
        // say what the file is rather than "not an image".
        if AnimatedImageReader.kind(ofFileStart: header) == .webp {
            throw MediaError(file: name, detail: "is an animated WebP; a still image is needed here")
        }
        if let declared = ImageHeader.declaredSize(header) {
            try checkSize(width: declared.width, height: declared.height, path: name)
        }
        if let jpeg = JPEGReader.decodeFrame(contentsOf: path) { return jpeg }
        let input = try InputFile(path: path, name: name)
        guard let stream = input.firstVideoStream else { throw MediaError(file: name, detail: "not an image") }
        let video = stream.video
        try checkSize(width: video.width, height: video.height, path: name)
        // Strict: a broken photo is an error, not a half-grey stamp. Except TIFF: FFmpeg 5.1's
        // decoder reports every tag it does not know (ResolutionUnit, which nearly every TIFF
        // has) as damage under AV_EF_EXPLODE; its strips are bounds-checked either way.
        let decoder = try Decoder(stream: stream, file: name, threads: 1, strict: stream.codec.name != "tiff")
        let packet = try Packet()
        let frame = try Frame()
        var gotFrame = false
        readLoop: while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == stream.index else { continue }
            if case .damaged(let error) = try decoder.send(packet) { throw error }
            if try receiveOrThrow(decoder, into: frame) { gotFrame = true; break readLoop }
        }
        if !gotFrame {
            if case .damaged(let error) = try decoder.send(nil) { throw error }
            gotFrame = try receiveOrThrow(decoder, into: frame)
        }
        guard gotFrame, frame.width > 0, frame.height > 0 else { throw MediaError(file: name, detail: "no picture could be decoded") }
        var decoded = DecodedFrame(frame: frame, exifOrientation: frame.exifOrientation, iccProfile: frame.iccProfile, name: name)
        if input.formatName.contains("tiff") { decoded.readTIFFStructure(path: path) }
        return decoded
    }

    /// Refuses a FIFO, a device or a folder before any read: the header reads below would
    /// block on a FIFO for ever, or never end on /dev/zero. The check is on the descriptor
    /// opened without blocking, so a FIFO with no writer cannot hold up the open either.
    private static func requireRegularFile(_ path: String, name: String) throws {
        do {
            let opened = try BoundedRead.open(path, accepting: .regularFiles)
            close(opened.descriptor)
        } catch {
            throw error.inputError(file: name, what: "the image")
        }
    }

    /// Whether a frame came out; damage is an error (a still has nothing to conceal it with).
    private static func receiveOrThrow(_ decoder: Decoder, into frame: Frame) throws -> Bool {
        switch try decoder.receive(into: frame) {
        case .frame: return true
        case .needsInput, .endOfStream: return false
        case .damaged(let error): throw error
        }
    }

    /// Refuses a picture without a size or larger than `maximumSide` a side or `maximumPixels` in all.
    static func checkSize(width: Int, height: Int, path: String) throws {
        guard width > 0, height > 0 else { throw MediaError(file: path, detail: "not an image (no size in its header)") }
        guard width <= maximumSide, height <= maximumSide, width * height <= maximumPixels else {
            throw MediaError(file: path, detail: "declares \(width)×\(height) pixels, over the limit of \(maximumSide) a side and \(maximumPixels / 1_000_000) megapixels")
        }
    }
}

extension StillImageReader.DecodedFrame {
    /// What FFmpeg 5.1's TIFF decoder leaves out: the Orientation tag (274) of the first
    /// page, and whether another page follows (a second IFD). Read from the file's own IFDs.
    mutating func readTIFFStructure(path: String) {
        guard let data = FileManager.default.contents(atPath: path), let tiff = try? ExifContent(tiff: [UInt8](data)) else { return }
        if exifOrientation == nil, let orientation = tiff.integer(ExifTag.orientation) { exifOrientation = Int(orientation) }
        isMultiPageTIFF = tiff.hadThumbnail
    }
}
