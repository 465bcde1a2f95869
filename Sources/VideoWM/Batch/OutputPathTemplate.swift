import Foundation

/// The `--output` template of a batch, such as `out/{course}/{id}.mp4`: the placeholders of
/// the watermark text, filled with a row's values made safe for file names.
///
/// A value can never move an output out of the template's directory (the literal part
/// before the first placeholder): values lose `/`, control characters, leading dots and
/// dashes, and the resolved path is checked again as a whole.
public struct OutputPathTemplate: Sendable {
    /// The template as given (`out/{id}.mp4`).
    public let source: String
    let template: TextTemplate
    /// The directory every output must stay inside, as path components ([] for the current directory).
    let baseComponents: [String]

    /// The longest file-name component Linux file systems take, in bytes.
    static let maximumComponentBytes = 255

    /// Reads `source`; a malformed placeholder or a template without one is a `RequestError`.
    public init(_ source: String) throws {
        self.source = source
        do {
            template = try TextTemplate(parsing: source)
        } catch {
            throw RequestError(subject: "--output", problem: "'\(source)': \(error.problem)")
        }
        guard !template.variableNames.isEmpty else {
            throw RequestError(subject: "--output", problem: "'\(source)' has no placeholder, so every row would write the same file (use e.g. 'out/{id}.mp4')")
        }
        guard !source.hasSuffix("/") else { throw RequestError(subject: "--output", problem: "'\(source)' names a folder; end it with a file name such as {id}.mp4") }
        var literalPrefix = ""
        if case .literal(let text)? = template.segments.first { literalPrefix = text }
        let directoryPart = literalPrefix.lastIndex(of: "/").map { String(literalPrefix[...$0]) } ?? ""
        baseComponents = Self.normalizedComponents(of: directoryPart)
    }

    /// The placeholders the template uses; each must be a column (or a --var).
    public var variableNames: [String] { template.variableNames }

    /// The folder outputs stay inside ("." when the template starts with a placeholder).
    public var baseDirectory: String {
        Self.path(of: baseComponents)
    }

    /// The output path for these values, or an error saying why it cannot be used.
    func resolve(_ variables: [String: String]) throws(RequestError) -> String {
        let safe = variables.mapValues(Self.safeFileNameText)
        let path = template.render(safe)
        let components = Self.normalizedComponents(of: path)
        // Lexically normalised, the path must begin with the base directory and add only plain names.
        guard components.count > baseComponents.count, Array(components.prefix(baseComponents.count)) == baseComponents,
              components.dropFirst(baseComponents.count).allSatisfy({ $0 != ".." && $0 != "." })
        else {
            throw RequestError(subject: nil, problem: "the output '\(path)' would not be inside \(baseDirectory)")
        }
        if let long = components.first(where: { $0.utf8.count > Self.maximumComponentBytes }) {
            throw RequestError(subject: nil, problem: "the output name '\(long.prefix(40))…' is longer than \(Self.maximumComponentBytes) bytes")
        }
        return path
    }

    /// `path` split into components, with empty and `.` components dropped and `a/..` pairs
    /// removed; a leading `/` stays as the component "/" so absolute and relative never compare equal.
    static func normalizedComponents(of path: String) -> [String] {
        var result: [String] = path.hasPrefix("/") ? ["/"] : []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                if let last = result.last, last != "..", last != "/" { result.removeLast() } else { result.append("..") }
            default: result.append(String(part))
            }
        }
        return result
    }

    /// The path written by `components` (the inverse of `normalizedComponents`).
    static func path(of components: [String]) -> String {
        guard let first = components.first else { return "." }
        return first == "/" ? "/" + components.dropFirst().joined(separator: "/") : components.joined(separator: "/")
    }

    /// A value made safe as (part of) one file name. Letters of any script, digits, `@`,
    /// spaces and punctuation stay; what could change the path or hide in a listing does not:
    /// `/` and `\` become `_`, as do NUL, control and bidirectional-override characters;
    /// `..` becomes `__`; a leading `.` (a hidden file, or `..`) or `-` (read as an option by
    /// the next tool) becomes `_`.
    public static func safeFileNameText(_ value: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            scalars.append(isUnsafe(scalar) ? "_" : scalar)
        }
        var text = String(scalars)
        while text.contains("..") { text = text.replacingOccurrences(of: "..", with: "__") }
        if let first = text.unicodeScalars.first, first == "." || first == "-" {
            text = "_" + String(text.unicodeScalars.dropFirst())
        }
        return text
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "/" || scalar == "\\" { return true }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: break
        }
        // Bidirectional overrides and isolates can make "gpj.exe" display as "exe.jpg".
        return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            || scalar.value == 0x200E || scalar.value == 0x200F
    }
}
