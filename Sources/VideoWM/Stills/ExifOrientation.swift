import Foundation
import Overlay

/// EXIF orientation (TIFF tag 0x0112): how a camera's stored picture must be turned and
/// mirrored to appear upright. 1 is "as stored"; 5…8 swap width and height.
///
/// FFmpeg reports the tag for JPEG and WebP (`StillImageReader`); for PNG, whose `eXIf`
/// chunk FFmpeg 5.1 ignores, `inPNG(at:)` reads it. Both parsers only look, never
/// allocate what a header asks for, and give up (nil) on anything malformed.
struct ExifOrientation: Equatable, Sendable {
    let rawValue: Int

    init?(_ rawValue: Int) {
        guard (1...8).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(known rawValue: Int) { self.rawValue = rawValue }

    static let upright = ExifOrientation(known: 1)

    /// 5…8 are quarter turns (with or without a mirror): the shown picture is stored sideways.
    var swapsWidthAndHeight: Bool { rawValue >= 5 }

    /// The stored pixel that appears at display position (`x`, `y`) of a stored `width`×`height` picture.
    func storedPosition(ofDisplayX x: Int, y: Int, storedWidth width: Int, storedHeight height: Int) -> (x: Int, y: Int) {
        switch rawValue {
        case 2: (width - 1 - x, y)
        case 3: (width - 1 - x, height - 1 - y)
        case 4: (x, height - 1 - y)
        case 5: (y, x)
        case 6: (y, height - 1 - x)
        case 7: (width - 1 - y, height - 1 - x)
        case 8: (width - 1 - y, x)
        default: (x, y)
        }
    }

    /// The orientation in a TIFF structure (an EXIF block without its "Exif\0\0" prefix),
    /// read from IFD0 only, which is where cameras write it.
    static func inTIFF(_ bytes: some RandomAccessCollection<UInt8>) -> ExifOrientation? {
        let data = Array(bytes.prefix(1 << 20))
        guard data.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (data[0], data[1]) {
        case (0x49, 0x49): littleEndian = true   // "II"
        case (0x4D, 0x4D): littleEndian = false  // "MM"
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= data.count else { return nil }
            return littleEndian ? Int(data[at]) | Int(data[at + 1]) << 8 : Int(data[at]) << 8 | Int(data[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return littleEndian ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        // Each entry is 12 bytes; a count that runs past the data is cut to what is there.
        let entries = min(count, (data.count - ifd - 2) / 12)
        for index in 0..<max(0, entries) {
            let entry = ifd + 2 + index * 12
            guard u16(entry) == 0x0112, let type = u16(entry + 2), let valueCount = u32(entry + 4), valueCount >= 1 else { continue }
            switch type {
            case 3: return u16(entry + 8).flatMap(ExifOrientation.init)   // SHORT, the standard type
            case 4: return u32(entry + 8).flatMap(ExifOrientation.init)   // LONG, written by a few tools
            default: return nil
            }
        }
        return nil
    }

    /// The orientation in a PNG's `eXIf` chunk (before the image data, as the PNG
    /// extensions require). Reads chunk headers only, skipping their data, so a large or
    /// hostile file costs a few reads. Nil for anything that is not a PNG.
    static func inPNG(at path: String) -> ExifOrientation? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        func read(_ count: Int) -> [UInt8]? {
            guard let data = try? file.read(upToCount: count), data.count == count else { return nil }
            return [UInt8](data)
        }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard read(8) == signature else { return nil }
        var offset: UInt64 = 8
        for _ in 0..<256 {
            guard let header = read(8) else { return nil }
            let length = UInt64(header[0]) << 24 | UInt64(header[1]) << 16 | UInt64(header[2]) << 8 | UInt64(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length <= 0x7FFF_FFFF else { return nil }
            switch type {
            case "IDAT", "IEND":
                return nil
            case "eXIf":
                guard length <= 1 << 20, let body = read(Int(length)) else { return nil }
                // Some writers keep JPEG's "Exif\0\0" prefix; the chunk should hold TIFF data only.
                let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
                return inTIFF(body.starts(with: exifPrefix) ? body.dropFirst(6) : body[...])
            default:
                offset += 8 + length + 4
                guard (try? file.seek(toOffset: offset)) != nil else { return nil }
            }
        }
        return nil
    }
}

extension StraightRGBAImage {
    /// The upright picture for an EXIF orientation: a new buffer of the same size, each pixel
    /// moved once (whole 32-bit pixels, so a 12-megapixel photo takes milliseconds).
    func oriented(_ orientation: ExifOrientation) -> StraightRGBAImage {
        guard orientation != .upright else { return self }
        let outWidth = orientation.swapsWidthAndHeight ? height : width
        let outHeight = orientation.swapsWidthAndHeight ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        let (w, h) = (width, height)
        pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                let src = source.bindMemory(to: UInt32.self), dst = target.bindMemory(to: UInt32.self)
                for y in 0..<outHeight {
                    let row = y * outWidth
                    for x in 0..<outWidth {
                        let stored = orientation.storedPosition(ofDisplayX: x, y: y, storedWidth: w, storedHeight: h)
                        dst[row + x] = src[stored.y * w + stored.x]
                    }
                }
            }
        }
        return StraightRGBAImage(width: outWidth, height: outHeight, pixels: out)
    }
}
