/// Big-endian reading of a byte range with every read checked against the range's end: data from outside is
/// never trusted to be as long as its fields say.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var position: Int
    let end: Int
    /// Named in errors ("moof/traf[1]/trun").
    let location: String

    init(_ bytes: [UInt8], range: Range<Int>? = nil, location: String) {
        self.bytes = bytes
        let range = range ?? 0..<bytes.count
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "a reader's range lies inside its bytes")
        position = range.lowerBound
        end = range.upperBound
        self.location = location
    }

    var remaining: Int { end - position }

    private mutating func take(_ count: Int) throws(MP4StructureError) -> Range<Int> {
        guard count >= 0, count <= remaining else {
            throw .malformed(location, "\(count) bytes expected at offset \(position), \(remaining) left")
        }
        defer { position += count }
        return position..<position + count
    }

    mutating func skip(_ count: Int) throws(MP4StructureError) { _ = try take(count) }

    mutating func u8() throws(MP4StructureError) -> UInt8 { bytes[try take(1).lowerBound] }

    mutating func u16() throws(MP4StructureError) -> UInt16 {
        let at = try take(2).lowerBound
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    mutating func u24() throws(MP4StructureError) -> UInt32 {
        let at = try take(3).lowerBound
        return UInt32(bytes[at]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2])
    }

    mutating func u32() throws(MP4StructureError) -> UInt32 {
        let at = try take(4).lowerBound
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + $1]) }
    }

    mutating func u64() throws(MP4StructureError) -> UInt64 {
        let at = try take(8).lowerBound
        return (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) }
    }

    mutating func bytes(_ count: Int) throws(MP4StructureError) -> [UInt8] { Array(bytes[try take(count)]) }
}

/// Big-endian writing into a growing byte array.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)] }
    mutating func u24(_ value: UInt32) {
        precondition(value < 1 << 24, "a 24-bit field holds less than 2^24")
        bytes += [UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    mutating func u32(_ value: UInt32) {
        bytes += [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    mutating func u64(_ value: UInt64) {
        u32(UInt32(value >> 32))
        u32(UInt32(truncatingIfNeeded: value))
    }
    mutating func append(_ other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }
    mutating func fourCC(_ code: FourCC) { u32(code.value) }

    /// Overwrites four bytes at `offset` with `value` (a field whose value is known only after what follows it).
    mutating func patch32(at offset: Int, _ value: UInt32) {
        bytes.replaceSubrange(offset..<offset + 4, with: [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                                                          UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
