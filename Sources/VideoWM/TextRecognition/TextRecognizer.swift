import CTesseract
import Foundation
import LeakTrace

/// What Tesseract read in one picture: its lines, each with its words, their confidence
/// (0…100, Tesseract's own) and their boxes in the picture's pixels.
public struct RecognizedText: Sendable, Equatable {
    public struct Word: Sendable, Equatable {
        public var text: String
        public var confidence: Double
        public var box: PlaneRect
        /// Each character's box, in the order of `text`'s characters (a symbol Tesseract read as
        /// several characters gives each the symbol's box).
        public var characterBoxes: [PlaneRect]
    }

    public struct Line: Sendable, Equatable {
        public var words: [Word]
        /// The words joined by single spaces.
        public var text: String { words.map(\.text).joined(separator: " ") }
        /// The mean of the words' confidences, weighted by their lengths.
        public var confidence: Double {
            let weights = words.map { Double(max($0.text.count, 1)) }
            let total = weights.reduce(0, +)
            return total > 0 ? zip(words, weights).map { $0.confidence * $1 }.reduce(0, +) / total : 0
        }
        /// The boxes of its characters, spaces between words left out.
        public var characterBoxes: [PlaneRect] { words.flatMap(\.characterBoxes) }
        /// The box around its words.
        public var box: PlaneRect {
            words.dropFirst().reduce(words.first?.box ?? PlaneRect(minX: 0, minY: 0, maxX: 0, maxY: 0)) { $0.union($1.box) }
        }
    }

    public var lines: [Line]
}

/// One Tesseract engine (`TessBaseAPI`, its C API), started with a language's model: reads
/// the text in grey pictures, one at a time (an engine is not shared between threads).
///
/// Started for marks rather than pages: no dictionary (an e-mail address is no word, and the
/// dictionaries push readings towards words), and, when given, only the characters the marks
/// can hold. Tesseract's own messages are sent to /dev/null.
final class TextRecognizer {
    /// How the text is laid out in the pictures given.
    enum Layout {
        /// One line of text (a mark's line, cut out).
        case singleLine
        /// A block of a few lines (a mark wrapped onto two).
        case block
        /// Text anywhere, in no particular order.
        case sparse

        var pageSegmentation: TessPageSegMode {
            switch self {
            case .singleLine: PSM_SINGLE_LINE
            case .block: PSM_SINGLE_BLOCK
            case .sparse: PSM_SPARSE_TEXT
            }
        }
    }

    private let api: OpaquePointer

    /// Starts an engine for `language` (a tessdata model name, "eng"), its model found where
    /// Tesseract looks (`TESSDATA_PREFIX`, else the distribution's folder). `characters`, when
    /// given, are the only ones it may read.
    init(language: String = "eng", characters: String? = nil) throws {
        guard videowm_tesseract_available() != 0 else { throw TextRecognitionError(.libraryMissing) }
        guard let api = videowm_TessBaseAPICreate() else { throw TextRecognitionError(.engineUnavailable) }
        self.api = api
        // Set before the model loads: these decide which dictionaries are read at all.
        let settings = [("load_system_dawg", "0"), ("load_freq_dawg", "0"), ("debug_file", "/dev/null")]
        let started = withCStrings(settings.map(\.0)) { names in
            withCStrings(settings.map(\.1)) { values in
                videowm_TessBaseAPIInit4(api, nil, language, OEM_LSTM_ONLY, nil, 0, names, values, settings.count, 0)
            }
        }
        guard started == 0 else { throw TextRecognitionError(.modelMissing(language: language)) }
        if let characters { videowm_TessBaseAPISetVariable(api, "tessedit_char_whitelist", characters) }
    }

    deinit { videowm_TessBaseAPIDelete(api) }

    /// Reads `picture` (dark text on a light ground reads best), laid out as `layout` says.
    func read(_ picture: LumaImage, layout: Layout) -> RecognizedText {
        var bytes = [UInt8](repeating: 255, count: picture.width * picture.height)
        for index in bytes.indices { bytes[index] = UInt8(min(max(picture.pixels[index] + 0.5, 0), 255)) }
        videowm_TessBaseAPISetPageSegMode(api, layout.pageSegmentation)
        bytes.withUnsafeBufferPointer { buffer in
            videowm_TessBaseAPISetImage(api, buffer.baseAddress, Int32(picture.width), Int32(picture.height), 1, Int32(picture.width))
            // A resolution stated keeps Tesseract from guessing one (and saying so on stderr).
            videowm_TessBaseAPISetSourceResolution(api, 300)
            _ = videowm_TessBaseAPIRecognize(api, nil)
        }
        defer { videowm_TessBaseAPIClear(api) }
        return RecognizedText(lines: lines())
    }

    /// The recognised words grouped by line, from the engine's result iterator walked a
    /// character at a time: where each character is says where a reading's part lies.
    private func lines() -> [RecognizedText.Line] {
        guard let iterator = videowm_TessBaseAPIGetIterator(api) else { return [] }
        defer { videowm_TessResultIteratorDelete(iterator) }
        let page = videowm_TessResultIteratorGetPageIterator(iterator)
        var lines: [RecognizedText.Line] = []
        var current: [RecognizedText.Word] = []
        var word: RecognizedText.Word?
        func endWord() {
            if let finished = word, !finished.text.isEmpty { current.append(finished) }
            word = nil
        }
        repeat {
            if videowm_TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                endWord()
                if !current.isEmpty { lines.append(RecognizedText.Line(words: current)) }
                current = []
            }
            if videowm_TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0 {
                endWord()
                if let box = Self.box(page, level: RIL_WORD) {
                    word = RecognizedText.Word(text: "", confidence: Double(videowm_TessResultIteratorConfidence(iterator, RIL_WORD)), box: box, characterBoxes: [])
                }
            }
            guard word != nil, let text = videowm_TessResultIteratorGetUTF8Text(iterator, RIL_SYMBOL) else { continue }
            defer { videowm_TessDeleteText(text) }
            let symbol = String(cString: text)
            guard !symbol.isEmpty, let box = Self.box(page, level: RIL_SYMBOL) ?? word?.box else { continue }
            word?.text += symbol
            word?.characterBoxes += Array(repeating: box, count: symbol.count)
        } while videowm_TessResultIteratorNext(iterator, RIL_SYMBOL) != 0
        endWord()
        if !current.isEmpty { lines.append(RecognizedText.Line(words: current)) }
        return lines
    }

    private static func box(_ page: OpaquePointer?, level: TessPageIteratorLevel) -> PlaneRect? {
        var (left, top, right, bottom): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        guard videowm_TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
        return PlaneRect(minX: Double(left), minY: Double(top), maxX: Double(right), maxY: Double(bottom))
    }
}

/// Calls `body` with `strings` as an array of C strings that live for the call.
private func withCStrings<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
    var pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { buffer in
        // An empty list still needs an address to pass.
        guard let base = buffer.baseAddress else {
            var none: UnsafeMutablePointer<CChar>? = nil
            return body(&none)
        }
        return body(base)
    }
}
