import Foundation

/// The picture size an image file's header declares, read from its first bytes without
/// decoding anything, so an absurd size is refused before a decoder allocates for it.
///
/// Knows PNG (IHDR), JPEG (the first SOF marker) and WebP (VP8, VP8L and VP8X headers).
/// FFmpeg's probing decodes a whole frame to learn a PNG's size, which for a 12000×12000
/// header means 600 MB before our own size check could run.
enum ImageHeader {
    /// How much of a file is read to find the size: JPEG's SOF follows the EXIF and ICC
    /// segments, which are at most 64 KB each.
    static let prefixBytes = 1 << 20

    /// The declared size of the image at `path`, or nil for a file that cannot be read or
    /// whose format or header this does not know (FFmpeg then has the last word).
    /// Only a regular file is read (opened without blocking, see `BoundedRead`): a FIFO or a
    /// device gives nil here and is refused by the reader that follows.
    static func declaredSize(ofFileAt path: String) -> (width: Int, height: Int)? {
        guard let bytes = try? BoundedRead.prefix(of: path, count: prefixBytes) else { return nil }
        return declaredSize(bytes)
    }

    static func declaredSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        func u16be(_ i: Int) -> Int? { i + 2 <= bytes.count ? Int(bytes[i]) << 8 | Int(bytes[i + 1]) : nil }
        func u32be(_ i: Int) -> Int? {
            guard let high = u16be(i), let low = u16be(i + 2) else { return nil }
            return high << 16 | low
        }
        func u16le(_ i: Int) -> Int? { i + 2 <= bytes.count ? Int(bytes[i]) | Int(bytes[i + 1]) << 8 : nil }
        func u24le(_ i: Int) -> Int? { i + 3 <= bytes.count ? Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 : nil }
        func starts(_ prefix: [UInt8], at i: Int = 0) -> Bool {
            i + prefix.count <= bytes.count && Array(bytes[i..<i + prefix.count]) == prefix
        }

        // PNG: the signature, then IHDR's length and type, then width and height.
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard starts(Array("IHDR".utf8), at: 12), let w = u32be(16), let h = u32be(20) else { return nil }
            return (w, h)
        }
        // JPEG: walk the marker segments up to the first start-of-frame.
        if starts([0xFF, 0xD8]) {
            var i = 2
            while i + 4 <= bytes.count {
                guard bytes[i] == 0xFF else { return nil }
                let marker = bytes[i + 1]
                if marker == 0xFF { i += 1; continue }  // fill byte
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                guard let length = u16be(i + 2), length >= 2 else { return nil }
                // SOF0…SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    guard let h = u16be(i + 5), let w = u16be(i + 7) else { return nil }
                    return (w, h)
                }
                if marker == 0xDA || marker == 0xD9 { return nil }  // scan data before any frame header
                i += 2 + length
            }
            return nil
        }
        // WebP: a RIFF container whose first chunk is VP8X, VP8L or "VP8 ".
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            if starts(Array("VP8X".utf8), at: 12), let w = u24le(24), let h = u24le(27) {
                return (w + 1, h + 1)
            }
            if starts(Array("VP8L".utf8), at: 12), bytes.count >= 25, bytes[20] == 0x2F {
                let bits = Int(bytes[21]) | Int(bytes[22]) << 8 | Int(bytes[23]) << 16 | Int(bytes[24]) << 24
                return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            }
            if starts(Array("VP8 ".utf8), at: 12), starts([0x9D, 0x01, 0x2A], at: 23), let w = u16le(26), let h = u16le(28) {
                return (w & 0x3FFF, h & 0x3FFF)
            }
            return nil
        }
        return nil
    }
}
