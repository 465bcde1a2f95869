import Foundation
import Testing
@testable import ImageMetadata

@Suite("XMP: read, select, write")
struct XMPTests {
    func taggedJPEG(_ f: Fixtures) throws -> [UInt8] {
        try f.plainStill("camera.jpg")
        try f.tag("camera.jpg", cameraTags)
        return try f.bytes("camera.jpg")
    }

    func stamped(_ f: Fixtures, xmp: XMPPacket, name: String) throws -> [String: String] {
        try f.plainStill("clean-\(name)")
        try f.write(try StillMetadataBlocks(xmp: xmp.serialized()).inserted(intoJPEG: try f.bytes("clean-\(name)")), to: name)
        let problems = try f.validationProblems(name)
        #expect(problems == [], "\(problems)")
        return try f.read(name)
    }

    @Test("exiftool's XMP is read: rights (x-default), creators in order, orientation")
    func reads() throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        let packet = try #require(StillMetadataBlocks(jpeg: try taggedJPEG(f)).xmp.flatMap(XMPPacket.init))
        #expect(packet.rights == "Ada Lovelace 2024 (XMP)")
        #expect(packet.creators == ["Ada Lovelace", "Charles Babbage"])
        #expect(packet.hasOrientation)
    }

    @Test("safe writes a new packet: rights, creators, dates; no GPS, orientation or rating")
    func safe() throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        let input = StillMetadataBlocks(jpeg: try taggedJPEG(f)).xmp.flatMap(XMPPacket.init)
        let tags = try stamped(f, xmp: try #require(XMPPacket.selected(from: input, .safe, edits: MetadataEdits())), name: "safe.jpg")
        #expect(tags["XMP-dc:Rights"] == "Ada Lovelace 2024 (XMP)")
        #expect(tags["XMP-dc:Creator"] == "Ada Lovelace, Charles Babbage")
        #expect(tags["XMP-photoshop:DateCreated"] == "2024:05:06 07:08:09")
        #expect(tags["XMP-tiff:Orientation"] == nil && tags["XMP-exif:GPSLatitude"] == nil && tags["XMP-xmp:Rating"] == nil)
    }

    @Test("all keeps the packet minus orientation; GPS and rating stay")
    func all() throws {
        let f = try Fixtures()
        defer { f.cleanUp() }
        let input = StillMetadataBlocks(jpeg: try taggedJPEG(f)).xmp.flatMap(XMPPacket.init)
        let tags = try stamped(f, xmp: try #require(XMPPacket.selected(from: input, .all, edits: MetadataEdits())), name: "all.jpg")
        #expect(tags["XMP-tiff:Orientation"] == nil)
        #expect(tags["XMP-exif:GPSLatitude"] != nil && tags["XMP-xmp:Rating"] == "4")
        #expect(tags["XMP-dc:Rights"] == "Ada Lovelace 2024 (XMP)")
        // The input's packet was left as it was.
        #expect(input?.hasOrientation == true)
    }

    @Test("properties written as attributes are found and removed by namespace, whatever the prefix")
    func attributeForm() throws {
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <r:Description r:about="" xmlns:t="http://ns.adobe.com/tiff/1.0/" xmlns:d="http://purl.org/dc/elements/1.1/"
             t:Orientation="8" t:Make="Cam"><d:rights><r:Alt><r:li xml:lang="en">en</r:li><r:li xml:lang="x-default">default</r:li></r:Alt></d:rights>
            </r:Description></r:RDF></x:xmpmeta>
            """
        let packet = try #require(XMPPacket(Array(text.utf8)))
        #expect(packet.hasOrientation && packet.rights == "default")
        let all = try #require(XMPPacket.selected(from: packet, .all, edits: MetadataEdits(artist: "A & B")))
        let reread = try #require(XMPPacket(all.serialized()))
        #expect(!reread.hasOrientation && reread.rights == "default" && reread.creators == ["A & B"])
        #expect(reread.values("http://ns.adobe.com/tiff/1.0/", "Make") == ["Cam"])
    }

    @Test("malformed XML is no packet; none without edits is no packet")
    func malformed() {
        #expect(XMPPacket(Array("<x:xmpmeta><unclosed>".utf8)) == nil)
        #expect(XMPPacket(Array("<a/>".utf8)) == nil)
        #expect(XMPPacket([]) == nil)
        #expect(XMPPacket.selected(from: nil, .all, edits: MetadataEdits()) == nil)
        #expect(XMPPacket.selected(from: nil, .none, edits: MetadataEdits(copyright: "c"))?.rights == "c")
    }
}
