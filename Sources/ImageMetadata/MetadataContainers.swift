/// Where EXIF and XMP live in JPEG, PNG and WebP files: reading them out of an input's bytes
/// and putting them into an encoded output's bytes. Pure byte work on whole files in memory
/// (stills are written from memory anyway); malformed input gives "no metadata", not a crash.

/// The EXIF (TIFF structure, without "Exif\0\0") and XMP packet found in a still.
public struct StillMetadataBlocks: Sendable, Equatable {
    public var exif: [UInt8]?
    public var xmp: [UInt8]?

    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil) {
        self.exif = exif
        self.xmp = xmp
    }

    static let exifPrefix = Array("Exif\u{0}\u{0}".utf8)
    static let xmpNamespace = Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8)
    static let pngXMPKeyword = Array("XML:com.adobe.xmp".utf8)

    /// The first EXIF and XMP APP1 segments of a JPEG, read up to the start of scan.
    public init(jpeg bytes: [UInt8]) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { break }  // start of scan, end of image
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2, at + 2 + length <= bytes.count else { break }
            let payload = bytes[(at + 4)..<(at + 2 + length)]
            if marker == 0xE1 {
                if exif == nil, payload.starts(with: Self.exifPrefix) { exif = Array(payload.dropFirst(Self.exifPrefix.count)) }
                if xmp == nil, payload.starts(with: Self.xmpNamespace) { xmp = Array(payload.dropFirst(Self.xmpNamespace.count)) }
            }
            at += 2 + length
        }
    }

    /// A PNG's `eXIf` chunk and its `iTXt` chunk keyed "XML:com.adobe.xmp" (uncompressed).
    public init(png bytes: [UInt8]) {
        for chunk in PNGChunks(bytes) {
            if chunk.type == "eXIf", exif == nil { exif = Array(chunk.data) }
            if chunk.type == "iTXt", xmp == nil, chunk.data.starts(with: Self.pngXMPKeyword + [0, 0]) {
                // keyword, NUL, compression flag 0, method, language tag NUL, translated keyword NUL, text
                var rest = chunk.data.dropFirst(Self.pngXMPKeyword.count + 3)
                for _ in 0..<2 {
                    guard let nul = rest.firstIndex(of: 0) else { rest = []; break }
                    rest = rest[(nul + 1)...]
                }
                if !rest.isEmpty { xmp = Array(rest) }
            }
        }
    }

    /// A WebP's `EXIF` and `XMP ` chunks. Some writers put "Exif\0\0" before the TIFF
    /// structure; it is dropped.
    public init(webp bytes: [UInt8]) {
        for chunk in RIFFChunks(webp: bytes) {
            if chunk.type == "EXIF", exif == nil {
                exif = chunk.data.starts(with: Self.exifPrefix) ? Array(chunk.data.dropFirst(Self.exifPrefix.count)) : Array(chunk.data)
            }
            if chunk.type == "XMP ", xmp == nil { xmp = Array(chunk.data) }
        }
    }
}

/// A block too large for the container; the text says which and how large.
public struct MetadataTooLarge: Error, Equatable, CustomStringConvertible {
    public let description: String
}

