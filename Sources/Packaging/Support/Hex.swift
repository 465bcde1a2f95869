import Foundation

/// Hexadecimal and base64 text of bytes, as key files, MPDs and playlists write them.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex digits, two per byte.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits (either case), or nil for anything else.
    static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    static func isDigit(_ byte: UInt8) -> Bool { value(byte) != nil }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

enum Base64 {
    static func string(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// The bytes of base64 text; whitespace (line breaks in XML) is ignored. Nil when it is not base64.
    static func bytes(_ text: String) -> [UInt8]? {
        let compact = text.filter { !$0.isWhitespace }
        return Data(base64Encoded: compact).map { [UInt8]($0) }
    }
}
