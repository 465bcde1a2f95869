import CFFmpeg
import Foundation
import Overlay

/// Encodes an RGBA image to PNG, JPEG or WebP (chosen by the output's extension) and
/// writes it atomically. PNG and WebP go through FFmpeg's encoders, JPEG through
/// libjpeg-turbo (`JPEGWriter`).
///
/// What is kept from the input: the ICC colour profile, in PNG (`iCCP`, which FFmpeg's png
/// encoder writes from the frame's side data) and JPEG (`APP2`); FFmpeg 5.1's libwebp
/// wrapper cannot write one, so WebP outputs carry none. EXIF is not copied: the orientation is
/// already applied to the pixels, and EXIF's embedded preview would be an unmarked copy.
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

        var keepsColorProfile: Bool { self != .webp }
    }

    /// How the still is encoded, beyond its format.
    struct Settings {
        /// 1…100, the libjpeg/libwebp scale; PNG is lossless and ignores it.
        var quality = 90
        /// Written into the output when the format can hold it.
        var iccProfile: [UInt8]?
    }

    static func checkFormat(_ path: String) throws -> Format {
        guard let format = Format(path: path) else {
            throw RequestError(subject: path, problem: "unknown image format (use .png, .jpg or .webp)")
        }
        return format
    }

    /// Encodes `image` into the bytes of a file of `format`.
    static func encode(_ image: StraightRGBAImage, format: Format, path: String, settings: Settings = Settings()) throws -> [UInt8] {
        let profile = format.keepsColorProfile ? settings.iccProfile : nil
        switch format {
        case .jpeg:
            return try JPEGWriter.encode(image, quality: settings.quality, iccProfile: profile, path: path)
        case .png:
            // Paeth prediction: much smaller files than none, at little cost.
            return try encodeWithFFmpeg(image, encoderName: "png", pixelFormat: image.isOpaque ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_RGBA,
                                        options: ["pred": "paeth"], iccProfile: profile, path: path)
        case .webp:
            return try encodeWithFFmpeg(image, encoderName: "libwebp", pixelFormat: image.isOpaque ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUVA420P,
                                        options: ["quality": String(max(1, min(100, settings.quality)))], iccProfile: profile, path: path)
        }
    }

    private static func encodeWithFFmpeg(_ image: StraightRGBAImage, encoderName: String, pixelFormat target: AVPixelFormat,
                                         options: [String: String], iccProfile: [UInt8]?, path: String) throws -> [UInt8] {
        let encoder = try Encoder(codecName: encoderName, file: path)
        let ctx = encoder.context
        ctx.pointee.width = Int32(image.width)
        ctx.pointee.height = Int32(image.height)
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        ctx.pointee.pix_fmt = target
        try encoder.open(options: options)

        try image.withBorrowedFrame { source in
            // The encoder converts to its own pixel format here, straight from the image's memory.
            let frame: Frame
            if target == AV_PIX_FMT_RGBA {
                frame = source
            } else {
                // libwebp's YUV (like VP8's) is limited range; RGB targets ignore it.
                let converter = try FrameConverter(width: image.width, height: image.height, from: AV_PIX_FMT_RGBA, to: target,
                                                   sourceMatrix: SWS_CS_ITU601, sourceFullRange: true, targetFullRange: false)
                frame = try converter.convert(source)
                frame.pointer.pointee.color_range = AVCOL_RANGE_MPEG
            }
            frame.pointer.pointee.pts = 0
            try attachColorProfile(iccProfile, to: frame, path: path)
            try encoder.send(frame)
        }
        return try drain(encoder, path: path)
    }

    /// Puts an ICC profile on a frame (the png encoder writes it into the file).
    private static func attachColorProfile(_ profile: [UInt8]?, to frame: Frame, path: String) throws {
        guard let profile, !profile.isEmpty, av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_ICC_PROFILE) == nil else { return }
        guard let side = av_frame_new_side_data(frame.pointer, AV_FRAME_DATA_ICC_PROFILE, profile.count) else {
            throw ResourceError.memory("attaching the colour profile")
        }
        side.pointee.data.update(from: profile, count: profile.count)
    }

    /// Flushes a still encoder and returns the file's bytes.
    private static func drain(_ encoder: Encoder, path: String) throws -> [UInt8] {
        try encoder.send(nil)
        let packet = try Packet()
        var bytes: [UInt8] = []
        while try encoder.receive(into: packet) == .produced {
            let p = packet.pointer.pointee
            bytes.append(contentsOf: UnsafeBufferPointer(start: p.data, count: Int(p.size)))
            packet.unref()
        }
        guard !bytes.isEmpty else { throw OutputError(file: path, stage: .writing, detail: "the \(encoder.name) encoder produced nothing") }
        return bytes
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

    /// Runs `body` with an `AVFrame` that points at this image's pixels (no copy). The frame
    /// owns no buffer and is emptied before returning, so it cannot outlive the borrow.
    func withBorrowedFrame<R>(_ body: (Frame) throws -> R) throws -> R {
        let frame = try Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = AV_PIX_FMT_RGBA.rawValue
        return try pixels.withUnsafeBufferPointer { buffer in
            frame.pointer.pointee.data.0 = UnsafeMutablePointer(mutating: buffer.baseAddress)
            frame.pointer.pointee.linesize.0 = Int32(width * 4)
            defer { frame.unref() }
            return try body(frame)
        }
    }
}
