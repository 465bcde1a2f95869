/// A man page being written in roff with the man macros: sections, paragraphs, tagged entries
/// and examples, every piece of text escaped on the way in. What goes in is the plain text
/// `videowm help` prints; what comes out renders under `man --warnings` without a warning.
struct Roff {
    private(set) var text = ""

    /// `.TH`, then no hyphenation and a ragged right edge, so an option such as
    /// `--shared-segments` is never split across lines and reads as typed.
    init(title: String, section: Int, source: String, manual: String) {
        request(".TH \(Self.quoted(title)) \(section) \"\" \(Self.quoted(source)) \(Self.quoted(manual))")
        request(".nh")
        request(".ad l")
    }

    mutating func section(_ name: String) { request(".SH \(name)") }

    mutating func subsection(_ name: String) { request(".SS \(Self.quoted(name))") }

    /// Plain-text paragraphs separated by blank lines: each filled, lines kept as words flow. A
    /// paragraph whose every line is indented (a table, a list of command lines) keeps its lines.
    mutating func paragraphs(_ prose: String) {
        for paragraph in Self.paragraphs(of: prose) {
            let indented = paragraph.allSatisfy { $0.first == " " }
            if indented {
                request(".PP")
                request(".RS 2")
                request(".nf")
                for line in paragraph { request(Self.escape(String(line.trimmingPrefix(while: { $0 == " " })))) }
                request(".fi")
                request(".RE")
            } else {
                request(".PP")
                for line in paragraph { request(Self.escape(String(line.trimmingPrefix(while: { $0 == " " })))) }
            }
        }
    }

    /// One entry of a list: its tag (already in roff, `bold(_:)`) on a line, the text indented below.
    mutating func entry(_ tag: String, _ body: String) {
        request(".TP")
        request(tag)
        request(Self.escape(body))
    }

    /// A paragraph saying what an example does, then its command line(s), not filled.
    mutating func example(_ description: String, _ command: String) {
        request(".PP")
        request(Self.escape(description))
        request(".PP")
        request(".RS 4")
        request(".nf")
        for line in command.split(separator: "\n", omittingEmptySubsequences: false) { request(Self.escape(String(line))) }
        request(".fi")
        request(".RE")
    }

    /// A line of roff as it is (a request, or text already escaped).
    mutating func request(_ line: String) { text += line + "\n" }

    /// Text made safe for roff: backslashes printed as such, every `-` a minus (what options are
    /// typed with, and never a place to break a line), and a line that would start with a
    /// control character (`.` or `'`) starting with a zero-width `\&` instead.
    static func escape(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.first == "." || line.first == "'" ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }

    static func bold(_ text: String) -> String { "\\fB" + escape(text) + "\\fR" }

    static func italic(_ text: String) -> String { "\\fI" + escape(text) + "\\fR" }

    /// A cross-reference, `videowm-transcode(1)`, as `.BR` sets it.
    static func reference(_ name: String, _ section: Int) -> String { "\\fB\(escape(name))\\fR(\(section))" }

    /// A macro argument in double quotes (the text holds none).
    private static func quoted(_ text: String) -> String { "\"" + escape(text) + "\"" }

    /// The paragraphs of plain text: runs of non-blank lines.
    private static func paragraphs(of prose: String) -> [[Substring]] {
        var paragraphs: [[Substring]] = [[]]
        for line in prose.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                if !(paragraphs.last?.isEmpty ?? true) { paragraphs.append([]) }
            } else {
                paragraphs[paragraphs.count - 1].append(line)
            }
        }
        return paragraphs.filter { !$0.isEmpty }
    }
}
