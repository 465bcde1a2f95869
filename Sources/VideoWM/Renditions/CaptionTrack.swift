import Foundation
import Animation

/// One caption: when it shows, relative to the presentation's first picture (0), and its
/// WebVTT cue text (markup WebVTT knows: `<b>`, `<i>`, `<u>`, `&amp;`…).
public struct CaptionCue: Sendable, Equatable {
    /// When the cue shows, on the video's timeline.
    public var start: PresentationTime
    /// When it stops showing.
    public var end: PresentationTime
    /// WebVTT cue payload: one or more lines, none empty, never containing "-->".
    public var text: String
    /// WebVTT cue settings kept from a WebVTT file (`align:start line:10%`), else empty.
    public var settings: String

    /// A cue; `settings` are WebVTT cue settings ("line:90%"), if any.
    public init(start: PresentationTime, end: PresentationTime, text: String, settings: String = "") {
        self.start = start
        self.end = end
        self.text = text
        self.settings = settings
    }
}

/// A caption track that becomes one WebVTT subtitle rendition: its cues, its language and the
/// name players show, and where it came from (for messages).
public struct CaptionTrack: Sendable, Equatable {
    /// RFC 5646 language tag for `LANGUAGE` ("en", "pt-BR"; "und" when unknown).
    public var language: String
    /// What players list (`NAME`), unique within the presentation.
    public var name: String
    /// The cues, in time order.
    public var cues: [CaptionCue]
    /// "lecture.en.srt", "input subtitle stream 2".
    public var origin: String

    /// A track; `origin` names where it came from, for messages.
    public init(language: String, name: String, cues: [CaptionCue], origin: String) {
        self.language = language
        self.name = name
        self.cues = cues
        self.origin = origin
    }
}

/// `--subtitles FILE.vtt|FILE.srt[:LANG[:NAME]]` (or a lecture's `{"file", "language", "name"}`):
/// a sidecar caption file and how it is listed.
public struct SidecarCaptions: Sendable, Equatable {
    /// A caption file's format, from its extension: SubRip (`.srt`) or WebVTT (`.vtt`).
    public enum Format: String, Sendable, Equatable { case subRip = "srt", webVTT = "vtt" }

    /// The caption file's path.
    public var file: String
    /// SubRip or WebVTT.
    public var format: Format
    /// nil: from the file's name (`lecture.de.srt` → "de"), else "und".
    public var language: String?
    /// nil: the language's own name ("Deutsch"), else the language tag.
    public var name: String?

    /// A caption file with its language (nil: from a name like `talk.de.srt`, else "und") and the
    /// name players list (nil: the language's); a `SyntaxError` for another extension, a malformed
    /// tag or an unusable name.
    public init(file: String, language: String? = nil, name: String? = nil) throws(SyntaxError) {
        guard let format = Self.format(of: file) else {
            throw SyntaxError(problem: "'\(file)' is neither .srt nor .vtt")
        }
        if let language { guard LanguageTag.isValid(language) else { throw SyntaxError(problem: "'\(language)' is not a language tag such as en, de or pt-BR") } }
        if let name { guard Self.isValidName(name) else { throw SyntaxError(problem: "the name '\(name)' is empty, too long (over 64 characters), or has a double quote or a control character") } }
        self.file = file
        self.format = format
        self.language = language
        self.name = name
    }

    /// `FILE[:LANG[:NAME]]`: the file is everything up to its `.srt`/`.vtt` extension (so a
    /// folder name may hold a colon); the name may hold colons.
    public init(argument: String) throws(SyntaxError) {
        let lower = argument.lowercased()
        var fileEnd: String.Index?
        for ext in [".srt", ".vtt"] {
            var search = lower.startIndex..<lower.endIndex
            while let found = lower.range(of: ext, range: search) {
                if found.upperBound == lower.endIndex || lower[found.upperBound] == ":" {
                    if fileEnd.map({ found.upperBound > $0 }) ?? true { fileEnd = found.upperBound }
                }
                search = found.upperBound..<lower.endIndex
            }
        }
        guard let fileEnd else {
            throw SyntaxError(problem: "takes FILE.srt or FILE.vtt, optionally followed by :LANGUAGE and :NAME, got '\(argument)'")
        }
        let file = String(argument[..<fileEnd])
        let rest = argument[fileEnd...].dropFirst()
        var language: String?, name: String?
        if fileEnd < argument.endIndex {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            language = parts[0]
            if parts.count == 2 { name = parts[1] }
        }
        try self.init(file: file, language: language, name: name)
    }

