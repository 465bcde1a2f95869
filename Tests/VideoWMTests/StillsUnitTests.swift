import Animation
import CFFmpeg
import Foundation
import Overlay
import Testing
@testable import Media
@testable import VideoWM

/// A TIFF block (what follows "Exif\0\0") whose IFD0 holds one Orientation entry.
func tiffWithOrientation(_ value: Int, bigEndian: Bool = false, type: UInt16 = 3) -> [UInt8] {
    func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
    let value16 = type == 4 ? u32(UInt32(value)) : u16(UInt16(value)) + [0, 0]
    return (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8) + u16(2)
        + u16(0x010F) + u16(2) + u32(4) + [0x41, 0x42, 0x43, 0]   // Make = "ABC", to be skipped
        + u16(0x0112) + u16(type) + u32(1) + value16
        + u32(0)
}

@Suite("EXIF orientation")
struct ExifOrientationTests {
    @Test("IFD0's Orientation is found in both byte orders and as SHORT or LONG")
    func readsOrientation() {
        for value in 1...8 {
            #expect(ExifOrientation.inTIFF(tiffWithOrientation(value))?.rawValue == value)
            #expect(ExifOrientation.inTIFF(tiffWithOrientation(value, bigEndian: true))?.rawValue == value)
            #expect(ExifOrientation.inTIFF(tiffWithOrientation(value, type: 4))?.rawValue == value)
        }
    }

    @Test("malformed or hostile TIFF data gives nil, never a crash")
    func malformedData() {
        let good = tiffWithOrientation(6)
        #expect(ExifOrientation.inTIFF([UInt8]()) == nil)
        #expect(ExifOrientation.inTIFF(tiffWithOrientation(0)) == nil)
        #expect(ExifOrientation.inTIFF(tiffWithOrientation(9)) == nil)
        #expect(ExifOrientation.inTIFF(tiffWithOrientation(6, type: 7)) == nil)
        #expect(ExifOrientation.inTIFF(Array("XX*\u{0}".utf8) + good.dropFirst(4)) == nil)
        for cut in 0..<good.count - 4 {
            // Every truncation: the Orientation entry is either whole or ignored.
            let value = ExifOrientation.inTIFF(good.prefix(cut))
            #expect(value == nil || value?.rawValue == 6)
        }
        var hugeCount = good
        hugeCount[8] = 0xFF; hugeCount[9] = 0xFF
        #expect(ExifOrientation.inTIFF(hugeCount) == nil || ExifOrientation.inTIFF(hugeCount)?.rawValue == 6)
        var farOffset = good
        farOffset[4] = 0xF0; farOffset[5] = 0xFF; farOffset[6] = 0xFF; farOffset[7] = 0x7F
        #expect(ExifOrientation.inTIFF(farOffset) == nil)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 4, Bool.random(using: &generator) { bytes.replaceSubrange(0..<4, with: [0x49, 0x49, 42, 0]) }
            _ = ExifOrientation.inTIFF(bytes)
        }
    }

    @Test("a PNG's eXIf chunk is read; other files give nil")
    func pngChunk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-exif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let n = UInt32(body.count)
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + body + [0, 0, 0, 0]
        }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let header = chunk("IHDR", [UInt8](repeating: 1, count: 13))
        let cases: [(String, [UInt8], Int?)] = [
            ("exif.png", signature + header + chunk("eXIf", tiffWithOrientation(8, bigEndian: true)) + chunk("IDAT", [1, 2]), 8),
            ("prefixed.png", signature + header + chunk("eXIf", Array("Exif\0\0".utf8) + tiffWithOrientation(3)) + chunk("IDAT", []), 3),
            ("after-data.png", signature + header + chunk("IDAT", [1]) + chunk("eXIf", tiffWithOrientation(6)), nil),
            ("none.png", signature + header + chunk("IDAT", [1]) + chunk("IEND", []), nil),
            ("truncated.png", signature + Array(header.prefix(10)), nil),
            ("lying-length.png", signature + [0x7F, 0xFF, 0xFF, 0xF0] + Array("tEXt".utf8), nil),
            ("not.png", Array("hello, world".utf8), nil),
        ]
        for (name, bytes, expected) in cases {
            let path = directory.appendingPathComponent(name).path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            #expect(ExifOrientation.inPNG(at: path)?.rawValue == expected, "\(name)")
        }
        #expect(ExifOrientation.inPNG(at: directory.appendingPathComponent("missing.png").path) == nil)
    }

    /// The stored picture is 3×2 with pixels numbered 0…5 row by row; each orientation's
    /// upright picture, written out from the EXIF definitions (row 0 / column 0 meanings).
    @Test("each orientation turns and mirrors as EXIF defines")
    func orientedPictures() {
        var pixels: [UInt8] = []
        for n in 0..<6 { pixels += [UInt8(n), 0, 0, 255] }
        let stored = StraightRGBAImage(width: 3, height: 2, pixels: pixels)
        let expected: [Int: (Int, Int, [Int])] = [
            1: (3, 2, [0, 1, 2, 3, 4, 5]),
            2: (3, 2, [2, 1, 0, 5, 4, 3]),
            3: (3, 2, [5, 4, 3, 2, 1, 0]),
            4: (3, 2, [3, 4, 5, 0, 1, 2]),
            5: (2, 3, [0, 3, 1, 4, 2, 5]),
            6: (2, 3, [3, 0, 4, 1, 5, 2]),
            7: (2, 3, [5, 2, 4, 1, 3, 0]),
            8: (2, 3, [2, 5, 1, 4, 0, 3]),
        ]
        for (value, (width, height, order)) in expected {
            let upright = stored.oriented(ExifOrientation(value)!)
            #expect(upright.width == width && upright.height == height, "orientation \(value)")
            #expect(stride(from: 0, to: upright.pixels.count, by: 4).map { Int(upright.pixels[$0]) } == order, "orientation \(value)")
        }
    }
}

