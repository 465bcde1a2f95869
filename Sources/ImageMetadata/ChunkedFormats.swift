/// The chunk layouts of PNG (length, type, data, CRC-32; big-endian) and WebP's RIFF
/// (type, little-endian length, data, padding to even), read with bounds checks.

/// The chunks of a PNG file after its signature; iteration stops at a chunk that runs past the end.
struct PNGChunks: Sequence {
    struct Chunk {
        let type: String
        let data: ArraySlice<UInt8>
        /// Offset of the chunk's length field in the file.
        let start: Int
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes.starts(with: Self.signature) ? bytes : [] }

    func makeIterator() -> AnyIterator<Chunk> {
        var at = Self.signature.count
        return AnyIterator {
            guard at + 12 <= bytes.count else { return nil }
            let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - at - 12 else { return nil }
            let chunk = Chunk(type: String(decoding: bytes[at + 4..<at + 8], as: UTF8.self),
                              data: bytes[at + 8..<at + 8 + length], start: at)
            at += 12 + length
            return chunk
        }
    }

    static func encode(type: String, data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        return bigEndian32(data.count) + typeAndData + bigEndian32(Int(CRC32.checksum(typeAndData)))
    }

    static func bigEndian32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(value >> (8 * $0) & 0xFF) } }
}

/// The chunks of a WebP file (RIFF "WEBP").
struct RIFFChunks: Sequence {
    struct Chunk {
        let type: String
        let data: ArraySlice<UInt8>
        let start: Int
    }

    let bytes: [UInt8]

    init(webp bytes: [UInt8]) {
        let isWebP = bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)) && Array(bytes[8..<12]) == Array("WEBP".utf8)
        self.bytes = isWebP ? bytes : []
    }

    func makeIterator() -> AnyIterator<Chunk> {
        var at = 12
        return AnyIterator {
            guard at + 8 <= bytes.count else { return nil }
            let length = bytes[at + 4..<at + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - at - 8 else { return nil }
            let chunk = Chunk(type: String(decoding: bytes[at..<at + 4], as: UTF8.self), data: bytes[at + 8..<at + 8 + length], start: at)
            at += 8 + length + length % 2
            return chunk
        }
    }

    static func encode(type: String, data: ArraySlice<UInt8>) -> [UInt8] {
        Array(type.utf8) + littleEndian32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    /// The picture size and alpha use of a simple WebP's image chunk: a VP8 key frame header
    /// (14-bit sizes after the start code 9D 01 2A) or a VP8L header (signature 0x2F, then
    /// 14-bit width−1 and height−1 and an alpha bit).
    static func canvas(of chunk: Chunk) -> (width: Int, height: Int, alpha: Bool)? {
        let d = Array(chunk.data)
        switch chunk.type {
        case "VP8 ":
            guard d.count >= 10, d[3] == 0x9D, d[4] == 0x01, d[5] == 0x2A else { return nil }
            return ((Int(d[6]) | Int(d[7]) << 8) & 0x3FFF, (Int(d[8]) | Int(d[9]) << 8) & 0x3FFF, false)
        case "VP8L":
            guard d.count >= 5, d[0] == 0x2F else { return nil }
            let bits = Int(d[1]) | Int(d[2]) << 8 | Int(d[3]) << 16 | Int(d[4]) << 24
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1, bits >> 28 & 1 == 1)
        default:
            return nil
        }
    }
}

/// CRC-32 as PNG defines it (ISO 3309, polynomial 0xEDB88320, reflected).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
