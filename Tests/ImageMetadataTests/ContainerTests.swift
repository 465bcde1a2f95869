import Foundation
import Testing
@testable import ImageMetadata

/// EXIF and XMP put into PNG and WebP files that ffmpeg encoded; exiftool and ffmpeg read them back.
@Suite("metadata in PNG and WebP")
struct ContainerTests {
    static let blocks: StillMetadataBlocks = {
        let exif = ExifContent.fromEdits(MetadataEdits(copyright: "© Example U", artist: "Ada"))!
        let xmp = XMPPacket.selected(from: nil, .none, edits: MetadataEdits(copyright: "© Example U"))!
        return StillMetadataBlocks(exif: exif.tiffBytes(), xmp: xmp.serialized())
    }()

    func check(_ f: Fixtures, _ name: String, inserting: ([UInt8]) throws -> [UInt8], reading: ([UInt8]) -> StillMetadataBlocks) throws {
        let before = try f.run("ffmpeg", ["-v", "error", "-i", name, "-f", "framemd5", "-"])
        let bytes = try inserting(try f.bytes(name))
        try f.write(bytes, to: "tagged-\(name)")
        let tags = try f.read("tagged-\(name)")
        #expect(tags.first { $0.key.hasSuffix(":Copyright") }?.value == "© Example U", "\(name): \(tags)")
        #expect(tags["XMP-dc:Rights"] == "© Example U", "\(name)")
        let problems = try f.validationProblems("tagged-\(name)")
        #expect(problems == [], "\(problems)")
        // The picture itself decodes to the same pixels.
        #expect(try f.run("ffmpeg", ["-v", "error", "-i", "tagged-\(name)", "-f", "framemd5", "-"]) == before, "\(name)")
        #expect(reading(bytes) == Self.blocks, "\(name)")
    }

    @Test("PNG: eXIf and iTXt chunks before IDAT, CRCs right")
    func png() throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        try f.plainStill("p.png")
        try check(f, "p.png", inserting: Self.blocks.inserted(intoPNG:), reading: StillMetadataBlocks.init(png:))
    }

    @Test("WebP: lossy, lossless and alpha files get a VP8X header and EXIF/XMP chunks",
          arguments: [("lossy.webp", ["-c:v", "libwebp"]), ("lossless.webp", ["-c:v", "libwebp", "-lossless", "1"]),
                      ("alpha.webp", ["-c:v", "libwebp", "-pix_fmt", "yuva420p"])])
    func webp(name: String, codec: [String]) throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        try f.plainStill(name, codecArguments: codec)
        try check(f, name, inserting: Self.blocks.inserted(intoWebP:), reading: StillMetadataBlocks.init(webp:))
    }

    @Test("a JPEG segment over 64 KB is refused, not cut")
    func tooLarge() throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        try f.plainStill("j.jpg")
        #expect(throws: MetadataTooLarge.self) {
            try StillMetadataBlocks(xmp: [UInt8](repeating: 0x20, count: 70_000)).inserted(intoJPEG: try f.bytes("j.jpg"))
        }
    }
}