/// An 8-bit planar YUV frame whose plane `i` holds `sample(i, column, row)` within the plane,
/// and `padding(column)` in the stride's bytes past the plane's width.
func planarFrame(_ format: AVPixelFormat, width: Int, height: Int, sample: (Int, Int, Int) -> UInt8,
                 padding: (Int) -> UInt8 = { _ in 0 }) throws -> Frame {
    let frame = try Frame(width: width, height: height, format: PixelFormat(format), file: "test")
    for (i, plane) in try planes(of: frame).enumerated() {
        for row in 0..<plane.height {
            for column in 0..<plane.stride {
                plane.base[row * plane.stride + column] = column < plane.width ? sample(i, column, row) : padding(column)
            }
        }
    }
    return frame
}

/// The three planes of an 8-bit planar YUV frame with their sizes.
func planes(of frame: Frame) throws -> [(base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int)] {
    let layout = try #require(frame.pixelFormat.planarLayout)
    return try (0..<3).map { i in
        // The test keeps `frame` alive while it reads these.
        let plane = try #require(frame.withPlane(i) { ($0.base, $0.bytesPerRow) })
        let size = layout.planeSize(i, width: frame.width, height: frame.height)
        return (plane.0, plane.1, size.width, size.height)
    }
}

@Suite("still encoding")
struct StillEncodingTests {
    /// The quantisation tables (id → 64 values in zigzag order) a JPEG file declares.
    private func quantisationTables(_ jpeg: [UInt8]) -> [Int: [Int]] {
        var tables: [Int: [Int]] = [:], i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            if jpeg[i + 1] == 0xDB {
                var j = i + 4
                while j < i + 2 + length {
                    tables[Int(jpeg[j] & 15)] = jpeg[(j + 1)..<(j + 65)].map(Int.init)  // 8-bit tables
                    j += 65
                }
            }
            i += 2 + length
        }
        return tables
    }

    @Test("quality means libjpeg's: its Annex K tables scaled as libjpeg and ImageMagick scale them")
    func qualityIsLibjpegs() throws {
        var image = StraightRGBAImage(width: 48, height: 40, fill: RGBAColor(red: 0, green: 0, blue: 0, alpha: 255))
        for i in stride(from: 0, to: image.pixels.count, by: 4) { image.pixels[i] = UInt8(i / 4 % 251); image.pixels[i + 1] = UInt8(i / 16 % 256) }
        // (Annex K value · (200 − 2q) + 50) / 100, and 5000/q % below 50: DC and the first AC entry.
        for (quality, luma, chroma) in [(90, [3, 2], [3, 4]), (75, [8, 6], [9, 9]), (50, [16, 11], [17, 18]), (10, [80, 55], [85, 90])] {
            let tables = quantisationTables(try JPEGWriter.encode(image, quality: quality, iccProfile: nil, path: "q.jpg"))
            #expect(tables[0].map { Array($0.prefix(2)) } == luma, "quality \(quality)")
            #expect(tables[1].map { Array($0.prefix(2)) } == chroma, "quality \(quality)")
        }
        let sizes = try [30, 60, 90].map { try JPEGWriter.encode(image, quality: $0, iccProfile: nil, path: "q.jpg").count }
        #expect(sizes[0] < sizes[1] && sizes[1] < sizes[2])
    }

    @Test("YUV planes of odd sizes encode whole, edges repeated into the last blocks", arguments: [
        AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P])
    func oddSizedPlanes(format: AVPixelFormat) throws {
        // A flat colour; the bytes past each plane's width are garbage on purpose.
        let frame = try planarFrame(format, width: 37, height: 23, sample: { plane, _, _ in [180, 60, 200][plane] },
                                    padding: { UInt8(truncatingIfNeeded: $0 * 97) })
        let bytes = try JPEGWriter.encode(ycbcr: frame, quality: 95, iccProfile: nil, path: "planes.jpg")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("planes-\(format.rawValue)-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let decoded = try StillImageReader.decodeFrame(path: path).frame
        #expect(decoded.width == 37 && decoded.height == 23)
        // Every corner keeps the colour: garbage past the edges would ring into the last blocks.
        let corners = try #require(decoded.withPlane(0) { luma in
            [(0, 0), (36, 0), (0, 22), (36, 22)].map { x, y in (x, y, Int(luma.base[y * luma.bytesPerRow + x])) }
        })
        for (x, y, luma) in corners { #expect(abs(luma - 180) <= 2, "luma \(luma) at \(x),\(y)") }
    }

    @Test("libjpeg-turbo decodes JPEGs into planes of their own sampling, colour profile kept; damaged data is left to FFmpeg",
          arguments: [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P])
    func jpegReader(format: AVPixelFormat) throws {
        // A smooth picture of odd size, encoded at quality 100, must come back within a few levels.
        let frame = try planarFrame(format, width: 53, height: 37, sample: { plane, column, row in UInt8(40 + plane * 50 + row + column) })
        let profile = [UInt8](repeating: 7, count: 300)
        let bytes = try JPEGWriter.encode(ycbcr: frame, quality: 100, iccProfile: profile, path: "r.jpg")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(format.rawValue)-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let decoded = try #require(JPEGReader.decodeFrame(contentsOf: path))
        #expect(decoded.frame.pixelFormat == PixelFormat(format) && decoded.frame.width == 53 && decoded.frame.height == 37)
        #expect(decoded.iccProfile == profile)
        for (i, (original, back)) in zip(try planes(of: frame), try planes(of: decoded.frame)).enumerated() {
            var worst = 0
            for row in 0..<original.height { for column in 0..<original.width {
                worst = max(worst, abs(Int(back.base[row * back.stride + column]) - Int(original.base[row * original.stride + column])))
            } }
            #expect(worst <= 3, "plane \(i) differs by up to \(worst)")
        }
        // Cut short: libjpeg would fill in grey with a warning; the reader declines instead.
        try Data(bytes.prefix(bytes.count * 2 / 3)).write(to: URL(fileURLWithPath: path))
        #expect(JPEGReader.decodeFrame(contentsOf: path) == nil)
    }

    @Test("alpha is detected, so opaque PNGs are written without an alpha channel")
    func opacity() {
        var image = StraightRGBAImage(width: 5, height: 3, fill: RGBAColor(red: 1, green: 2, blue: 3, alpha: 255))
        #expect(image.isOpaque)
        image.pixels[4 * 7 + 3] = 254
        #expect(!image.isOpaque)
    }

    @Test("the ICC profile reaches PNG, JPEG and WebP files (WebP's ICCP chunk, after VP8X, its flag set)")
    func colourProfileIsWritten() throws {
        let profile = (0..<300).map { UInt8($0 % 251) }
        let image = StraightRGBAImage(width: 16, height: 8, fill: RGBAColor(red: 200, green: 100, blue: 50, alpha: 255))
        for (format, name) in [(StillImageWriter.Format.png, "x.png"), (.jpeg, "x.jpg")] {
            let bytes = try StillImageWriter.encode(image, format: format, path: name, settings: .init(quality: 90, iccProfile: profile))
            let haystack = Data(bytes)
            // PNG compresses the profile (iCCP); JPEG stores it raw in APP2 "ICC_PROFILE".
            #expect(haystack.range(of: Data(format == .png ? Array("iCCP".utf8) : Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile)) != nil, "\(name)")
        }
        for image in [image, StraightRGBAImage(width: 16, height: 8, fill: RGBAColor(red: 200, green: 100, blue: 50, alpha: 128))] {
            let webp = try StillImageWriter.encode(image, format: .webp, path: "x.webp", settings: .init(quality: 90, iccProfile: profile))
            // RIFF, size, WEBP, then VP8X (10 bytes, ICC flag 0x20) and the ICCP chunk holding the profile.
            #expect(Array(webp[12..<16]) == Array("VP8X".utf8) && webp[20] & 0x20 != 0)
            #expect(Array(webp[30..<34]) == Array("ICCP".utf8) && Array(webp[38..<(38 + profile.count)]) == profile)
            #expect(webp[20] & 0x10 != 0 || image.isOpaque, "the alpha flag is kept")
        }
    }
}
