import Testing
@testable import ImageMetadata

@Suite("TIFF structure")
struct TIFFStructureTests {
    /// A hand-built TIFF: `pages` IFDs chained, each with ImageWidth and (in IFD0) Orientation.
    static func tiffFile(pages: Int, orientation: UInt16 = 3, loop: Bool = false) -> [UInt8] {
        var writer = TIFFWriter(byteOrder: .littleEndian)
        writer.header(firstDirectory: 8)
        var bytes = writer.output
        for page in 0..<pages {
            var entries: [(tag: UInt16, value: UInt16)] = [(0x0100, 16)]
            if page == 0 { entries.append((0x0112, orientation)) }
            let start = bytes.count
            bytes += writer.bytes16(UInt16(entries.count))
            for (tag, value) in entries { bytes += writer.bytes16(tag) + writer.bytes16(3) + writer.bytes32(1) + writer.bytes16(value) + [0, 0] }
            let next = page == pages - 1 ? (loop ? 8 : 0) : start + 2 + 12 * entries.count + 4
            bytes += writer.bytes32(UInt32(next))
        }
        return bytes
    }

    @Test("page count and IFD0 orientation of a TIFF file; a looping chain ends")
    func summary() throws {
        let single = try TIFFFileSummary(tiffFile: Self.tiffFile(pages: 1))
        #expect(single.pageCount == 1 && single.orientation == 3)
        #expect(try TIFFFileSummary(tiffFile: Self.tiffFile(pages: 3, orientation: 6)).pageCount == 3)
        #expect(try TIFFFileSummary(tiffFile: Self.tiffFile(pages: 2, loop: true)).pageCount == 2)
        #expect(try TIFFFileSummary(tiffFile: Self.tiffFile(pages: 1, orientation: 9)).orientation == nil)
    }

    @Test("write then read gives the same content, in both byte orders")
    func roundTrip() throws {
        for order in [TIFFByteOrder.littleEndian, .bigEndian] {
            let w = TIFFWriter(byteOrder: order)
            var content = ExifContent(byteOrder: order)
            content.setText("Odd length!", for: ExifTag.copyright)
            content.primary.append(TIFFEntry(tag: ExifTag.orientation, type: 3, count: 1, value: w.bytes16(6)))
            content.photo = [TIFFEntry(tag: ExifTag.exifVersion, type: 7, count: 4, value: Array("0232".utf8)),
                             TIFFEntry(tag: 0x829A, type: 5, count: 1, value: w.bytes32(1) + w.bytes32(100))]
            content.gps = [TIFFEntry(tag: 0x0001, type: 2, count: 2, value: [78, 0]),
                           TIFFEntry(tag: 0x0002, type: 5, count: 3, value: (0..<6).flatMap { w.bytes32(UInt32($0)) })]
            content.interoperability = [TIFFEntry(tag: 0x0001, type: 2, count: 4, value: Array("R98\u{0}".utf8))]
            let bytes = content.tiffBytes()
            var read = try ExifContent(tiff: bytes)
            for list in [\ExifContent.primary, \.photo, \.gps, \.interoperability] as [WritableKeyPath<ExifContent, [TIFFEntry]>] {
                read[keyPath: list].sort { $0.tag < $1.tag }
                content[keyPath: list].sort { $0.tag < $1.tag }
            }
            #expect(read == content)
            #expect(read.integer(ExifTag.orientation) == 6)
        }
    }

    @Test("every truncation and every corrupted byte of an EXIF block is survived")
    func hostile() throws {
        var content = ExifContent()
        content.setText("Ada", for: ExifTag.artist)
        content.setText("A longer copyright text", for: ExifTag.copyright)
        content.gps = [TIFFEntry(tag: 0x0001, type: 2, count: 2, value: [78, 0])]
        let good = content.tiffBytes()
        for cut in 0..<good.count { _ = try? ExifContent(tiff: Array(good.prefix(cut))) }
        for index in good.indices {
            for value: UInt8 in [0x00, 0x08, 0xFF] {
                var bad = good
                bad[index] = value
                _ = try? ExifContent(tiff: bad)
                _ = try? TIFFFileSummary(tiffFile: bad)
            }
        }
        #expect(throws: TIFFStructureError.self) { try ExifContent(tiff: Array("not a TIFF".utf8)) }
    }
}

@Suite("--set-metadata arguments")
struct MetadataEditsTests {
    @Test("KEY=VALUE per target; value kept exactly; unknown, repeated and malformed refused")
    func parsing() throws {
        var edits = MetadataEdits()
        try edits.add("copyright=a=b ", for: .still)
        #expect(edits.copyright == "a=b ")
        #expect(throws: MetadataArgumentError.self) { try edits.add("copyright=again", for: .still) }
        #expect(throws: MetadataArgumentError.self) { try edits.add("title=T", for: .still) }
        #expect(throws: MetadataArgumentError.self) { try edits.add("copyright", for: .still) }
        var video = MetadataEdits()
        try video.add("title=Lecture 1", for: .video)
        try video.add("comment=", for: .video)
        #expect(video == MetadataEdits(title: "Lecture 1", comment: ""))
        do {
            try video.add("artist=x", for: .video)
            Issue.record("artist accepted for video")
        } catch {
            #expect(error.description == "--set-metadata artist: videos take title, comment, copyright")
        }
    }
}
