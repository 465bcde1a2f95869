/// The EXIF of a still, read from its TIFF structure (what follows "Exif\0\0" in a JPEG's
/// APP1, a PNG's `eXIf` chunk, a WebP's `EXIF` chunk), as four flat lists of entries.
///
/// The pointer entries that tie the directories together (Exif, GPS and interoperability
/// IFD offsets) are not kept as entries: the writer lays the directories out afresh and
/// writes new pointers. IFD1, the embedded thumbnail, is only noted, never kept: it is an
/// unmarked copy of the picture.
public struct ExifContent: Sendable, Equatable {
    public var byteOrder: TIFFByteOrder
    /// IFD0: the primary image's tags (Make, Model, Artist, Copyright, Orientation…).
    public var primary: [TIFFEntry]
    /// The Exif IFD: capture settings, dates, lens, MakerNote.
    public var photo: [TIFFEntry]
    public var gps: [TIFFEntry]
    public var interoperability: [TIFFEntry]
    /// Whether the structure had an IFD1 (a thumbnail image) chained after IFD0.
    public var hadThumbnail: Bool

    public init(byteOrder: TIFFByteOrder = .bigEndian, primary: [TIFFEntry] = [], photo: [TIFFEntry] = [],
                gps: [TIFFEntry] = [], interoperability: [TIFFEntry] = [], hadThumbnail: Bool = false) {
        self.byteOrder = byteOrder
        self.primary = primary
        self.photo = photo
        self.gps = gps
        self.interoperability = interoperability
        self.hadThumbnail = hadThumbnail
    }

    /// Nothing worth writing: no entry in any directory.
    public var isEmpty: Bool { primary.isEmpty && photo.isEmpty && gps.isEmpty && interoperability.isEmpty }

    /// Reads a TIFF structure. A damaged sub-directory (GPS, Exif, interoperability) is left
    /// out rather than failing the whole block; a damaged IFD0 or header throws.
    public init(tiff bytes: [UInt8]) throws {
        let reader = try TIFFReader(bytes)
        let ifd0 = try reader.directory(at: reader.firstDirectory)
        func subdirectory(_ tag: UInt16, in entries: [TIFFEntry]) -> [TIFFEntry] {
            guard let pointer = entries.first(where: { $0.tag == tag }).flatMap(reader.integer),
                  pointer != 0, Int(pointer) != reader.firstDirectory,
                  let directory = try? reader.directory(at: Int(pointer)) else { return [] }
            return directory.entries.filter { !ExifTag.pointers.contains($0.tag) }
        }
        byteOrder = reader.byteOrder
        primary = ifd0.entries.filter { !ExifTag.pointers.contains($0.tag) }
        let exifEntries = ifd0.entries.first { $0.tag == ExifTag.exifPointer }
            .flatMap(reader.integer)
            .flatMap { try? reader.directory(at: Int($0)).entries } ?? []
        photo = exifEntries.filter { !ExifTag.pointers.contains($0.tag) }
        gps = subdirectory(ExifTag.gpsPointer, in: ifd0.entries)
        interoperability = subdirectory(ExifTag.interoperabilityPointer, in: exifEntries)
        hadThumbnail = ifd0.next != 0
    }

    /// The first entry with `tag` in the directory that holds it.
    public func entry(_ tag: UInt16, in directory: KeyPath<ExifContent, [TIFFEntry]> = \.primary) -> TIFFEntry? {
        self[keyPath: directory].first { $0.tag == tag }
    }

    /// The text of an ASCII (or EXIF 3.0 UTF-8) entry, up to its first NUL. Bytes that are not
    /// UTF-8 are read as Latin-1, which is what older cameras wrote.
    public func text(_ tag: UInt16, in directory: KeyPath<ExifContent, [TIFFEntry]> = \.primary) -> String? {
        guard let entry = entry(tag, in: directory), entry.type == 2 || entry.type == 129 else { return nil }
        let bytes = entry.value.prefix { $0 != 0 }
        return String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    /// The numeric value of a one-value SHORT or LONG entry (Orientation, for instance).
    public func integer(_ tag: UInt16, in directory: KeyPath<ExifContent, [TIFFEntry]> = \.primary) -> UInt32? {
        guard let entry = entry(tag, in: directory) else { return nil }
        let header: [UInt8] = byteOrder == .littleEndian ? [0x49, 0x49, 42, 0, 8, 0, 0, 0] : [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        return (try? TIFFReader(header))?.integer(entry)
    }

    /// Sets (or with nil removes) a text entry: UTF-8 bytes and a NUL, typed ASCII.
    ///
    /// EXIF's ASCII type is nominally 7-bit, but UTF-8 in it is what Windows, Adobe tools and
    /// phones write, and what exiftool and Pillow read back; EXIF 3.0's UTF-8 type (129) is
    /// still unknown to many readers. The XMP packet carries the same text in Unicode proper.
    public mutating func setText(_ text: String?, for tag: UInt16) {
        primary.removeAll { $0.tag == tag }
        guard let text else { return }
        let bytes = Array(text.utf8.prefix { $0 != 0 }) + [0]
        primary.append(TIFFEntry(tag: tag, type: 2, count: UInt32(bytes.count), value: bytes))
    }
}

/// Tag numbers this package reads, keeps or drops, with why where it matters.
public enum ExifTag {
    // Pointers between directories: rewritten by the writer, never copied.
    public static let exifPointer: UInt16 = 0x8769
    public static let gpsPointer: UInt16 = 0x8825
    public static let interoperabilityPointer: UInt16 = 0xA005
    static let pointers: Set<UInt16> = [exifPointer, gpsPointer, interoperabilityPointer]

    // IFD0
    public static let imageDescription: UInt16 = 0x010E
    public static let make: UInt16 = 0x010F
    public static let model: UInt16 = 0x0110
    public static let orientation: UInt16 = 0x0112
    public static let dateTime: UInt16 = 0x0132
    public static let artist: UInt16 = 0x013B
    public static let copyright: UInt16 = 0x8298

    // Exif IFD
    public static let exifVersion: UInt16 = 0x9000
    public static let dateTimeOriginal: UInt16 = 0x9003
    public static let dateTimeDigitized: UInt16 = 0x9004
    public static let offsetTime: UInt16 = 0x9010
    public static let offsetTimeOriginal: UInt16 = 0x9011
    public static let offsetTimeDigitized: UInt16 = 0x9012
    public static let makerNote: UInt16 = 0x927C
    public static let subSecTime: UInt16 = 0x9290
    public static let subSecTimeOriginal: UInt16 = 0x9291
    public static let subSecTimeDigitized: UInt16 = 0x9292
    public static let pixelXDimension: UInt16 = 0xA002
    public static let pixelYDimension: UInt16 = 0xA003
    public static let lensSpecification: UInt16 = 0xA432
    public static let lensMake: UInt16 = 0xA433
    public static let lensModel: UInt16 = 0xA434
}