    /// Why a `--subtitles` value cannot be read.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, in a phrase.
        public var problem: String
        public var description: String { problem }
    }

    static func format(of file: String) -> Format? {
        switch (file as NSString).pathExtension.lowercased() {
        case "srt": .subRip
        case "vtt": .webVTT
        default: nil
        }
    }

    /// A quoted-string attribute value of HLS may not hold `"`, CR or LF.
    static func isValidName(_ name: String) -> Bool {
        !name.trimmingCharacters(in: .whitespaces).isEmpty && name.count <= 64
            && !name.unicodeScalars.contains { $0 == "\"" || $0.properties.generalCategory == .control }
    }

    /// The language the file's name gives (`lecture.pt-BR.vtt` → "pt-BR"), if any.
    var languageFromFileName: String? {
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let last = (stem as NSString).pathExtension
        guard !last.isEmpty, LanguageTag.isValid(last), LanguageTag.name(of: last) != nil else { return nil }
        return last
    }

    /// Reads and checks the file: every cue, or a `MediaError` naming the file and line (65);
    /// a missing or unreadable file is an `InputError` (66).
    public func load(warn: WarningHandler) throws -> CaptionTrack {
        let text = try CaptionFileText.read(file, warn: warn)
        let cues: [CaptionCue]
        switch format {
        case .subRip: cues = try SubRipReader.cues(in: text, file: file)
        case .webVTT: cues = try WebVTTReader.cues(in: text, file: file)
        }
        let tag = language ?? languageFromFileName ?? "und"
        return CaptionTrack(language: tag, name: name ?? LanguageTag.name(of: tag) ?? tag, cues: cues,
                            origin: (file as NSString).lastPathComponent)
    }
}

/// The text of a caption file: UTF-8 (a byte-order mark dropped), UTF-16 with its mark, or —
/// as many SubRip files are — Windows-1252, read as such with a notice.
enum CaptionFileText {
    static let maximumBytes = 32 << 20

    static func read(_ path: String, warn: WarningHandler) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw InputError.missing(path) }
        guard !isFolder.boolValue else { throw InputError(file: path, problem: .notARegularFile) }
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError(file: path, problem: .permissionDenied) }
        guard data.count <= maximumBytes else { throw MediaError(file: path, detail: "is over 32 MB, too large for a caption file") }
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return try utf8(Array(bytes.dropFirst(3)), path) }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            guard let text = String(data: data, encoding: .utf16) else { throw MediaError(file: path, detail: "is not valid UTF-16 text") }
            return text
        }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        guard !bytes.contains(0) else { throw MediaError(file: path, detail: "is not a text file") }
        warn("\(path): not UTF-8; read as Windows-1252")
        return windows1252(bytes)
    }

    private static func utf8(_ bytes: [UInt8], _ path: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw MediaError(file: path, detail: "is not valid UTF-8 text") }
        return text
    }

    /// Windows-1252: Latin-1 except 0x80–0x9F, which hold typographic characters.
    static func windows1252(_ bytes: [UInt8]) -> String {
        let high: [UInt32] = [0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
                              0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178]
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let value = (0x80...0x9F).contains(byte) ? high[Int(byte) - 0x80] : UInt32(byte)
            // Every value in the table, and every byte, is a scalar (none a surrogate).
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }
}

/// RFC 5646 language tags as far as HLS's `LANGUAGE` needs them, and the names players show.
public enum LanguageTag {
    /// A primary subtag of 2–3 letters (or 4–8), then subtags of 1–8 letters or digits.
    public static func isValid(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = parts.first, (2...8).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// RFC 5646 prefers the two-letter ISO 639-1 code where one exists: a stream's ISO 639-2
    /// "eng"/"ger"/"deu" becomes "en"/"de". Unknown codes are kept.
    public static func preferred(_ code: String) -> String {
        let lower = code.lowercased()
        return threeToTwo[lower] ?? (isValid(code) ? code : "und")
    }

    /// The language's name in itself ("Deutsch"), for the common languages; nil otherwise.
    public static func name(of tag: String) -> String? {
        let primary = String(tag.split(separator: "-").first ?? "").lowercased()
        return names[threeToTwo[primary] ?? primary]
    }

    private static let names: [String: String] = [
        "ar": "العربية", "bn": "বাংলা", "ca": "Català", "cs": "Čeština", "da": "Dansk", "de": "Deutsch", "el": "Ελληνικά",
        "en": "English", "es": "Español", "fa": "فارسی", "fi": "Suomi", "fr": "Français", "he": "עברית", "hi": "हिन्दी",
        "hu": "Magyar", "id": "Bahasa Indonesia", "it": "Italiano", "ja": "日本語", "ko": "한국어", "nl": "Nederlands",
        "no": "Norsk", "pl": "Polski", "pt": "Português", "ro": "Română", "ru": "Русский", "sv": "Svenska", "th": "ไทย",
        "tr": "Türkçe", "uk": "Українська", "vi": "Tiếng Việt", "zh": "中文",
    ]

    private static let threeToTwo: [String: String] = [
        "ara": "ar", "ben": "bn", "cat": "ca", "ces": "cs", "cze": "cs", "dan": "da", "deu": "de", "ger": "de", "ell": "el",
        "gre": "el", "eng": "en", "spa": "es", "fas": "fa", "per": "fa", "fin": "fi", "fra": "fr", "fre": "fr", "heb": "he",
        "hin": "hi", "hun": "hu", "ind": "id", "ita": "it", "jpn": "ja", "kor": "ko", "nld": "nl", "dut": "nl", "nor": "no",
        "pol": "pl", "por": "pt", "ron": "ro", "rum": "ro", "rus": "ru", "swe": "sv", "tha": "th", "tur": "tr", "ukr": "uk",
        "vie": "vi", "zho": "zh", "chi": "zh",
    ]
}
