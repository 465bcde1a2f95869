/// A file's name part taken from its content: the first 16 hex digits (64 bits) of its SHA-256,
/// so two different files share a name with probability about n²/2⁶⁵ — under 10⁻⁸ for a
/// million segments in one folder — and the same bytes always get the same name.
enum ContentName {
    static let length = 16

    static func of(_ bytes: UnsafeRawBufferPointer) -> String {
        hex(ContentDigest.sha256(bytes).prefix(length / 2))
    }

    static func of(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { of($0) }
    }

    static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `text` is a name part this type makes.
    static func isName<S: StringProtocol>(_ text: S) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
