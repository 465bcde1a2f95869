/// Writes `ExifContent` as a fresh TIFF structure: header, IFD0, Exif IFD, interoperability
/// IFD, GPS IFD, each followed by its values longer than four bytes, every offset even (TIFF's
/// word alignment), entries in ascending tag order, and no IFD1: the thumbnail is never written.
extension ExifContent {
    /// The TIFF structure, ready to follow "Exif\0\0" in an APP1 segment, to fill a PNG `eXIf`
    /// chunk or a WebP `EXIF` chunk. Values are copied byte for byte, so the byte order stays
    /// the one they were read in.
    public func tiffBytes() -> [UInt8] {
        // An interoperability IFD hangs off the Exif IFD; without one it cannot be reached.
        let interop = photo.isEmpty ? [] : interoperability
        var ifd0 = primary, exif = photo
        // Placeholder pointers: four-byte LONGs, so they do not change any directory's size.
        let placeholder = [UInt8](repeating: 0, count: 4)
        if !exif.isEmpty { ifd0.append(TIFFEntry(tag: ExifTag.exifPointer, type: 4, count: 1, value: placeholder)) }
        if !gps.isEmpty { ifd0.append(TIFFEntry(tag: ExifTag.gpsPointer, type: 4, count: 1, value: placeholder)) }
        if !interop.isEmpty { exif.append(TIFFEntry(tag: ExifTag.interoperabilityPointer, type: 4, count: 1, value: placeholder)) }

        let ifd0Offset = 8
        let exifOffset = ifd0Offset + Self.blockSize(ifd0)
        let interopOffset = exifOffset + (exif.isEmpty ? 0 : Self.blockSize(exif))
        let gpsOffset = interopOffset + (interop.isEmpty ? 0 : Self.blockSize(interop))

        var writer = TIFFWriter(byteOrder: byteOrder)
        func pointer(_ offset: Int) -> [UInt8] { writer.bytes32(UInt32(offset)) }
        ifd0 = ifd0.map { entry in
            var entry = entry
            if entry.tag == ExifTag.exifPointer { entry.value = pointer(exifOffset) }
            if entry.tag == ExifTag.gpsPointer { entry.value = pointer(gpsOffset) }
            return entry
        }
        exif = exif.map { entry in
            var entry = entry
            if entry.tag == ExifTag.interoperabilityPointer { entry.value = pointer(interopOffset) }
            return entry
        }
        writer.header(firstDirectory: ifd0Offset)
        writer.directory(ifd0)
        if !exif.isEmpty { writer.directory(exif) }
        if !interop.isEmpty { writer.directory(interop) }
        if !gps.isEmpty { writer.directory(gps) }
        return writer.output
    }

    /// Bytes an IFD with these entries takes, its long values included and padded to even.
    static func blockSize(_ entries: [TIFFEntry]) -> Int {
        2 + 12 * entries.count + 4 + entries.reduce(0) { total, entry in
            entry.value.count > 4 ? total + (entry.value.count + 1) / 2 * 2 : total
        }
    }
}

/// Appends TIFF structures' parts in one byte order.
struct TIFFWriter {
    let byteOrder: TIFFByteOrder
    private(set) var output: [UInt8] = []

    init(byteOrder: TIFFByteOrder) { self.byteOrder = byteOrder }

    func bytes16(_ value: UInt16) -> [UInt8] {
        let bytes = [UInt8(value & 0xFF), UInt8(value >> 8)]
        return byteOrder == .littleEndian ? bytes : bytes.reversed()
    }

    func bytes32(_ value: UInt32) -> [UInt8] {
        let low = bytes16(UInt16(value & 0xFFFF)), high = bytes16(UInt16(value >> 16))
        return byteOrder == .littleEndian ? low + high : high + low
    }

    mutating func header(firstDirectory: Int) {
        output += byteOrder == .littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        output += bytes16(42) + bytes32(UInt32(firstDirectory))
    }

    /// One IFD at the current (even) end of the output, its long values right after it, and a
    /// next-IFD offset of 0: every directory here ends its chain.
    mutating func directory(_ entries: [TIFFEntry]) {
        precondition(output.count % 2 == 0, "IFDs start on a word boundary")
        let sorted = entries.sorted { $0.tag < $1.tag }
        var valueOffset = output.count + 2 + 12 * sorted.count + 4
        var values: [UInt8] = []
        output += bytes16(UInt16(sorted.count))
        for entry in sorted {
            output += bytes16(entry.tag) + bytes16(entry.type) + bytes32(entry.count)
            if entry.value.count <= 4 {
                output += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                output += bytes32(UInt32(valueOffset))
                values += entry.value
                if entry.value.count % 2 == 1 { values.append(0) }
                valueOffset += (entry.value.count + 1) / 2 * 2
            }
        }
        output += bytes32(0)
        output += values
    }
}
