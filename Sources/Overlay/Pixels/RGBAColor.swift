/// An 8-bit straight-alpha colour.
public struct RGBAColor: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let clear = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)

    /// An ARGB integer as used by Android/TPStreams configs (`0xFFFFFFFF` is opaque white).
    public init(argb: UInt32) {
        self.init(red: UInt8(truncatingIfNeeded: argb >> 16), green: UInt8(truncatingIfNeeded: argb >> 8),
                  blue: UInt8(truncatingIfNeeded: argb), alpha: UInt8(truncatingIfNeeded: argb >> 24))
    }

    /// Parses `#RGB`, `#RRGGBB` and `#AARRGGBB`; nil for anything else.
    public init?(hex: String) {
        guard hex.hasPrefix("#") else { return nil }
        let digits = Array(hex.dropFirst())
        // ASCII only: Character.isHexDigit also takes fullwidth digits, which UInt8(_:radix:) does not.
        guard digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        func value(_ s: ArraySlice<Character>) -> UInt8 { UInt8(String(s), radix: 16) ?? 0 }
        switch digits.count {
        case 3:
            let r = value(digits[0...0]), g = value(digits[1...1]), b = value(digits[2...2])
            self.init(red: r * 17, green: g * 17, blue: b * 17)
        case 6:
            self.init(red: value(digits[0..<2]), green: value(digits[2..<4]), blue: value(digits[4..<6]))
        case 8:
            self.init(red: value(digits[2..<4]), green: value(digits[4..<6]), blue: value(digits[6..<8]), alpha: value(digits[0..<2]))
        default:
            return nil
        }
    }

    /// This colour with its alpha multiplied by `opacity` (0…1).
    public func withOpacity(_ opacity: Double) -> RGBAColor {
        var c = self
        c.alpha = UInt8((Double(alpha) * min(max(opacity, 0), 1)).rounded())
        return c
    }

    public var description: String {
        func h(_ v: UInt8) -> String { let s = String(v, radix: 16, uppercase: true); return s.count == 1 ? "0" + s : s }
        return "#" + h(alpha) + h(red) + h(green) + h(blue)
    }
}
