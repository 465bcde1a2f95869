/// A four-character code: a box type, a sample entry's format, a protection scheme (ISO/IEC 14496-12 §4.2).
public struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let value: UInt32

    public init(value: UInt32) { self.value = value }

    /// Four ASCII characters.
    public init(_ text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.count == 4, "a four-character code has four ASCII characters")
        value = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    public init(stringLiteral text: String) { self.init(text) }

    public var bytes: [UInt8] { [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }

    /// The characters, with anything unprintable as `?` (codes come from outside).
    public var description: String {
        String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
