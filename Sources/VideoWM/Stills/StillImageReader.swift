import CFFmpeg
import Overlay

/// Decodes a still image (PNG, JPEG, WebP… anything FFmpeg's image demuxers read) to
/// straight-alpha RGBA, refusing absurd sizes before any pixel memory is allocated.
enum StillImageReader {
    static let maximumSide = 16384
    static let maximumPixels = 100_000_000

    /// A decoded still plus what the file says about how to show it.
    struct Decoded {
        var image: StraightRGBAImage
        /// EXIF orientation (1…8) when the file carries one.
        var exifOrientation: Int?
    }

    static func read(path: String) throws -> Decoded {
        let input = try InputFile(path: path)
        guard input.streamCount > 0, let stream = (0..<input.streamCount).lazy.map(input.stream).first(where: {
            $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        }) else {
            throw VideoWMError.corrupt(path, "not an image")
        }
        let par = stream.pointee.codecpar.pointee
        let width = Int(par.width), height = Int(par.height)
        guard width > 0, height > 0 else { throw VideoWMError.corrupt(path, "not an image (no size in its header)") }
        guard width <= maximumSide, height <= maximumSide, width * height <= maximumPixels else {
            throw VideoWMError.corrupt(path, "declares \(width)×\(height) pixels, over the limit of \(maximumSide) a side and \(maximumPixels / 1_000_000) megapixels")
        }
        let decoder = try Decoder(stream: stream, file: path, threads: 1)
        let packet = try Packet()
        let frame = try Frame()
        var gotFrame = false
        readLoop: while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == Int(stream.pointee.index) else { continue }
            _ = try decoder.send(packet)
            if try decoder.receive(into: frame) == .produced { gotFrame = true; break readLoop }
        }
        if !gotFrame {
            _ = try decoder.send(nil)
            gotFrame = try decoder.receive(into: frame) == .produced
        }
        guard gotFrame, frame.width > 0, frame.height > 0 else { throw VideoWMError.corrupt(path, "no picture could be decoded") }
        let converter = try FrameConverter(width: frame.width, height: frame.height, from: frame.pixelFormat, to: AV_PIX_FMT_RGBA,
                                           sourceMatrix: swsMatrix(for: frame.pointer.pointee.colorspace, height: frame.height),
                                           sourceFullRange: true, targetFullRange: true)
        let rgba = try converter.convert(frame).pointer.pointee
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height * 4)
        let stride = Int(rgba.linesize.0)
        pixels.withUnsafeMutableBufferPointer { dst in
            for row in 0..<frame.height {
                (dst.baseAddress! + row * frame.width * 4).update(from: rgba.data.0! + row * stride, count: frame.width * 4)
            }
        }
        var orientation: Int?
        if let entry = av_dict_get(frame.pointer.pointee.metadata, "Orientation", nil, 0),
           let value = Int(String(cString: entry.pointee.value)), (1...8).contains(value) {
            orientation = value
        }
        return Decoded(image: StraightRGBAImage(width: frame.width, height: frame.height, pixels: pixels), exifOrientation: orientation)
    }
}
