internal import CHeif
import Overlay

/// AVIF output through libheif's AV1 encoder (libaom 3.6 in Debian 12): the marked picture,
/// its ICC profile and chosen metadata in one file held in memory until it is complete.
///
/// Measured here: libheif's `heif-enc -A` encodes a 12-megapixel picture in about 2.3 s of
/// CPU. FFmpeg 5.1 can also mux AVIF (its `avif` muxer with libaom or SVT-AV1), but libheif
/// is already linked for HEIC input and writes the ICC profile and EXIF/XMP items as well.
package enum AVIFWriter {
    /// `quality` is libheif's lossy quality, 1…100 (the `--quality` scale of JPEG and WebP).
    /// `codePoints` (H.273 primaries, transfer, matrix, full range) go into the `nclx` colour
    /// box; the picture is coded with the matrix that goes with the primaries (BT.2020's or
    /// BT.709's) rather than as RGB.
    package static func encode(_ image: StraightRGBAImage, quality: Int, iccProfile: [UInt8]?, codePoints: [UInt8]? = nil,
                       exif: [UInt8]?, xmp: [UInt8]?, path: String) throws -> [UInt8] {
        let hasAlpha = stride(from: 3, to: image.pixels.count, by: 4).contains { image.pixels[$0] != 255 }
        let channels = hasAlpha ? 4 : 3
        var heifImage: OpaquePointer?
        try check(heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB,
                                    hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &heifImage), path)
        guard let heifImage else { throw ResourceError.memory("encoding \(path)") }
        defer { heif_image_release(heifImage) }
        try check(heif_image_add_plane(heifImage, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8), path)
        var rowStride: Int32 = 0
        guard let plane = heif_image_get_plane(heifImage, heif_channel_interleaved, &rowStride) else {
            throw ResourceError.memory("encoding \(path)")
        }
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<image.height {
                let target = plane + row * Int(rowStride)
                for column in 0..<image.width {
                    for channel in 0..<channels { target[column * channels + channel] = pixels[(row * image.width + column) * 4 + channel] }
                }
            }
        }
        if let iccProfile {
            try iccProfile.withUnsafeBytes { try check(heif_image_set_raw_color_profile(heifImage, "prof", $0.baseAddress, $0.count), path) }
        } else if let codePoints, codePoints.count == 4 {
            guard let nclx = heif_nclx_color_profile_alloc() else { throw ResourceError.memory("encoding \(path)") }
            defer { heif_nclx_color_profile_free(nclx) }
            try check(heif_nclx_color_profile_set_color_primaries(nclx, UInt16(codePoints[0])), path)
            try check(heif_nclx_color_profile_set_transfer_characteristics(nclx, UInt16(codePoints[1])), path)
            try check(heif_nclx_color_profile_set_matrix_coefficients(nclx, codePoints[0] == 9 ? 9 : 1), path)
            nclx.pointee.full_range_flag = 1
            try check(heif_image_set_nclx_color_profile(heifImage, nclx), path)
        }
        guard let context = heif_context_alloc() else { throw ResourceError.memory("encoding \(path)") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_AV1, &encoder), path)
        guard let encoder else { throw OutputError(file: path, stage: .writing, operation: "encoding AVIF", detail: "libheif has no AV1 encoder") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(min(max(quality, 1), 100))), path)
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, heifImage, encoder, nil, &handle), path)
        guard let handle else { throw OutputError(file: path, stage: .writing, operation: "encoding AVIF", detail: "no image written") }
        defer { heif_image_handle_release(handle) }
        if let exif { try exif.withUnsafeBytes { try check(heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count)), path) } }
        if let xmp { try xmp.withUnsafeBytes { try check(heif_context_add_XMP_metadata(context, handle, $0.baseAddress, Int32($0.count)), path) } }

        let sink = ByteSink()
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            // `userdata` is the sink passed below.
            guard let userdata else { return heif_error(code: heif_error_Encoding_error, subcode: heif_suberror_Unspecified, message: nil) }
            let sink = Unmanaged<ByteSink>.fromOpaque(userdata).takeUnretainedValue()
            sink.bytes += UnsafeRawBufferPointer(start: data, count: size)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        })
        try withExtendedLifetime(sink) {
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()), path)
        }
        return sink.bytes
    }

    private final class ByteSink { var bytes: [UInt8] = [] }

    private static func check(_ error: heif_error, _ path: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw OutputError(file: path, stage: .writing, operation: "encoding AVIF",
                          detail: error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)")
    }
}
