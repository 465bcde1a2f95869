/// A Swift file read as the compiler's lexer reads it, as far as the architecture tests need: identifiers,
/// punctuation and string literals, with comments (line, block — nested —, doc) left out. A string literal
/// (`"…"`, multi-line `"""`, raw `#"…"#`, and extended regex literals `#/…/#`) is one token whatever it
/// holds, so a word in a message is no dependency; the code of an interpolation `\(…)` is code and is
/// lexed. Bare `/…/` regex literals are not told from division (Sources use none).
struct SwiftSource {
    enum Kind: Equatable { case identifier, number, punctuation, string }

    struct Token: Equatable {
        var kind: Kind
        /// The identifier (without backticks), the number, the punctuation character, or a string literal's text
        /// between its delimiters (escapes as written, interpolations left out).
        var text: String
        /// 1-based.
        var line: Int
    }

    let tokens: [Token]
    /// The text with every comment replaced by spaces (line breaks kept, so line numbers hold), for
    /// checks that look at lines of code.
    let codeText: String

    init(_ text: String) {
        var lexer = Lexer(Array(text.utf8))
        lexer.code(inInterpolation: false)
        tokens = lexer.tokens
        codeText = String(decoding: lexer.blanked, as: UTF8.self)
    }

    /// The identifiers that may name a type: every one not after a `.` (a member, not a type of ours;
    /// the last dot of `...` is an operator's).
    var typeNames: [String] {
        tokens.indices.compactMap { i in
            guard tokens[i].kind == .identifier else { return nil }
            let afterDot = i > 0 && tokens[i - 1] == Token(kind: .punctuation, text: ".", line: tokens[i - 1].line)
                && !(i > 1 && tokens[i - 2].kind == .punctuation && tokens[i - 2].text == ".")
            return afterDot ? nil : tokens[i].text
        }
    }

    /// The types the file declares at its top level (classes, structs, enums, protocols, actors, type aliases);
    /// nested types belong to their outer type.
    var topLevelTypes: [String] {
        var depth = 0, names: [String] = []
        for (i, token) in tokens.enumerated() {
            switch (token.kind, token.text) {
            case (.punctuation, "{"): depth += 1
            case (.punctuation, "}"): depth -= 1
            case (.identifier, "class"), (.identifier, "struct"), (.identifier, "enum"), (.identifier, "protocol"),
                 (.identifier, "actor"), (.identifier, "typealias"):
                if depth == 0, i + 1 < tokens.count, tokens[i + 1].kind == .identifier { names.append(tokens[i + 1].text) }
            default: break
            }
        }
        return names
    }

    /// The modules the file imports, with the access level written before `import` ("" when none):
    /// `internal import CFFmpeg` is ("internal", "CFFmpeg").
    var imports: [(access: String, module: String)] {
        tokens.indices.compactMap { i in
            guard tokens[i].kind == .identifier, tokens[i].text == "import", i + 1 < tokens.count,
                  tokens[i + 1].kind == .identifier else { return nil }
            let before = i > 0 && tokens[i - 1].kind == .identifier ? tokens[i - 1].text : ""
            let access = ["public", "package", "internal", "fileprivate", "private"].contains(before) ? before : ""
            return (access, tokens[i + 1].text)
        }
    }
}

