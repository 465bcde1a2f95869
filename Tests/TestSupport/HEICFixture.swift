import CHeif
import Foundation

/// Writes iPhone-style HEIC test files through libheif's encoder (x265): the stored picture
/// with an `irot`/`imir` transformation, an ICC profile, and EXIF whose Orientation says the
/// same turn, as phones write both.
///
/// Debian 12's `heif-enc` (1.15.1) cannot make such a file: it copies a JPEG's EXIF but
/// passes Orientation 1 to the encoder (checked by intercepting heif_context_encode_image),
/// so it writes no `irot`. Its library does, through `heif_encoding_options.image_orientation`.
public enum HEICFixture {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// Writes `rgb` (`width`×`height`, 3 bytes a pixel, stored orientation) to `path`, to be
    /// shown turned by EXIF-numbered `orientation` (6: a quarter turn clockwise).
    public static func write(rgb: [UInt8], width: Int, height: Int, orientation: Int, iccProfile: [UInt8], path: String) throws {
        precondition(rgb.count == width * height * 3)
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image))
        guard let image else { throw Failure(description: "heif_image_create gave no image") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8))
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else { throw Failure(description: "no plane") }
        for row in 0..<height {
            for column in 0..<width * 3 { plane[row * Int(stride) + column] = rgb[row * width * 3 + column] }
        }
        try iccProfile.withUnsafeBytes { try check(heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count)) }

        guard let context = heif_context_alloc() else { throw Failure(description: "heif_context_alloc failed") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        guard let encoder else { throw Failure(description: "no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 95))
        guard let options = heif_encoding_options_alloc() else { throw Failure(description: "no options") }
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, image, encoder, options, &handle))
        guard let handle else { throw Failure(description: "no image handle") }
        defer { heif_image_handle_release(handle) }
        let exif = exifWithOrientation(orientation)
        try exif.withUnsafeBytes { try check(heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count))) }
        try check(heif_context_write_to_file(context, path))
    }

    /// A big-endian TIFF structure whose IFD0 holds only Orientation.
    static func exifWithOrientation(_ value: Int) -> [UInt8] {
        [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(value), 0, 0, 0, 0, 0, 0]
    }

    static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        throw Failure(description: error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)")
    }
}
