import CJPEG
import Foundation
import Overlay

/// Writes JPEG files with libjpeg-turbo, the library ImageMagick and most image tools use:
/// `quality` means exactly what it means to them (libjpeg's scaled Annex K tables), Huffman
/// tables are fitted to each image, and its SIMD encoder is about three times as fast as
/// FFmpeg's mjpeg on a 12-megapixel photo.
enum JPEGWriter {
    /// Encodes 8-bit full-range planar YUV (a decoded JPEG, marked in place) as it is, with
    /// no conversion: JPEG in, JPEG out keeps the source's own samples and subsampling.
    static func encode(ycbcr frame: Frame, quality: Int, iccProfile: [UInt8]?, path: String) throws -> [UInt8] {
        guard let layout = frame.pixelFormat.planarLayout, canEncode(layout) else {
            preconditionFailure("JPEGWriter takes 8-bit planar YUV with at most 2:1 subsampling")
        }
        return try run(path: path) { out, length, error, errorSize in
            withProfile(iccProfile) { icc, iccLength in
                vwm_jpeg_encode_ycbcr(frame.readOnlyDataPointers, frame.lineSizes, Int32(frame.width), Int32(frame.height),
                                      Int32(layout.chromaShiftX), Int32(layout.chromaShiftY),
                                      Int32(quality), icc, iccLength, out, length, error, errorSize)
            }
        }
    }

    /// Whether `encode(ycbcr:)` takes frames of this layout.
    static func canEncode(_ layout: PlanarYUVLayout) -> Bool {
        layout.bitDepth == 8 && layout.chromaShiftX <= 1 && layout.chromaShiftY <= 1
    }

    /// Encodes an RGBA image (alpha ignored) as 4:2:0.
    static func encode(_ image: StraightRGBAImage, quality: Int, iccProfile: [UInt8]?, path: String) throws -> [UInt8] {
        try image.pixels.withUnsafeBufferPointer { pixels in
            try run(path: path) { out, length, error, errorSize in
                withProfile(iccProfile) { icc, iccLength in
                    vwm_jpeg_encode_rgba(pixels.baseAddress, Int32(image.width * 4), Int32(image.width), Int32(image.height),
                                         Int32(quality), icc, iccLength, out, length, error, errorSize)
                }
            }
        }
    }

    private static func withProfile<R>(_ profile: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        guard let profile, !profile.isEmpty else { return body(nil, 0) }
        return profile.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
    }

    /// Calls one of the C encoders and takes ownership of the file it returns.
    private static func run(path: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
                                                     UnsafeMutablePointer<CChar>, Int) -> Int32) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let code = message.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let text = buffer.baseAddress else { return -1 }
            return encode(&out, &length, text, buffer.count)
        }
        defer { free(out) }
        guard code == 0, let out else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if reason.isEmpty { throw ResourceError.memory("encoding \(path) with libjpeg") }
            throw OutputError(file: path, stage: .writing, detail: "libjpeg: \(reason)")
        }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
