/// Reads the bits of an H.264 NAL unit's payload as the decoder sees them (ITU-T H.264 §7.2: emulation prevention
/// bytes removed, `00 00 03` read as `00 00`), while remembering where in the NAL unit's stored bytes the last bit
/// read lies — the slice header's end in the bytes a subsample must leave clear.
struct RBSPBitReader {
    private let bytes: [UInt8]
    private let end: Int
    /// Index of the next stored byte to load.
    private var next: Int
    private var current: UInt8 = 0
    private var bitsLeft = 0
    private var zeros = 0
    /// Index just past the stored byte that holds the last bit read.
    private(set) var storedEnd: Int
    let location: String

    /// Reads `range` of `bytes` (the payload after the NAL header byte).
    init(_ bytes: [UInt8], range: Range<Int>, location: String) {
        self.bytes = bytes
        end = range.upperBound
        next = range.lowerBound
        storedEnd = range.lowerBound
        self.location = location
    }

    private mutating func load() throws(MP4StructureError) {
        guard next < end else { throw .malformed(location, "the NAL unit ends inside its header") }
        var byte = bytes[next]
        if zeros >= 2 && byte == 3 {
            next += 1
            zeros = 0
            guard next < end else { throw .malformed(location, "the NAL unit ends inside its header") }
            byte = bytes[next]
        }
        zeros = byte == 0 ? zeros + 1 : 0
        current = byte
        next += 1
        storedEnd = next
        bitsLeft = 8
    }

    mutating func bit() throws(MP4StructureError) -> UInt32 {
        if bitsLeft == 0 { try load() }
        bitsLeft -= 1
        return UInt32(current >> bitsLeft) & 1
    }

    mutating func flag() throws(MP4StructureError) -> Bool { try bit() == 1 }

    /// `u(n)`, n ≤ 32.
    mutating func bits(_ count: Int) throws(MP4StructureError) -> UInt32 {
        precondition(count <= 32, "at most 32 bits at once")
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try bit()) }
        return value
    }

    /// `ue(v)`: unsigned Exp-Golomb (§9.1).
    mutating func unsignedExpGolomb() throws(MP4StructureError) -> UInt32 {
        var leadingZeros = 0
        while try bit() == 0 {
            leadingZeros += 1
            guard leadingZeros < 32 else { throw .malformed(location, "an Exp-Golomb code longer than 32 bits") }
        }
        return leadingZeros == 0 ? 0 : (UInt32(1) << leadingZeros) - 1 + (try bits(leadingZeros))
    }

    /// `se(v)`: signed Exp-Golomb (§9.1.1).
    mutating func signedExpGolomb() throws(MP4StructureError) -> Int32 {
        let code = try unsignedExpGolomb()
        return code % 2 == 1 ? Int32(code / 2 + 1) : -Int32(code / 2)
    }

    /// A `ue(v)` that must lie in `range` (an id, a count that sizes what follows).
    mutating func unsignedExpGolomb(in range: ClosedRange<UInt32>, _ name: String) throws(MP4StructureError) -> UInt32 {
        let value = try unsignedExpGolomb()
        guard range.contains(value) else { throw .malformed(location, "\(name) \(value) outside \(range.lowerBound)…\(range.upperBound)") }
        return value
    }
}
