/// Tesseract could not be started: its library or its model for a language is not installed (or
/// the model is not where `TESSDATA_PREFIX` says), or the engine refused to start. Reading a still's mark needs it.
public struct TextRecognitionError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// The library (`libtesseract.so.5`, opened when a still is first read) is not installed.
        case libraryMissing
        /// `TessBaseAPIInit4` failed for this language: its `.traineddata` file is missing or unreadable.
        case modelMissing(language: String)
        /// `TessBaseAPICreate` returned nothing (out of memory).
        case engineUnavailable
    }

    public var problem: Problem

    public init(_ problem: Problem) { self.problem = problem }

    public var description: String {
        switch problem {
        case .libraryMissing:
            "Tesseract's library (libtesseract.so.5) is not installed (install libtesseract5); it reads the mark's text in a still picture"
        case .modelMissing(let language):
            "Tesseract's '\(language)' model was not found (install tesseract-ocr-\(language), or point TESSDATA_PREFIX at its tessdata folder); "
                + "it reads the mark's text in a still picture"
        case .engineUnavailable:
            "Tesseract could not be started (out of memory)"
        }
    }
}