/// The lexer's state: the bytes, where it is, and what it found.
private struct Lexer {
    let bytes: [UInt8]
    var blanked: [UInt8]
    var at = 0
    var line = 1
    var tokens: [SwiftSource.Token] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        blanked = bytes
    }

    func byte(_ offset: Int = 0) -> UInt8? { at + offset < bytes.count ? bytes[at + offset] : nil }

    /// Whether `pattern` is next, compared byte by byte (no copies: this runs for every byte of a literal).
    func matches(_ pattern: [UInt8]) -> Bool {
        guard at + pattern.count <= bytes.count else { return false }
        for (k, b) in pattern.enumerated() where bytes[at + k] != b { return false }
        return true
    }

    static let blockOpening = Array("/*".utf8), blockClosing = Array("*/".utf8), tripleQuote = Array("\"\"\"".utf8)

    static func isIdentifierByte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b >= 0x80
    }

    /// Code up to the end of the text, or (in an interpolation) up to the `)` that closes it.
    mutating func code(inInterpolation: Bool) {
        var parentheses = 0
        while let b = byte() {
            switch b {
            case 0x0A: line += 1; at += 1
            case 0x20, 0x09, 0x0D: at += 1
            case 0x2F where byte(1) == 0x2F: lineComment()
            case 0x2F where byte(1) == 0x2A: blockComment()
            case 0x22: literal()
            case 0x23 where poundsBeforeLiteral() != nil: literal()
            case 0x60:
                let start = at + 1
                at = start
                while let c = byte(), c != 0x60, c != 0x0A { at += 1 }
                append(.identifier, bytes[start..<at])
                at += 1
            case _ where Self.isIdentifierByte(b) && !(b >= 0x30 && b <= 0x39) || b == 0x24:
                let start = at
                at += 1
                while let c = byte(), Self.isIdentifierByte(c) { at += 1 }
                append(.identifier, bytes[start..<at])
            case 0x30...0x39:
                // A number: digits, letters (hex, exponents), underscores, a dot only before a digit.
                let start = at
                at += 1
                while let c = byte(), Self.isIdentifierByte(c) || (c == 0x2E && (byte(1).map { $0 >= 0x30 && $0 <= 0x39 } ?? false)) { at += 1 }
                append(.number, bytes[start..<at])
            default:
                if inInterpolation && b == 0x28 { parentheses += 1 }
                if inInterpolation && b == 0x29 {
                    if parentheses == 0 { at += 1; return }
                    parentheses -= 1
                }
                append(.punctuation, bytes[at...at])
                at += 1
            }
        }
    }

    mutating func append(_ kind: SwiftSource.Kind, _ text: ArraySlice<UInt8>) {
        tokens.append(.init(kind: kind, text: String(decoding: text, as: UTF8.self), line: line))
    }

    /// The number of `#` before a `"` or `/` that opens a literal here (0 for a plain `"`), or nil.
    func poundsBeforeLiteral() -> Int? {
        var pounds = 0
        while byte(pounds) == 0x23 { pounds += 1 }
        guard let next = byte(pounds) else { return nil }
        return next == 0x22 || (next == 0x2F && pounds > 0) ? pounds : nil
    }

    mutating func blank(_ range: Range<Int>) {
        for i in range where bytes[i] != 0x0A { blanked[i] = 0x20 }
    }

    mutating func lineComment() {
        let start = at
        while let b = byte(), b != 0x0A { at += 1 }
        blank(start..<at)
    }

    mutating func blockComment() {
        let start = at
        var depth = 0
        repeat {
            if matches(Self.blockOpening) { depth += 1; at += 2 } else if matches(Self.blockClosing) { depth -= 1; at += 2 } else {
                if byte() == 0x0A { line += 1 }
                at += 1
            }
        } while depth > 0 && at < bytes.count
        blank(start..<at)
    }

    /// A string literal (or an extended regex literal) from its first `#` or quote; interpolations are lexed as code.
    mutating func literal() {
        guard let pounds = poundsBeforeLiteral() else { return }
        let startLine = line
        at += pounds
        let isRegex = byte() == 0x2F
        let opening = isRegex ? "/" : matches(Self.tripleQuote) ? "\"\"\"" : "\""
        at += opening.utf8.count
        let closing = Array((opening + String(repeating: "#", count: pounds)).utf8)
        let escape = Array(("\\" + String(repeating: "#", count: pounds)).utf8)
        // The literal's token comes before those of its interpolations.
        let index = tokens.count
        tokens.append(.init(kind: .string, text: "", line: startLine))
        var text: [UInt8] = []
        while at < bytes.count {
            if matches(closing) {
                at += closing.count
                break
            }
            if !isRegex && at + escape.count < bytes.count && matches(escape) {
                if bytes[at + escape.count] == 0x28 {
                    at += escape.count + 1
                    code(inInterpolation: true)
                    continue
                }
                text += bytes[at...at + escape.count]
                at += escape.count + 1
                continue
            }
            if bytes[at] == 0x0A { line += 1 }
            text.append(bytes[at])
            at += 1
        }
        tokens[index].text = String(decoding: text, as: UTF8.self)
    }
}
