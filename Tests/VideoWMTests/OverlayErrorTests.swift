import Foundation
import Overlay
import Testing
@testable import VideoWM

/// A layer the compositor cannot draw is reported like any config error: the config file,
/// the layer's JSON path and field, and the exit status docs/design/contract.md gives, already when the
/// job's compositor is made (before any output exists).
@Suite("overlay errors")
struct OverlayErrorTests {
    static func config(_ json: String) throws -> WatermarkConfig {
        try WatermarkConfig.parse(Data(json.utf8), file: "marks.json", baseDirectory: "/configs", warn: { _ in })
    }

    /// The error `Compositor.forJob` throws for `json` with `variables`.
    static func jobError(_ json: String, variables: [String: String] = [:]) throws -> LayerError? {
        do {
            _ = try Compositor.forJob(config: try config(json), variables: variables, warn: { _ in })
            return nil
        } catch let error as LayerError {
            return error
        }
    }

    /// The text problem behind a layer error.
    static func textProblem(_ error: LayerError?) -> TextRenderingError? {
        guard case .text(let problem)? = error?.cause else { return nil }
        return problem
    }

    @Test func textWithNothingToDrawIsAConfigErrorAtText() throws {
        let error = try Self.jobError(#"{ "watermarks": [ { "text": "ok" }, { "text": "\u0007\t" } ] }"#)
        #expect(Self.textProblem(error) == .textEmpty && error?.field == "text")
        #expect(error?.message.hasPrefix("marks.json: watermarks[1].text: text is empty") == true, "\(String(describing: error))")
    }

    @Test func overlongTextFromAVariableIsAConfigErrorAtText() throws {
        let error = try Self.jobError(#"{ "watermarks": [ { "text": "{name}" } ] }"#, variables: ["name": String(repeating: "x", count: 10_000)])
        #expect(Self.textProblem(error) == .textTooLong(count: 10_000) && error?.field == "text")
        #expect(error?.message.hasPrefix("marks.json: watermarks[0].text: text has 10000 characters") == true, "\(String(describing: error))")
    }

    @Test func missingFontFileIsExit66AtFont() throws {
        let error = try Self.jobError(#"{ "watermarks": [ { "text": "hi", "font": "/nonexistent/Brand.ttf" } ] }"#)
        #expect(Self.textProblem(error) == .fontFileMissing(path: "/nonexistent/Brand.ttf"))
        #expect(error?.message == "marks.json: watermarks[0].font: font file /nonexistent/Brand.ttf cannot be used: no such file")
    }

    @Test func unreadableFontFileIsExit65AtFont() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-font-\(UUID().uuidString).ttf").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("this is not a font".utf8))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let error = try Self.jobError(#"{ "watermarks": [ { "text": "hi", "font": "\#(file)" } ] }"#)
        guard case .fontUnreadable(let path, _)? = Self.textProblem(error) else { Issue.record("\(String(describing: error))"); return }
        #expect(path == file)
        #expect(error?.message.hasPrefix("marks.json: watermarks[0].font: font file \(file) cannot be used") == true, "\(String(describing: error))")
    }

    /// `unless` leaves layer 0 out: the failing layer is still named by its own path.
    @Test func pathsSurviveLayersLeftOutByUnless() throws {
        let json = #"{ "watermarks": [ { "text": "free tier", "unless": { "plan": ["pro"] } }, { "text": "hi", "font": "/nonexistent/b.ttf" } ] }"#
        let error = try Self.jobError(json, variables: ["plan": "pro"])
        #expect(error?.message.hasPrefix("marks.json: watermarks[1].font:") == true, "\(String(describing: error))")
    }

    /// A size that only becomes absurd on a huge frame fails when that frame is prepared,
    /// through the same mapping (`LayerError.rethrowing`) the video and still paths use.
    @Test func sizeTooLargeForTheFrameIsAConfigErrorAtSize() throws {
        let compositor = try Compositor.forJob(config: try Self.config(#"{ "watermarks": [ { "text": "HUGE", "size": 1 } ] }"#),
                                               variables: [:], warn: { _ in })
        do {
            try LayerError.rethrowing { try compositor.prepare(storedWidth: 9000, storedHeight: 5000) }
            Issue.record("expected an error")
        } catch let error as LayerError {
            #expect(Self.textProblem(error) == .sizeOutOfRange(pixels: 5000) && error.field == "size")
            #expect(error.message.hasPrefix("marks.json: watermarks[0].size: text cap height 5000.0 px is out of range"), "\(error)")
        }
    }

    @Test func aMissingLogoNamesTheLayerAndTheFile() throws {
        let error = try Self.jobError(#"{ "watermarks": [ { "image": "missing-logo.png" } ] }"#)
        guard case .image(let underlying)? = error?.cause else { Issue.record("\(String(describing: error))"); return }
        #expect((underlying as? InputError)?.isMissing == true)
        #expect(error?.message == "marks.json: watermarks[0].image: /configs/missing-logo.png: no such file")
    }

    @Test func layersWithoutAnOriginAreNamedByPosition() {
        let failure = LayerPreparationError(layerIndex: 2, origin: nil, underlying: TextRenderingError.textEmpty)
        let error = LayerError(failure)
        #expect(Self.textProblem(error) == .textEmpty && error.field == "text")
        #expect(error.message.hasPrefix("watermark layer 3 text: text is empty"))
    }
}
