/// Reading the TIFF structure that EXIF blocks (and TIFF files) are made of: a byte-order
/// header, then image file directories (IFDs) of 12-byte entries whose values sit inline
/// (4 bytes or fewer) or at an offset from the header.
///
/// Everything read from outside is checked against the data's bounds before use: a count or
/// offset that points past the end, an IFD chain that loops, or a field type this reader does
/// not know gives an error or a skipped entry, never a crash or a large allocation.

/// The byte order a TIFF structure declares: "II" (little-endian) or "MM" (big-endian).
public enum TIFFByteOrder: Sendable, Equatable {
    case littleEndian, bigEndian
}

/// A TIFF structure that could not be read.
public struct TIFFStructureError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// One IFD entry, its value copied out as raw bytes in the structure's byte order (so an
/// entry can be written back unchanged into a structure of the same byte order).
public struct TIFFEntry: Sendable, Equatable {
    public var tag: UInt16
    /// TIFF field type: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL, 6 SBYTE, 7 UNDEFINED,
    /// 8 SSHORT, 9 SLONG, 10 SRATIONAL, 11 FLOAT, 12 DOUBLE, 13 IFD, 129 UTF-8 (EXIF 3.0).
    public var type: UInt16
    public var count: UInt32
    /// `count` × the type's size bytes.
    public var value: [UInt8]

    public init(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8]) {
        precondition(Self.size(ofType: type).map { Int(count) * $0 == value.count } ?? false, "value length must match type and count")
        self.tag = tag
        self.type = type
        self.count = count
        self.value = value
    }

    /// The size in bytes of one value of a field type; nil for a type this code does not know
    /// (such an entry's length cannot be known, so it is skipped rather than guessed).
    public static func size(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7, 129: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }
}

/// Bounds-checked reads from a TIFF structure held in memory.
struct TIFFReader {
    let bytes: [UInt8]
    let byteOrder: TIFFByteOrder
    /// The offset of IFD0.
    let firstDirectory: Int

    /// Entries in one IFD above this are refused: real files have a few dozen, and the limit
    /// keeps a hostile count from costing time.
    static let maximumEntries = 4096
    /// One value above this is refused (a whole EXIF block fits in 64 KB in a JPEG).
    static let maximumValueBytes = 16 << 20

    init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 8 else { throw TIFFStructureError("shorter than a TIFF header") }
        let byteOrder: TIFFByteOrder
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): byteOrder = .littleEndian
        case (0x4D, 0x4D): byteOrder = .bigEndian
        default: throw TIFFStructureError("no TIFF byte-order mark (II or MM)")
        }
        let header = TIFFReader(bytes: bytes, byteOrder: byteOrder, firstDirectory: 0)
        guard header.u16(at: 2) == 42, let first = header.u32(at: 4) else { throw TIFFStructureError("no TIFF magic number 42") }
        self.init(bytes: bytes, byteOrder: byteOrder, firstDirectory: Int(first))
    }

    private init(bytes: [UInt8], byteOrder: TIFFByteOrder, firstDirectory: Int) {
        self.bytes = bytes
        self.byteOrder = byteOrder
        self.firstDirectory = firstDirectory
    }

    func u16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return byteOrder == .littleEndian ? a | b << 8 : a << 8 | b
    }

    func u32(at offset: Int) -> UInt32? {
        guard let a = u16(at: offset), let b = u16(at: offset + 2) else { return nil }
        return byteOrder == .littleEndian ? UInt32(a) | UInt32(b) << 16 : UInt32(a) << 16 | UInt32(b)
    }

    /// The numeric value of a SHORT or LONG entry with one value (how pointers and
    /// Orientation are stored), in this structure's byte order.
    func integer(_ entry: TIFFEntry) -> UInt32? {
        guard entry.count == 1 else { return nil }
        let reader = TIFFReader(bytes: entry.value + [0, 0, 0, 0], byteOrder: byteOrder, firstDirectory: 0)
        switch entry.type {
        case 3: return reader.u16(at: 0).map(UInt32.init)
        case 4, 13: return reader.u32(at: 0)
        default: return nil
        }
    }

    /// The entries of the IFD at `offset` and the offset of the next IFD (0: none).
    /// Entries of unknown type, or whose value lies outside the data, are left out.
    func directory(at offset: Int) throws -> (entries: [TIFFEntry], next: Int) {
        guard let count = u16(at: offset) else { throw TIFFStructureError("an IFD offset (\(offset)) points outside the data") }
        guard Int(count) <= Self.maximumEntries else { throw TIFFStructureError("an IFD declares \(count) entries") }
        guard offset + 2 + Int(count) * 12 + 4 <= bytes.count else { throw TIFFStructureError("an IFD runs past the end of the data") }
        var entries: [TIFFEntry] = []
        entries.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let at = offset + 2 + index * 12
            // Inside the data: checked for the whole IFD above.
            guard let tag = u16(at: at), let type = u16(at: at + 2), let valueCount = u32(at: at + 4) else { break }
            guard let unit = TIFFEntry.size(ofType: type) else { continue }
            let (length, overflow) = Int(valueCount).multipliedReportingOverflow(by: unit)
            guard !overflow, length <= Self.maximumValueBytes else { continue }
            guard let start = length <= 4 ? at + 8 : u32(at: at + 8).map({ Int($0) }), start + length <= bytes.count else { continue }
            entries.append(TIFFEntry(tag: tag, type: type, count: valueCount, value: Array(bytes[start..<start + length])))
        }
        return (entries, Int(u32(at: offset + 2 + Int(count) * 12) ?? 0))
    }

    /// The offsets of IFD0 and every IFD chained after it (TIFF pages; in EXIF, IFD1 is the
    /// thumbnail), stopping at a loop or at an offset outside the data.
    func directoryChain(limit: Int = 10_000) -> [Int] {
        var offsets: [Int] = []
        var seen = Set<Int>()
        var offset = firstDirectory
        while offset != 0, offsets.count < limit, seen.insert(offset).inserted, let count = u16(at: offset) {
            let nextAt = offset + 2 + Int(count) * 12
            guard let next = u32(at: nextAt) else { break }
            offsets.append(offset)
            offset = Int(next)
        }
        return offsets
    }
}

/// What stamping needs to know about a TIFF file before FFmpeg decodes its first page.
public struct TIFFFileSummary: Sendable, Equatable {
    /// The number of images (IFDs chained from IFD0): more than one is a multi-page TIFF.
    public let pageCount: Int
    /// IFD0's Orientation tag (1…8), when present and valid.
    public let orientation: Int?

    /// Reads the header and the IFD chain of a TIFF file's bytes (a memory-mapped file is fine:
    /// only the directories are touched).
    public init(tiffFile bytes: [UInt8]) throws {
        let reader = try TIFFReader(bytes)
        let chain = reader.directoryChain()
        guard let first = chain.first else { throw TIFFStructureError("no image directory") }
        pageCount = chain.count
        let entries = try reader.directory(at: first).entries
        orientation = entries.first { $0.tag == 0x0112 }.flatMap(reader.integer).map(Int.init).flatMap { (1...8).contains($0) ? $0 : nil }
    }
}
