import Foundation
import Testing
@testable import ImageMetadata

/// EXIF read from exiftool-tagged JPEGs, selected, written into a clean JPEG and read back by exiftool.
@Suite("EXIF: read, select, write")
struct ExifSelectionTests {
    /// A JPEG with `cameraTags`, XMP rights and creator, and a thumbnail, in `byteOrder` ("II" or "MM").
    func taggedJPEG(_ f: Fixtures, byteOrder: String) throws -> [UInt8] {
        try f.plainStill("thumb.jpg")
        try f.plainStill("camera.jpg")
        try f.tag("camera.jpg", ["-ExifByteOrder=\(byteOrder)"] + cameraTags + ["-ThumbnailImage<=thumb.jpg"])
        return try f.bytes("camera.jpg")
    }

    /// `blocks` inserted into a JPEG that has none, written as `name`.
    func stamped(_ f: Fixtures, _ blocks: StillMetadataBlocks, name: String) throws {
        try f.plainStill("clean-\(name)")
        try f.write(try blocks.inserted(intoJPEG: try f.bytes("clean-\(name)")), to: name)
    }

    @Test("both byte orders are read: texts, Orientation, GPS, the thumbnail noticed", arguments: ["II", "MM"])
    func readsBothByteOrders(byteOrder: String) throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        let blocks = StillMetadataBlocks(jpeg: try taggedJPEG(f, byteOrder: byteOrder))
        let exif = try ExifContent(tiff: try #require(blocks.exif))
        #expect(exif.byteOrder == (byteOrder == "II" ? .littleEndian : .bigEndian))
        #expect(exif.text(ExifTag.copyright) == "Ada Lovelace 2024")
        #expect(exif.text(ExifTag.artist) == "Ada Lovelace")
        #expect(exif.text(ExifTag.make) == "ExampleCam")
        #expect(exif.text(ExifTag.dateTimeOriginal, in: \.photo) == "2024:05:06 07:08:09")
        #expect(exif.text(ExifTag.lensModel, in: \.photo) == "EC 35mm F2")
        #expect(exif.integer(ExifTag.orientation) == 6)
        #expect(exif.gps.count >= 4)
        #expect(!exif.interoperability.isEmpty)
        #expect(exif.hadThumbnail)
    }

    @Test("safe keeps authorship, dates, camera and lens; drops GPS, thumbnail, Orientation, serial, exposure", arguments: ["II", "MM"])
    func safeSelection(byteOrder: String) throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        let exif = try ExifContent(tiff: try #require(StillMetadataBlocks(jpeg: try taggedJPEG(f, byteOrder: byteOrder)).exif))
        let kept = try #require(exif.selected(.safe, edits: MetadataEdits(), pictureSize: (64, 48)))
        try stamped(f, StillMetadataBlocks(exif: kept.tiffBytes()), name: "safe.jpg")
        let tags = try f.read("safe.jpg")
        #expect(tags["IFD0:Copyright"] == "Ada Lovelace 2024")
        #expect(tags["IFD0:Artist"] == "Ada Lovelace")
        #expect(tags["ExifIFD:DateTimeOriginal"] == "2024:05:06 07:08:09")
        #expect(tags["ExifIFD:CreateDate"] == "2024:05:06 07:08:09")
        #expect(tags["ExifIFD:OffsetTimeOriginal"] == "+02:00")
        #expect(tags["IFD0:Make"] == "ExampleCam" && tags["IFD0:Model"] == "EC-1")
        #expect(tags["ExifIFD:LensModel"] == "EC 35mm F2")
        #expect(tags["ExifIFD:ExifImageWidth"] == "64" && tags["ExifIFD:ExifImageHeight"] == "48")
        #expect(!tags.keys.contains { $0.hasPrefix("GPS:") }, "\(tags.keys.sorted())")
        #expect(!tags.keys.contains { $0.hasPrefix("IFD1:") }, "\(tags.keys.sorted())")
        #expect(tags["IFD0:Orientation"] == nil)
        #expect(tags["ExifIFD:SerialNumber"] == nil && tags["ExifIFD:ExposureTime"] == nil)
        let problems = try f.validationProblems("safe.jpg")
        #expect(problems == [], "\(problems)")
    }

    @Test("all keeps GPS, exposure and interoperability; never the thumbnail or Orientation", arguments: ["II", "MM"])
    func allSelection(byteOrder: String) throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        let exif = try ExifContent(tiff: try #require(StillMetadataBlocks(jpeg: try taggedJPEG(f, byteOrder: byteOrder)).exif))
        let kept = try #require(exif.selected(.all, edits: MetadataEdits()))
        try stamped(f, StillMetadataBlocks(exif: kept.tiffBytes()), name: "all.jpg")
        let tags = try f.read("all.jpg")
        #expect(tags["IFD0:Copyright"] == "Ada Lovelace 2024")
        #expect(tags["GPS:GPSLatitude"].flatMap(Double.init).map { abs($0 - 48.8583) < 1e-6 } == true)
        #expect(tags["GPS:GPSLongitudeRef"] == "E")
        #expect(tags["ExifIFD:ExposureTime"] == "0.01" && tags["ExifIFD:SerialNumber"] == "SN123456")
        #expect(tags["InteropIFD:InteropIndex"] == "R98")
        #expect(!tags.keys.contains { $0.hasPrefix("IFD1:") }, "\(tags.keys.sorted())")
        #expect(tags["IFD0:Orientation"] == nil)
        let problems = try f.validationProblems("all.jpg")
        #expect(problems == [], "\(problems)")
    }

    @Test("--set-metadata replaces copyright and artist, in EXIF and XMP, with any Unicode", arguments: [MetadataKept.none, .safe, .all])
    func setMetadata(kept: MetadataKept) throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        let input = StillMetadataBlocks(jpeg: try taggedJPEG(f, byteOrder: "II"))
        var edits = MetadataEdits()
        try edits.add("copyright=© Example U", for: .still)
        try edits.add("Artist=Zoë \"Z\" <Ng> & co = 1", for: .still)
        let inputExif = try ExifContent(tiff: try #require(input.exif))
        let exif = try #require(inputExif.selected(kept, edits: edits))
        let xmp = try #require(XMPPacket.selected(from: input.xmp.flatMap(XMPPacket.init), kept, edits: edits))
        try stamped(f, StillMetadataBlocks(exif: exif.tiffBytes(), xmp: xmp.serialized()), name: "set.jpg")
        let tags = try f.read("set.jpg")
        #expect(tags["IFD0:Copyright"] == "© Example U")
        #expect(tags["IFD0:Artist"] == "Zoë \"Z\" <Ng> & co = 1")
        #expect(tags["XMP-dc:Rights"] == "© Example U")
        #expect(tags["XMP-dc:Creator"] == "Zoë \"Z\" <Ng> & co = 1")
        #expect((tags["IFD0:Make"] != nil) == (kept != .none))
        let problems = try f.validationProblems("set.jpg")
        #expect(problems == [], "\(problems)")
    }

    @Test("none without edits writes nothing; an input without EXIF gets only the edits")
    func nothingToWrite() throws {
        #expect(ExifContent(primary: [TIFFEntry(tag: ExifTag.make, type: 2, count: 2, value: [65, 0])]).selected(.none, edits: MetadataEdits()) == nil)
        #expect(ExifContent.fromEdits(MetadataEdits()) == nil)
        let only = try #require(ExifContent.fromEdits(MetadataEdits(copyright: "C")))
        #expect(only.primary.map(\.tag) == [ExifTag.copyright] && only.photo.isEmpty)
    }
}
