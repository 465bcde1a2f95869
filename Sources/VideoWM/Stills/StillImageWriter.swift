import CFFmpeg
import Foundation
import Overlay

/// Encodes an RGBA image to PNG, JPEG or WebP (chosen by the output's extension) and
/// writes it atomically.
enum StillImageWriter {
    enum Format {
        case png, jpeg, webp

        init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            case "webp": self = .webp
            default: return nil
            }
        }

        var encoderName: String {
            switch self {
            case .png: "png"
            case .jpeg: "mjpeg"
            case .webp: "libwebp"
            }
        }
    }

    static func checkFormat(_ path: String) throws -> Format {
        guard let format = Format(path: path) else {
            throw VideoWMError.usage("\(path): unknown image format (use .png, .jpg or .webp)")
        }
        return format
    }

    /// Encodes `image` into the bytes of a file of `format`.
    /// `jpegQuality` is 1…100 (the usual libjpeg scale).
    static func encode(_ image: StraightRGBAImage, format: Format, path: String, jpegQuality: Int = 90) throws -> [UInt8] {
        let encoder = try Encoder(codecName: format.encoderName, file: path)
        let ctx = encoder.context
        ctx.pointee.width = Int32(image.width)
        ctx.pointee.height = Int32(image.height)
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        var target: AVPixelFormat
        switch format {
        case .png:
            target = image.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element != 255 } ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24
        case .jpeg:
            target = AV_PIX_FMT_YUVJ420P
            // libjpeg-style quality → mjpeg's qscale (2 best … 31 worst).
            let q = max(1, min(100, jpegQuality))
            let qscale = max(1, min(31, Int((Double(100 - q) / 100 * 29 + 2).rounded())))
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = Int32(qscale) * FF_QP2LAMBDA
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
        case .webp:
            target = AV_PIX_FMT_YUVA420P
        }
        ctx.pointee.pix_fmt = target
        try encoder.open(options: format == .webp ? ["quality": String(jpegQuality)] : [:])

        let source = try Frame()
        source.pointer.pointee.width = Int32(image.width)
        source.pointer.pointee.height = Int32(image.height)
        source.pointer.pointee.format = AV_PIX_FMT_RGBA.rawValue
        try check(av_frame_get_buffer(source.pointer, 0), "allocating a frame", file: path, status: .ioError)
        let stride = Int(source.pointer.pointee.linesize.0)
        image.pixels.withUnsafeBufferPointer { src in
            for row in 0..<image.height {
                (source.pointer.pointee.data.0! + row * stride).update(from: src.baseAddress! + row * image.width * 4, count: image.width * 4)
            }
        }
        let converter = try FrameConverter(width: image.width, height: image.height, from: AV_PIX_FMT_RGBA, to: target,
                                           sourceMatrix: SWS_CS_ITU601, sourceFullRange: true, targetFullRange: true)
        let frame = try converter.convert(source)
        frame.pointer.pointee.pts = 0
        frame.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        try encoder.send(frame)
        try encoder.send(nil)
        let packet = try Packet()
        var bytes: [UInt8] = []
        while try encoder.receive(into: packet) == .produced {
            let p = packet.pointer.pointee
            bytes.append(contentsOf: UnsafeBufferPointer(start: p.data, count: Int(p.size)))
            packet.unref()
        }
        guard !bytes.isEmpty else { throw VideoWMError.writeFailed(path, "the \(encoder.name) encoder produced nothing") }
        return bytes
    }

    /// Encodes and writes atomically (temporary file, fsync, rename).
    static func write(_ image: StraightRGBAImage, to path: String, overwrite: Bool, inputs: [String], jpegQuality: Int = 90) throws {
        let format = try checkFormat(path)
        let output = try AtomicOutput(target: path, overwrite: overwrite, inputs: inputs)
        let bytes = try encode(image, format: format, path: path, jpegQuality: jpegQuality)
        guard let handle = FileHandle(forWritingAtPath: output.temporaryPath) else {
            throw VideoWMError.cannotCreate(path, "cannot open the temporary file")
        }
        do {
            try handle.write(contentsOf: Data(bytes))
            try handle.close()
        } catch {
            throw VideoWMError.writeFailed(path, "\(error.localizedDescription)")
        }
        try Interruption.throwIfRequested()
        try output.commit()
    }
}

