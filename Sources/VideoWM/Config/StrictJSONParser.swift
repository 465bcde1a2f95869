/// A strict RFC 8259 JSON reader for configs, so that every malformed file is reported
/// with the line and column of its first fault ("not valid JSON at line 3, column 28: the
/// number 1e400 is out of range") and a key given twice in one object is an error naming
/// its path, instead of one of the two values being used silently.
///
/// Foundation's `JSONDecoder` reports faults as debug descriptions without positions,
/// keeps one of two duplicate keys and accepts numbers that overflow to infinity.
/// Reading bytes here also makes the checks explicit: UTF-8 is validated (no overlong
/// forms, no surrogates), control characters must be escaped, and nesting is bounded so a
/// file of a million `[` cannot exhaust the stack.
///
/// About 320 lines: one grammar with its error messages, kept together so the reader and the
/// places it reports can be checked against each other in one file.
struct StrictJSONParser {
    /// Objects and arrays nested deeper than this are refused; a watermark config needs four.
    static let maximumDepth = 64

    /// Where and why a document is not valid JSON, or which key it repeats.
    struct Failure: Error, Equatable, Sendable {
        enum Kind: Equatable, Sendable {
            /// Not JSON at all at this place.
            case syntax
            /// Valid JSON, but an object gives the key at `path` twice.
            case duplicateKey(path: String)
        }

        var kind: Kind
        /// 1-based line, and column counted in characters from the line's start.
        var line: Int
        var column: Int
        var problem: String

        var description: String {
            switch kind {
            case .syntax: "not valid JSON at line \(line), column \(column): \(problem)"
            case .duplicateKey: "\(problem) (line \(line), column \(column))"
            }
        }
    }

    private let bytes: [UInt8]
    private var index = 0

