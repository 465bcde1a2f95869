/// The base64url alphabet without padding (RFC 4648 §5), as JSON Web Tokens use it (RFC 7515 §2).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = Int8(value) }
        return table
    }()

    /// The bytes `text` encodes, or nil when it is not unpadded base64url (padding, other
    /// characters, a length no encoding has, or leftover bits that are not zero).
    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            let value = values[Int(character)]
            guard value >= 0 else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { return nil }  // a canonical encoding leaves no stray bits
        return bytes
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for byte in chunk { value = (value << 8) | UInt32(byte) }
            value <<= UInt32(8 * (3 - chunk.count))
            for position in 0..<(chunk.count + 1) { text.append(alphabet[Int((value >> UInt32(18 - 6 * position)) & 63)]) }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }
}