extension StillMetadataBlocks {
    /// The JPEG with APP1 segments for the EXIF and XMP inserted after SOI and any JFIF APP0.
    /// A segment holds at most 65,533 bytes; a larger block throws (nothing is cut short).
    public func inserted(intoJPEG jpeg: [UInt8]) throws(MetadataTooLarge) -> [UInt8] {
        precondition(jpeg.count >= 2 && jpeg[0] == 0xFF && jpeg[1] == 0xD8, "not a JPEG")
        var segments: [UInt8] = []
        for (name, prefix, block) in [("EXIF", Self.exifPrefix, exif), ("XMP", Self.xmpNamespace, xmp)] {
            guard let block else { continue }
            let length = 2 + prefix.count + block.count
            guard length <= 0xFFFF else {
                throw MetadataTooLarge(description: "its \(name) (\(block.count) bytes) is larger than a JPEG segment holds")
            }
            segments += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + prefix + block
        }
        var at = 2
        if jpeg.count >= 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = min(jpeg.count, 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))) }
        return Array(jpeg[..<at]) + segments + Array(jpeg[at...])
    }

    /// The PNG with an `eXIf` chunk and an XMP `iTXt` chunk inserted before its first `IDAT`.
    public func inserted(intoPNG png: [UInt8]) -> [UInt8] {
        guard let idat = PNGChunks(png).first(where: { $0.type == "IDAT" }) else { preconditionFailure("a PNG without IDAT") }
        var chunks: [UInt8] = []
        if let exif { chunks += PNGChunks.encode(type: "eXIf", data: exif) }
        if let xmp { chunks += PNGChunks.encode(type: "iTXt", data: Self.pngXMPKeyword + [0, 0, 0, 0, 0] + xmp) }
        return Array(png[..<idat.start]) + chunks + Array(png[idat.start...])
    }

    /// The WebP with `EXIF` and `XMP ` chunks appended, in the extended (VP8X) layout: a
    /// simple file gets a VP8X header with its canvas size read from the VP8/VP8L bitstream.
    public func inserted(intoWebP webp: [UInt8]) -> [UInt8] {
        precondition(!Array(RIFFChunks(webp: webp)).isEmpty, "not a WebP")
        guard var chunks = RIFFChunks.extendedLayout(of: webp) else { return webp }
        var vp8x = Array(chunks[0].data)
        chunks.removeAll { $0.type == "EXIF" || $0.type == "XMP " }
        if let exif { chunks.append(.init(type: "EXIF", data: exif[...], start: 0)); vp8x[0] |= 0x08 }
        if let xmp { chunks.append(.init(type: "XMP ", data: xmp[...], start: 0)); vp8x[0] |= 0x04 }
        chunks[0] = .init(type: "VP8X", data: vp8x[...], start: 0)
        return RIFFChunks.webp(chunks)
    }
}

/// A still's ICC colour profile where its format keeps it and the encoder does not write it.
public enum ColorProfileContainer {
    /// The WebP with an `ICCP` chunk holding `profile` right after its VP8X header (where the
    /// format puts it), replacing any, and the header's ICC flag set. FFmpeg's libwebp wrapper
    /// writes no profile, and without one an HDR still's pixels would be read as sRGB.
    public static func inserting(_ profile: [UInt8], intoWebP webp: [UInt8]) -> [UInt8] {
        guard !profile.isEmpty, var chunks = RIFFChunks.extendedLayout(of: webp) else { return webp }
        var vp8x = Array(chunks[0].data)
        vp8x[0] |= 0x20
        chunks.removeAll { $0.type == "ICCP" }
        chunks[0] = .init(type: "VP8X", data: vp8x[...], start: 0)
        chunks.insert(.init(type: "ICCP", data: profile[...], start: 0), at: 1)
        return RIFFChunks.webp(chunks)
    }
}

extension RIFFChunks {
    /// A WebP's chunks in the extended (VP8X) layout: a simple file gets a VP8X header with its
    /// canvas size read from the VP8/VP8L bitstream. Nil when it is not a WebP or the size cannot be read.
    static func extendedLayout(of webp: [UInt8]) -> [Chunk]? {
        var chunks = Array(RIFFChunks(webp: webp))
        guard !chunks.isEmpty else { return nil }
        if chunks[0].type != "VP8X" {
            guard let canvas = RIFFChunks.canvas(of: chunks[0]) else { return nil }
            var header = [UInt8](repeating: 0, count: 10)
            if canvas.alpha { header[0] |= 0x10 }
            for (index, value) in [canvas.width - 1, canvas.height - 1].enumerated() {
                header[4 + 3 * index] = UInt8(value & 0xFF)
                header[5 + 3 * index] = UInt8(value >> 8 & 0xFF)
                header[6 + 3 * index] = UInt8(value >> 16 & 0xFF)
            }
            chunks.insert(RIFFChunks.Chunk(type: "VP8X", data: header[...], start: 0), at: 0)
        }
        return chunks
    }

    /// The bytes of a WebP made of `chunks`.
    static func webp(_ chunks: [Chunk]) -> [UInt8] {
        var body = Array("WEBP".utf8)
        for chunk in chunks { body += RIFFChunks.encode(type: chunk.type, data: chunk.data) }
        return Array("RIFF".utf8) + littleEndian32(body.count) + body
    }
}

func littleEndian32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