    /// Parses a whole document (one value, optional surrounding whitespace and a leading byte-order mark).
    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = StrictJSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value(path: "", depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected \(parser.describeCurrent()) after the end of the document") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: values

    private mutating func value(path: String, depth: Int) throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure("the document ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(path: path, depth: depth + 1)
        case UInt8(ascii: "["): return try array(path: path, depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected \(describeCurrent()) where a value was expected")
        }
    }

    private mutating func object(path: String, depth: Int) throws(Failure) -> JSONValue {
        try checkDepth(depth)
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw failure("expected a key in double quotes, found \(describeCurrent())") }
            let keyStart = index
            let key = try string()
            let childPath = path.isEmpty ? key : "\(path).\(key)"
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw failure("expected ':' after the key \"\(key)\", found \(describeCurrent())") }
            index += 1
            skipWhitespace()
            let member = try value(path: childPath, depth: depth)
            if members.updateValue(member, forKey: key) != nil {
                let place = position(of: keyStart)
                throw Failure(kind: .duplicateKey(path: childPath), line: place.line, column: place.column,
                              problem: "duplicate key: \"\(key)\" is given twice in one object")
            }
            skipWhitespace()
            guard index < bytes.count else { throw failure("the document ends inside an object (a '}' is missing)") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure("expected ',' or '}' after a member, found \(describeCurrent())")
        }
    }

    private mutating func array(path: String, depth: Int) throws(Failure) -> JSONValue {
        try checkDepth(depth)
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(path: "\(path)[\(elements.count)]", depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw failure("the document ends inside an array (a ']' is missing)") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw failure("expected ',' or ']' after an element, found \(describeCurrent())")
        }
    }

    private func checkDepth(_ depth: Int) throws(Failure) {
        if depth > Self.maximumDepth { throw failure("objects and arrays nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw failure("unexpected \(describeCurrent()) where a value was expected")
        }
        index += expected.count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, read as a finite Double.
    private mutating func number() throws(Failure) -> Double {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else if digits() == 0 {
            throw failure("a '-' must be followed by digits")
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard digits() > 0 else { throw failure("a decimal point must be followed by digits") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw failure("an exponent must have digits") }
        }
        if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            throw failure("a number may not start with 0 followed by digits", at: start)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw failure("the number \(text.count > 40 ? String(text.prefix(40)) + "…" : text) is out of range", at: start)
        }
        return value
    }

    /// A string starting at the opening quote: escapes decoded, UTF-8 checked.
    private mutating func string() throws(Failure) -> String {
        index += 1  // "
        var scalars = String.UnicodeScalarView()
        while true {
            guard index < bytes.count else { throw failure("the document ends inside a string (a closing '\"' is missing)") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(try escape())
            case 0:
                throw failure("a NUL byte inside a string (write it as \\u0000 if it is meant)")
            case 0x01..<0x20:
                throw failure("a control character (0x\(hex(byte))) inside a string; line breaks and tabs must be written as \\n and \\t")
            case 0x20..<0x80:
                scalars.append(Unicode.Scalar(byte))
                index += 1
            default:
                scalars.append(try utf8Sequence())
            }
        }
    }

    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        let start = index
        index += 1  // backslash
        guard index < bytes.count else { throw failure("the document ends inside an escape") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hexQuad(escapeStart: start)
            if (0xD800..<0xDC00).contains(first) {
                // A high surrogate must be followed by an escaped low one: together, one character.
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("\\u\(hex16(first)) is half of a surrogate pair without its other half", at: start)
                }
                index += 2
                let second = try hexQuad(escapeStart: start)
                guard (0xDC00..<0xE000).contains(second) else {
                    throw failure("\\u\(hex16(first)) is half of a surrogate pair without its other half", at: start)
                }
                // A high and a low surrogate always join into a scalar of the supplementary planes.
                guard let joined = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else {
                    throw failure("\\u\(hex16(first))\\u\(hex16(second)) is not a character", at: start)
                }
                return joined
            }
            guard let scalar = Unicode.Scalar(first) else {
                throw failure("\\u\(hex16(first)) is half of a surrogate pair without its other half", at: start)
            }
            return scalar
        default:
            throw failure("\\\(describe(letter)) is not a JSON escape (use \\\\ for a backslash)", at: start)
        }
    }

    private mutating func hexQuad(escapeStart: Int) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
                throw failure("\\u must be followed by four hexadecimal digits", at: escapeStart)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// One multi-byte UTF-8 character, strictly: shortest form, no surrogates, at most U+10FFFF.
    private mutating func utf8Sequence() throws(Failure) -> Unicode.Scalar {
        let lead = bytes[index]
        let length: Int, minimum: UInt32
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (length, minimum, value) = (2, 0x80, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, minimum, value) = (3, 0x800, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (length, minimum, value) = (4, 0x10000, UInt32(lead & 0x07))
        default: throw failure("the byte 0x\(hex(lead)) is not UTF-8 (save the config as UTF-8)")
        }
        guard bytes.count - index >= length else { throw failure("the byte 0x\(hex(lead)) starts a UTF-8 character the file cuts short") }
        for offset in 1..<length {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { throw failure("the byte 0x\(hex(lead)) is not UTF-8 (save the config as UTF-8)") }
            value = value << 6 | UInt32(next & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else {
            throw failure("the bytes at this place are not valid UTF-8 (save the config as UTF-8)")
        }
        index += length
        return scalar
    }

    // MARK: helpers

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func describeCurrent() -> String {
        index < bytes.count ? describe(bytes[index]) : "the end of the document"
    }

    private func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0: "a NUL byte"
        case 0x21..<0x7F: "'\(Character(Unicode.Scalar(byte)))'"
        default: "the byte 0x\(hex(byte))"
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return text.count == 1 ? "0" + text : text
    }

    private func hex16(_ value: UInt32) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    private func failure(_ problem: String, at offset: Int? = nil) -> Failure {
        let place = position(of: offset ?? index)
        return Failure(kind: .syntax, line: place.line, column: place.column, problem: problem)
    }

    /// Line and column of a byte offset: lines end at '\n'; a column counts characters, so
    /// UTF-8 continuation bytes do not add to it.
    private func position(of offset: Int) -> (line: Int, column: Int) {
        let end = min(offset, bytes.count)
        var line = 1, lineStart = 0
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let column = bytes[lineStart..<end].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return (line, column)
    }
}
