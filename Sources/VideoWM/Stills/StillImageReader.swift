import CFFmpeg
import Foundation
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
        let fullRange = frame.pointer.pointee.color_range != AVCOL_RANGE_MPEG
        let converter = try FrameConverter(width: frame.width, height: frame.height, from: frame.pixelFormat, to: AV_PIX_FMT_RGBA,
                                           sourceMatrix: swsMatrix(for: frame.pointer.pointee.colorspace, height: frame.height),
                                           sourceFullRange: fullRange, targetFullRange: true)
        let rgba = try converter.convert(frame).pointer.pointee
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height * 4)
        let stride = Int(rgba.linesize.0)
        pixels.withUnsafeMutableBufferPointer { dst in
            for row in 0..<frame.height {
                (dst.baseAddress! + row * frame.width * 4).update(from: rgba.data.0! + row * stride, count: frame.width * 4)
            }
        }
        return Decoded(image: StraightRGBAImage(width: frame.width, height: frame.height, pixels: pixels),
                       exifOrientation: decoded.exifOrientation, iccProfile: decoded.iccProfile)
    }

    /// Decodes a local still to a frame in the decoder's pixel format, with its orientation tag and colour profile.
    static func decodeFrame(path: String, name: String? = nil) throws -> DecodedFrame {
        let name = name ?? path
        // FFmpeg's probing decodes a PNG to learn its size: refuse an absurd header before that.
        if let declared = ImageHeader.declaredSize(ofFileAt: path) {
            try checkSize(width: declared.width, height: declared.height, path: name)
        }
        if let jpeg = JPEGReader.decodeFrame(contentsOf: path) { return jpeg }
        let input = try InputFile(path: path, name: name)
        guard input.streamCount > 0, let stream = (0..<input.streamCount).lazy.map(input.stream).first(where: {
            $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        }) else {
            throw MediaError(file: name, detail: "not an image")
        }
        let par = stream.pointee.codecpar.pointee
        let width = Int(par.width), height = Int(par.height)
        try checkSize(width: width, height: height, path: name)
        let decoder = try Decoder(stream: stream, file: name, threads: 1)
        // A truncated JPEG otherwise decodes "successfully" with a grey lower part; explode
        // makes the decoders report damaged data, so a broken photo is an error, not a stamp.
        decoder.context.pointee.err_recognition |= AV_EF_EXPLODE
        let packet = try Packet()
        let frame = try Frame()
        var gotFrame = false
        readLoop: while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == Int(stream.pointee.index) else { continue }
            if case .damaged(let error) = try decoder.send(packet) { throw error }
            if try receiveOrThrow(decoder, into: frame) { gotFrame = true; break readLoop }
        }
        if !gotFrame {
            if case .damaged(let error) = try decoder.send(nil) { throw error }
            gotFrame = try receiveOrThrow(decoder, into: frame)
        }
        guard gotFrame, frame.width > 0, frame.height > 0 else { throw MediaError(file: name, detail: "no picture could be decoded") }
        var orientation: Int?
        // FFmpeg prints EXIF shorts right-aligned ("    6"), so the spaces must go before parsing.
        if let entry = av_dict_get(frame.pointer.pointee.metadata, "Orientation", nil, 0),
           let value = Int(String(cString: entry.pointee.value).trimmingCharacters(in: .whitespaces)), (1...8).contains(value) {
            orientation = value
        }
        var iccProfile: [UInt8]?
        if let side = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_ICC_PROFILE), side.pointee.size > 0 {
            iccProfile = Array(UnsafeBufferPointer(start: side.pointee.data, count: Int(side.pointee.size)))
        }
        return DecodedFrame(frame: frame, exifOrientation: orientation, iccProfile: iccProfile)
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
