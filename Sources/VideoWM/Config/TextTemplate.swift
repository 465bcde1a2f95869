/// Text with `{name}` placeholders. `{{` and `}}` stand for literal braces; everything else
/// (`%`, quotes, backslashes, any Unicode) is kept exactly as typed.
public struct TextTemplate: Equatable, Sendable {
    /// A piece of a template: text kept as typed, or a placeholder.
    public enum Segment: Equatable, Sendable {
        /// Text drawn as it is (`{{` and `}}` already made single braces).
        case literal(String)
        /// A `{name}` placeholder, by its name.
        case variable(String)
    }

    /// The template's pieces, in order.
    public let segments: [Segment]

    /// Parses `source`; a malformed placeholder throws `TemplateError`.
    public init(parsing source: String) throws(TemplateError) {
        var segments: [Segment] = []
        var literal = ""
        var chars = source[...]
        while let c = chars.first {
            chars = chars.dropFirst()
            if c == "{" {
                if chars.first == "{" { chars = chars.dropFirst(); literal.append("{"); continue }
                guard let close = chars.firstIndex(of: "}") else {
                    throw TemplateError(problem: "unclosed '{' (write '{{' for a literal brace)")
                }
                let name = String(chars[..<close])
                guard Self.isValidName(name) else {
                    throw TemplateError(problem: "invalid placeholder '{\(name)}': names use letters, digits, '_' and '-' (write '{{' for a literal brace)")
                }
                if !literal.isEmpty { segments.append(.literal(literal)); literal = "" }
                segments.append(.variable(name))
                chars = chars[chars.index(after: close)...]
            } else if c == "}" {
                guard chars.first == "}" else {
                    throw TemplateError(problem: "unmatched '}' (write '}}' for a literal brace)")
                }
                chars = chars.dropFirst()
                literal.append("}")
            } else {
                literal.append(c)
            }
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        self.segments = segments
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == "-" }
    }

    /// The placeholder names the text uses.
    public var variableNames: [String] {
        segments.compactMap { if case .variable(let name) = $0 { name } else { nil } }
    }

    /// The text with every placeholder replaced; values are inserted verbatim.
    /// Callers check `variableNames` against the variables first.
    public func render(_ variables: [String: String]) -> String {
        segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .variable(let name): variables[name] ?? ""
            }
        }.joined()
    }
}

/// A malformed placeholder in a text template; callers say where the template came from.
public struct TemplateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, in a phrase.
    public var problem: String
    public var description: String { problem }
}
