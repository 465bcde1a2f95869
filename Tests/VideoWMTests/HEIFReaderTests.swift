import Foundation
import Overlay
import Testing
import TestSupport
@testable import VideoWM

@Suite("HEIC input")
struct HEIFReaderTests {
    /// A stored 64×48 picture: dark teal with a red 16×12 block in its top-left corner.
    static let stored: [UInt8] = (0..<48).flatMap { y in
        (0..<64).flatMap { x in x < 16 && y < 12 ? [255, 0, 0] as [UInt8] : [0, 128, 128] }
    }
    static let profile: [UInt8] = Array("not a real ICC profile, carried byte for byte".utf8)

    func withHEIC(orientation: Int, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-heif-\(UUID().uuidString).heic").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try HEICFixture.write(rgb: Self.stored, width: 64, height: 48, orientation: orientation, iccProfile: Self.profile, path: path)
        try body(path)
    }

    /// Whether the pixel at (x, y) is the red block's (the coding is lossy: near, not equal).
    func isRed(_ image: Overlay.StraightRGBAImage, _ x: Int, _ y: Int) -> Bool {
        let i = (y * image.width + x) * 4
        return image.pixels[i] > 200 && image.pixels[i + 1] < 60 && image.pixels[i + 2] < 60 && image.pixels[i + 3] == 255
    }

    @Test("irot is applied once: a quarter turn shows the block top-right; the ICC and EXIF come along")
    func upright() throws {
        try withHEIC(orientation: 6) { path in
            let header = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(64))
            #expect(HEIFReader.looksLikeHEIF(header))
            let decoded = try HEIFReader.read(path: path, checkSize: { try StillImageReader.checkSize(width: $0, height: $1, path: path) })
            #expect(decoded.image.width == 48 && decoded.image.height == 64)
            #expect(isRed(decoded.image, 47 - 4, 4) && !isRed(decoded.image, 4, 4))
            #expect(decoded.iccProfile == Self.profile)
            // The EXIF still says 6: applying it as well would turn the picture twice.
            #expect(ExifOrientation.inTIFF(decoded.exif ?? [])?.rawValue == 6)
        }
    }

    @Test("a mirrored and turned picture (orientation 5..8) and an unturned one")
    func everyOrientation() throws {
        for orientation in 1...8 {
            try withHEIC(orientation: orientation) { path in
                let decoded = try HEIFReader.read(path: path, checkSize: { try StillImageReader.checkSize(width: $0, height: $1, path: path) })
                let expected = ExifOrientation(orientation)!
                let swapped = expected.swapsWidthAndHeight
                #expect(decoded.image.width == (swapped ? 48 : 64), "orientation \(orientation)")
                // Where the stored top-left block shows, by the same mapping EXIF orientation uses for JPEGs.
                let w = decoded.image.width, h = decoded.image.height
                let corners = [(2, 2), (w - 3, 2), (2, h - 3), (w - 3, h - 3)]
                let red = corners.filter { isRed(decoded.image, $0.0, $0.1) }
                let storedOf = corners.map { expected.storedPosition(ofDisplayX: $0.0, y: $0.1, storedWidth: 64, storedHeight: 48) }
                let expectedRed = zip(corners, storedOf).filter { $0.1.x < 16 && $0.1.y < 12 }.map(\.0)
                #expect(red.map { [$0.0, $0.1] } == expectedRed.map { [$0.0, $0.1] }, "orientation \(orientation)")
            }
        }
    }

    @Test("truncated or foreign files are media errors, not crashes")
    func damaged() throws {
        try withHEIC(orientation: 1) { path in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            for cut in [16, bytes.count / 2, bytes.count - 10] {
                try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
                #expect(throws: MediaError.self) { try HEIFReader.read(path: path, checkSize: { try StillImageReader.checkSize(width: $0, height: $1, path: path) }) }
            }
        }
        #expect(!HEIFReader.looksLikeHEIF(Array("\u{89}PNG\r\n\u{1A}\n0000000000".utf8)))
    }
}

@Suite("AVIF output")
struct AVIFWriterTests {
    @Test("libheif writes an AVIF that ffprobe reads as AV1, with its ICC profile; our reader gets the picture back")
    func roundTrip() throws {
        let image = StraightRGBAImage(width: 64, height: 48, pixels: HEIFReaderTests.stored.chunks4())
        let bytes = try AVIFWriter.encode(image, quality: 90, iccProfile: HEIFReaderTests.profile, exif: nil, xmp: nil, path: "t.avif")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-avif-\(UUID().uuidString).avif").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(HEIFReader.looksLikeHEIF(Array(bytes.prefix(64))))
        let decoded = try HEIFReader.read(path: path, checkSize: { try StillImageReader.checkSize(width: $0, height: $1, path: path) })
        #expect(decoded.image.width == 64 && decoded.image.height == 48 && decoded.iccProfile == HEIFReaderTests.profile)
        let i = (4 * 64 + 4) * 4
        #expect(decoded.image.pixels[i] > 200 && decoded.image.pixels[i + 1] < 60)
        let text = try ChildProcess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path]).text
        #expect(text.contains("av1"), "\(text)")
    }
}

extension Array where Element == UInt8 {
    /// RGB triples to opaque RGBA.
    func chunks4() -> [UInt8] {
        var rgba: [UInt8] = []
        for start in stride(from: 0, to: count, by: 3) { rgba += [self[start], self[start + 1], self[start + 2], 255] }
        return rgba
    }
}
