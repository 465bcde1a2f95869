internal import CHeif
import Overlay

/// HEIC/HEIF stills (iPhone photos) decoded through libheif (in Media: the C structs stay here): the primary image, with its
/// transformations applied, as straight RGBA, plus its ICC profile and metadata blocks.
///
/// libheif 1.15 applies `irot`/`imir`/`clap` when decoding (its `ignore_transformations`
/// defaults to off), so the picture comes out upright. A HEIF's EXIF Orientation is only
/// informative (the HEIF standard makes the transformation boxes normative, and iPhones write
/// both), so it must not be applied again: the caller treats HEIF pixels as already upright.
package enum HEIFReader {
    package struct Decoded {
        package var image: StraightRGBAImage
        package var iccProfile: [UInt8]?
        /// The EXIF block without libheif's 4-byte offset prefix, and the XMP packet.
        package var exif: [UInt8]?
        package var xmp: [UInt8]?
    }

    /// Brands of the ISO base media `ftyp` box that mark an HEIF still (HEVC or AV1 coded).
    static let brands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"]

    /// Whether a file's first bytes are an `ftyp` box naming an HEIF brand.
    package static func looksLikeHEIF(_ header: [UInt8]) -> Bool {
        guard header.count >= 16, Array(header[4..<8]) == Array("ftyp".utf8) else { return false }
        let boxSize = min(header.count, Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3]))
        // The major brand at 8, the minor version at 12, compatible brands from 16.
        let candidates = [8] + Array(stride(from: 16, to: boxSize - 3, by: 4))
        return candidates.contains { brands.contains(String(decoding: header[$0..<$0 + 4], as: UTF8.self)) }
    }

    /// `checkSize` refuses a picture too large to decode (the stills' limits), given its upright size.
    package static func read(path: String, checkSize: (_ width: Int, _ height: Int) throws -> Void) throws -> Decoded {
        let context = try HEIFContext(path: path)
        let handle = try context.primaryImage(path: path)
        let width = Int(heif_image_handle_get_width(handle.pointer)), height = Int(heif_image_handle_get_height(handle.pointer))
        try checkSize(width, height)
        let hasAlpha = heif_image_handle_has_alpha_channel(handle.pointer) != 0
        guard let options = heif_decoding_options_alloc() else { throw ResourceError.memory("decoding \(path)") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1  // 10-bit HDR photos are marked and written as 8-bit
        var decoded: OpaquePointer?
        try check(heif_decode_image(handle.pointer, &decoded, heif_colorspace_RGB,
                                    hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options),
                  "decoding HEIF", path)
        guard let decoded else { throw MediaError(file: path, operation: "decoding HEIF", detail: "no picture") }
        defer { heif_image_release(decoded) }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride),
              Int(heif_image_get_width(decoded, heif_channel_interleaved)) == width,
              Int(heif_image_get_height(decoded, heif_channel_interleaved)) == height else {
            throw MediaError(file: path, operation: "decoding HEIF", detail: "the decoded picture is not the declared size")
        }
        let channels = hasAlpha ? 4 : 3
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                let source = plane + row * Int(stride)
                for column in 0..<width {
                    for channel in 0..<channels { out[(row * width + column) * 4 + channel] = source[column * channels + channel] }
                }
            }
        }
        return Decoded(image: StraightRGBAImage(width: width, height: height, pixels: pixels),
                       iccProfile: handle.iccProfile(), exif: handle.metadata(type: "Exif").map(Self.exifWithoutOffset),
                       xmp: handle.metadata(type: "mime", contentType: "application/rdf+xml"))
    }

    /// libheif hands EXIF over with a 4-byte big-endian offset to the TIFF header first.
    static func exifWithoutOffset(_ block: [UInt8]) -> [UInt8] {
        guard block.count >= 4 else { return [] }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        return offset <= block.count - 4 ? Array(block[(4 + offset)...]) : []
    }

    static func check(_ error: heif_error, _ operation: String, _ path: String) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        throw MediaError(file: path, operation: operation, detail: message)
    }
}

/// A libheif context holding one file.
private final class HEIFContext {
    let pointer: OpaquePointer

    init(path: String) throws {
        guard let context = heif_context_alloc() else { throw ResourceError.memory("reading \(path)") }
        pointer = context
        try HEIFReader.check(heif_context_read_from_file(context, path, nil), "reading HEIF", path)
    }

    deinit { heif_context_free(pointer) }

    func primaryImage(path: String) throws -> HEIFImageHandle {
        var handle: OpaquePointer?
        try HEIFReader.check(heif_context_get_primary_image_handle(pointer, &handle), "finding the primary image", path)
        guard let handle else { throw MediaError(file: path, detail: "has no primary image") }
        return HEIFImageHandle(handle, context: self)
    }
}

/// The primary image's handle; keeps its context alive.
private final class HEIFImageHandle {
    let pointer: OpaquePointer
    private let context: HEIFContext

    init(_ pointer: OpaquePointer, context: HEIFContext) {
        self.pointer = pointer
        self.context = context
    }

    deinit { heif_image_handle_release(pointer) }

    /// The ICC profile (a `colr` box of type `prof` or `rICC`), when there is one.
    func iccProfile() -> [UInt8]? {
        let size = heif_image_handle_get_raw_color_profile_size(pointer)
        guard size > 0, size <= 16 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        let error = bytes.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(pointer, $0.baseAddress) }
        return error.code == heif_error_Ok ? bytes : nil
    }

    /// The first metadata block of `type` ("Exif", or "mime" with `contentType`).
    func metadata(type: String, contentType: String? = nil) -> [UInt8]? {
        var ids = [heif_item_id](repeating: 0, count: 16)
        let count = Int(heif_image_handle_get_list_of_metadata_block_IDs(pointer, type, &ids, Int32(ids.count)))
        for id in ids.prefix(count) {
            if let contentType, heif_image_handle_get_metadata_content_type(pointer, id).map({ String(cString: $0) }) != contentType { continue }
            let size = heif_image_handle_get_metadata_size(pointer, id)
            guard size > 0, size <= 1 << 20 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            let error = bytes.withUnsafeMutableBytes { heif_image_handle_get_metadata(pointer, id, $0.baseAddress) }
            if error.code == heif_error_Ok { return bytes }
        }
        return nil
    }
}
