import Foundation
import Testing
@testable import Overlay

/// The text rasteriser, checked against the fonts the set-up installs (fonts-dejavu-core).
@Suite struct TextRenderingTests {
    static let dejaVuSansPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    let fonts: FontLibrary

    init() throws { fonts = try FontLibrary() }

    private func render(_ text: String, cap: Double = 40, color: RGBAColor = .white, font: FontSpec = .family(FontLibrary.defaultFamily),
                        maxWidth: Double? = nil, outline: TextOutline? = nil, shadow: TextShadow? = nil,
                        box: TextBox? = nil) throws -> RenderedText {
        try fonts.render(TextStyle(text: text, font: font, capHeightPixels: cap, color: color, maxWidthPixels: maxWidth,
                                   outline: outline, shadow: shadow, box: box))
    }

    private func ink(_ rendered: RenderedText) throws -> PixelRect {
        try #require(rendered.sprite.image.opaqueBounds())
    }

    /// Ink bounds relative to the layout box's top-left corner, so renders with different margins compare.
    private func inkFromLayoutBox(_ rendered: RenderedText) throws -> PixelRect {
        var rect = try ink(rendered)
        rect.x -= rendered.sprite.layoutBox.x
        rect.y -= rendered.sprite.layoutBox.y
        return rect
    }

    /// Expects `body` to throw a `TextRenderingError` and returns it.
    private func renderingError(_ body: () throws -> Void) -> TextRenderingError? {
        do {
            try body()
            Issue.record("expected a TextRenderingError")
            return nil
        } catch let error as TextRenderingError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("TextRenderingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: Size and layout box

    @Test(arguments: [12.0, 40.0, 200.0])
    func capitalHeightMatchesTheRequestedCapHeight(cap: Double) throws {
        let rendered = try render("H", cap: cap)
        let image = rendered.sprite.image
        let bounds = try ink(rendered)
        #expect(abs(Double(bounds.height) - cap) <= 1)
        // Summed coverage down the left stem measures the height including partly covered rows.
        let column = bounds.x + max(1, bounds.width / 10)
        let stemHeight = (0..<image.height).reduce(0.0) { $0 + Double(image.pixel(x: column, y: $1).alpha) / 255 }
        #expect(abs(stemHeight - cap) <= 1)
        #expect(rendered.sprite.layoutBox.height == Int(cap.rounded()))
        #expect(rendered.warnings.isEmpty)
    }

    @Test func layoutBoxRunsFromCapTopToBaseline() throws {
        let rendered = try render("H", cap: 40)
        let bounds = try ink(rendered)
        let box = rendered.sprite.layoutBox
        #expect(box.height == 40)
        #expect(abs(bounds.y - box.y) <= 1)
        #expect(abs(bounds.maxY - box.maxY) <= 1)
        // The advance box includes the side bearings, so the ink lies inside it horizontally.
        #expect(bounds.x >= box.x && bounds.maxX <= box.maxX)
        #expect(box.x >= 0 && box.y >= 0 && box.maxX <= rendered.sprite.image.width && box.maxY <= rendered.sprite.image.height)
    }

    @Test func descendersReachBelowTheLayoutBox() throws {
        let rendered = try render("Hg", cap: 40)
        let bounds = try ink(rendered)
        let box = rendered.sprite.layoutBox
        #expect(box.height == 40)
        #expect(bounds.maxY > box.maxY + 5)
        #expect(rendered.sprite.image.height >= bounds.maxY)
    }

    @Test func tinyCapHeightIsClampedAndAbsurdOnesAreRefused() throws {
        let tiny = try render("H", cap: 0.2)
        #expect(tiny.sprite.layoutBox.height == 1)
        #expect(renderingError { _ = try render("H", cap: 5000) } == .sizeOutOfRange(pixels: 5000))
        let nan = renderingError { _ = try render("H", cap: .nan) }
        guard case .sizeOutOfRange = nan else { Issue.record("NaN cap height gave \(String(describing: nan))"); return }
    }

    @Test func maxWidthShrinksEverythingUniformly() throws {
        let text = "student.name@example-university.edu"
        let wide = try render(text, cap: 40)
        #expect(wide.sprite.layoutBox.width > 300)
        let narrow = try render(text, cap: 40, maxWidth: 300)
        #expect(narrow.sprite.layoutBox.width <= 300)
        #expect(narrow.sprite.layoutBox.width >= 295)
        let factor = Double(narrow.sprite.layoutBox.width) / Double(wide.sprite.layoutBox.width)
        #expect(abs(Double(narrow.sprite.layoutBox.height) - 40 * factor) <= 1)
        #expect(narrow.warnings.isEmpty)
        // A text that already fits is untouched.
        let fits = try render(text, cap: 40, maxWidth: 5000)
        #expect(fits.sprite == wide.sprite)
        // With a plate, the plate (the reported layout box) is what must fit.
        let plate = try render(text, cap: 40, maxWidth: 300, box: TextBox(color: .black, paddingPixels: 20))
        #expect(plate.sprite.layoutBox.width <= 300)
    }

    @Test func kerningTightensAV() throws {
        let a = try render("A", cap: 100).sprite.layoutBox.width
        let v = try render("V", cap: 100).sprite.layoutBox.width
        let pair = try render("AV", cap: 100).sprite.layoutBox.width
        // DejaVu Sans kerns A–V by −131/2048 em, about 9 px at this size.
        #expect(pair <= a + v - 5)
    }

    @Test func linesStackByLineHeightAndAreCentred() throws {
        let one = try render("HHHH", cap: 40)
        let two = try render("H\nHHHH", cap: 40)
        let three = try render("H\nH\nH", cap: 40)
        let pitch = two.sprite.layoutBox.height - 40
        // DejaVu Sans's line height is about 1.6 cap heights.
        #expect(pitch >= 60 && pitch <= 68)
        #expect(three.sprite.layoutBox.height == 40 + 2 * pitch || three.sprite.layoutBox.height == 40 + 2 * pitch + 1)
        #expect(two.sprite.layoutBox.width == one.sprite.layoutBox.width)
        // The short first line sits in the middle of the wide one.
        let image = two.sprite.image
        let box = two.sprite.layoutBox
        let firstLine = PixelRect(x: box.x, y: box.y, width: box.width, height: 40)
        var columns: [Int] = []
        for x in firstLine.x..<firstLine.maxX where (firstLine.y..<firstLine.maxY).contains(where: { image.pixel(x: x, y: $0).alpha > 0 }) {
            columns.append(x)
        }
        let inkCentre = Double(columns.first! + columns.last! + 1) / 2
        #expect(abs(inkCentre - (Double(box.x) + Double(box.width) / 2)) <= 2)
    }

    // MARK: Outline, shadow, box

    @Test func outlineWidensTheInkByTwiceItsWidth() throws {
        let plain = try inkFromLayoutBox(render("Hi", cap: 40))
        let outlined = try render("Hi", cap: 40, outline: TextOutline(widthPixels: 4, color: .black))
        let bounds = try inkFromLayoutBox(outlined)
        #expect(abs(bounds.width - (plain.width + 8)) <= 2)
        #expect(abs(bounds.height - (plain.height + 8)) <= 2)
        #expect(abs(bounds.x - (plain.x - 4)) <= 1)
        // Outside the glyph the outline colour shows; inside, the fill.
        let image = outlined.sprite.image
        let box = outlined.sprite.layoutBox
        let stemX = box.x + (plain.x + 2), midY = box.y + 20
        #expect(image.pixel(x: stemX, y: midY) == .white)
        #expect(image.pixel(x: box.x + plain.x - 3, y: midY) == .black)
    }

    @Test func shadowIsTheInkMovedByTheOffset() throws {
        let plain = try inkFromLayoutBox(render("Hg", cap: 40))
        // Invisible text leaves only the shadow to measure.
        let shadowOnly = try render("Hg", cap: 40, color: .clear,
                                    shadow: TextShadow(offsetXPixels: 10, offsetYPixels: 7, blurPixels: 0, color: .black))
        let shadow = try inkFromLayoutBox(shadowOnly)
        #expect(shadow == PixelRect(x: plain.x + 10, y: plain.y + 7, width: plain.width, height: plain.height))

        let blurred = try inkFromLayoutBox(render("Hg", cap: 40, color: .clear,
                                                  shadow: TextShadow(offsetXPixels: 10, offsetYPixels: 7, blurPixels: 8, color: .black)))
        #expect(blurred.width > plain.width + 8)
        #expect(abs(Double(blurred.x + blurred.maxX) / 2 - Double(shadow.x + shadow.maxX) / 2) <= 1)

        // Text over its shadow: the text's own pixels stay white.
        let both = try render("H", cap: 40, shadow: TextShadow(offsetXPixels: 3, offsetYPixels: 3, blurPixels: 2, color: .black))
        let textInk = try inkFromLayoutBox(render("H", cap: 40))
        let box = both.sprite.layoutBox
        #expect(both.sprite.image.pixel(x: box.x + textInk.x + 1, y: box.y + 10) == .white)
    }

    @Test func boxPlateCoversLayoutBoxPlusPaddingWithRoundedCorners() throws {
        let blue = RGBAColor(red: 0, green: 0, blue: 255)
        let plain = try render("H", cap: 40)
        let rendered = try render("H", cap: 40, box: TextBox(color: blue, paddingPixels: 12, cornerRadiusPixels: 8))
        let plate = rendered.sprite.layoutBox
        let image = rendered.sprite.image
        #expect(plate.width == plain.sprite.layoutBox.width + 24)
        // Padding above and below, plus the descender's room (about 0.32 cap) at the bottom.
        #expect(plate.height >= 40 + 24 + 12 && plate.height <= 40 + 24 + 14)
        #expect(image.opaqueBounds() == plate)
        let r = 8
        for (x, y) in [(plate.x + r, plate.y + r), (plate.maxX - 1 - r, plate.y + r),
                       (plate.x + r, plate.maxY - 1 - r), (plate.maxX - 1 - r, plate.maxY - 1 - r),
                       (plate.x, plate.y + plate.height / 2), (plate.x + plate.width / 2, plate.maxY - 1)] {
            #expect(image.pixel(x: x, y: y) == blue, "plate pixel (\(x), \(y))")
        }
        for (x, y) in [(plate.x, plate.y), (plate.maxX - 1, plate.y), (plate.x, plate.maxY - 1), (plate.maxX - 1, plate.maxY - 1)] {
            #expect(image.pixel(x: x, y: y).alpha == 0, "corner pixel (\(x), \(y))")
        }
        // The text sits inside the plate at the padding.
        let textInk = try inkFromLayoutBox(plain)
        #expect(image.pixel(x: plate.x + 12 + textInk.x + 1, y: plate.y + 12 + 20) == .white)
        // Square corners when the radius is 0.
        let square = try render("H", cap: 40, box: TextBox(color: blue, paddingPixels: 12, cornerRadiusPixels: 0))
        #expect(square.sprite.image.pixel(x: square.sprite.layoutBox.x, y: square.sprite.layoutBox.y) == blue)
    }

    @Test func translucentColoursArePremultiplied() throws {
        let rendered = try render("H", cap: 40, color: RGBAColor(red: 200, green: 100, blue: 50, alpha: 128))
        let image = rendered.sprite.image
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            let alpha = image.pixels[i + 3]
            #expect(alpha <= 128 && image.pixels[i] <= alpha && image.pixels[i + 1] <= alpha && image.pixels[i + 2] <= alpha)
        }
        let bounds = try ink(rendered)
        #expect(image.pixel(x: bounds.x + 1, y: bounds.y + 20) == RGBAColor(red: 100, green: 50, blue: 25, alpha: 128))
    }

    // MARK: Text as typed

    @Test func textIsDrawnExactlyAsTyped() throws {
        let typed = try render("%d {{x}} \\ '", cap: 30)
        let other = try render("d x", cap: 30)
        #expect(typed.sprite.image.opaqueBounds() != nil)
        #expect(typed.sprite != other.sprite)
        #expect(typed.sprite.layoutBox.width > other.sprite.layoutBox.width)
        // Doubled braces stay doubled: "{{x}}" is wider than "{x}".
        #expect(try render("{{x}}", cap: 30).sprite.layoutBox.width > render("{x}", cap: 30).sprite.layoutBox.width)
        // A placeholder-looking sequence is drawn, not interpreted.
        #expect(try render("%s", cap: 30).sprite != render("s", cap: 30).sprite)
        // Hebrew and Arabic come from DejaVu Sans itself, shaped and reordered.
        #expect(try render("שלום مرحبا", cap: 30).warnings.isEmpty)
    }

    @Test func controlCharactersAreDropped() throws {
        let clean = try render("ABC", cap: 30)
        let noisy = try render("A\u{7}B\tC\r\u{1B}", cap: 30)
        #expect(noisy.sprite == clean.sprite)
        #expect(noisy.warnings.isEmpty)
        // CRLF line ends give the same lines as LF.
        #expect(try render("A\r\nB", cap: 30).sprite == render("A\nB", cap: 30).sprite)
    }

    @Test func emptyAndOverlongTextsAreRefused() throws {
        #expect(renderingError { _ = try render("") } == .textEmpty)
        #expect(renderingError { _ = try render("\u{7}\r\t") } == .textEmpty)
        #expect(renderingError { _ = try render("\n\n") } == .textEmpty)
        #expect(renderingError { _ = try render(String(repeating: "x", count: 10_000)) } == .textTooLong(count: 10_000))
        #expect(TextRenderingError.textTooLong(count: 10_000).description.contains("10000"))
        // The limit itself is fine (shrunk to a frame's width as the compositor would ask).
        let longest = try render(String(repeating: "x", count: 2000), cap: 20, maxWidth: 4000)
        #expect(longest.sprite.layoutBox.width <= 4000)
    }

    @Test func whitespaceOnlyTextWarns() throws {
        let rendered = try render("   ", cap: 30)
        #expect(rendered.sprite.image.opaqueBounds() == nil)
        #expect(rendered.sprite.layoutBox.width > 0)
        #expect(rendered.warnings.count == 1)
    }

    // MARK: Missing glyphs and fallback

    @Test func missingGlyphIsABoxWithOneWarning() throws {
        // U+E000 is private use: no installed font maps it.
        let rendered = try render("A\u{E000}B\u{E001}\u{E000}", cap: 30)
        #expect(rendered.warnings.count == 1)
        let warning = try #require(rendered.warnings.first)
        #expect(warning.contains("U+E000") && warning.contains("U+E001") && warning.contains("DejaVu Sans"))
        #expect(warning.components(separatedBy: "U+E000").count == 2)
        // The box is drawn: wider than "AB" alone.
        #expect(try rendered.sprite.layoutBox.width > render("AB", cap: 30).sprite.layoutBox.width + 20)
        // Emoji and CJK never crash, whatever fonts are installed.
        _ = try render("中文 😀 e\u{301} \u{200D}", cap: 30)
    }

    @Test func invisibleFormatCharactersDrawNothing() throws {
        // Zero-width joiner and a variation selector: ignorable, so neither a box nor a warning.
        let rendered = try render("A\u{200D}B\u{FE0F}", cap: 30)
        #expect(rendered.warnings.isEmpty)
    }

    @Test func missingGlyphComesFromAFallbackFont() throws {
        // Of the DejaVu fonts only DejaVu Sans has Hebrew, so DejaVu Serif must borrow it.
        let rendered = try render("Aש", cap: 30, font: .family("DejaVu Serif"))
        #expect(rendered.warnings.isEmpty)
        let fromSans = try render("ש", cap: 30, font: .file(Self.dejaVuSansPath))
        let serifA = try render("A", cap: 30, font: .family("DejaVu Serif"))
        #expect(rendered.sprite.layoutBox.width >= serifA.sprite.layoutBox.width + fromSans.sprite.layoutBox.width - 1)
    }

    @Test func cjkComesFromAnInstalledFallbackOrIsOneWarning() throws {
        // Whether this machine has a CJK font decides which of the two outcomes is right.
        let installed = try FontconfigConfiguration().fontsSorted(closestTo: FontLibrary.defaultFamily)?
            .firstFont(covering: "中", where: { _, _ in true }) != nil
        let rendered = try render("Hg 中文", cap: 30)
        #expect(rendered.warnings.count == (installed ? 0 : 1))
        #expect(rendered.warnings.allSatisfy { $0.contains("U+4E2D, U+6587") })
        #expect(try rendered.sprite.layoutBox.width > render("Hg ", cap: 30).sprite.layoutBox.width + 30)
    }

    // MARK: Fonts

    @Test func fontByFamilyAndByFile() throws {
        let byFamily = try render("Hello", font: .family("DejaVu Sans"))
        let byFile = try render("Hello", font: .file(Self.dejaVuSansPath))
        #expect(byFamily.sprite == byFile.sprite)
        #expect(byFamily.warnings.isEmpty)
        #expect(try render("Hello", font: .family("sans-serif")).warnings.isEmpty)
        // A different face really changes the drawing.
        #expect(try render("Hello", font: .family("DejaVu Serif")).sprite != byFamily.sprite)
    }

    @Test func unknownFamilyFallsBackWithAWarning() throws {
        let rendered = try render("Hello", font: .family("No Such Family Xyz"))
        #expect(rendered.warnings == ["font family 'No Such Family Xyz' not found; using 'DejaVu Sans'"])
        #expect(rendered.sprite == (try render("Hello")).sprite)
    }

    @Test func badFontFilesAreClearErrorsNamingThePath() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let missing = directory.appendingPathComponent("missing.ttf").path
        #expect(renderingError { _ = try render("A", font: .file(missing)) } == .fontFileMissing(path: missing))
        #expect(renderingError { _ = try render("A", font: .file(directory.path)) } == .fontUnreadable(path: directory.path, reason: "is a directory"))

        let empty = directory.appendingPathComponent("empty.ttf")
        try Data().write(to: empty)
        var generator = SystemRandomNumberGenerator()
        let random = directory.appendingPathComponent("random.ttf")
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: random)
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.dejaVuSansPath))
        var files = [empty.path, random.path]
        for (name, length) in [("head.ttf", 12), ("tables.ttf", 1000), ("half.ttf", original.count / 2)] {
            let truncated = directory.appendingPathComponent(name)
            try original.prefix(length).write(to: truncated)
            files.append(truncated.path)
        }
        for file in files {
            let error = renderingError { _ = try render("Hello", font: .file(file)) }
            guard case .fontUnreadable(let path, let reason)? = error else {
                Issue.record("\(file) gave \(String(describing: error))")
                continue
            }
            #expect(path == file)
            #expect(!reason.isEmpty)
            #expect(error!.description.contains(file))
        }
    }

    @Test func errorsDescribeThemselvesOnOneLine() {
        let errors: [TextRenderingError] = [
            .fontNotFound(family: "Foo"), .fontFileMissing(path: "/x/y.ttf"), .fontUnreadable(path: "/x/y.ttf", reason: "not a font"), .textEmpty,
            .textTooLong(count: 2001), .sizeOutOfRange(pixels: 5000), .invalidLength(field: .outlineWidth, value: -1),
            .renderedTooLarge(width: 40000, height: 100), .fontEngineFailed(operation: "FT_Init_FreeType", reason: "out of memory"),
        ]
        for error in errors {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
        }
        #expect(TextRenderingError.fontNotFound(family: "Foo").description.contains("'Foo'"))
        #expect(TextRenderingError.fontFileMissing(path: "/x/y.ttf").description.contains("/x/y.ttf"))
    }

    @Test func absurdGeometryIsRefused() throws {
        let huge = renderingError { _ = try render(String(repeating: "W", count: 100), cap: 4000) }
        guard case .renderedTooLarge? = huge else { Issue.record("got \(String(describing: huge))"); return }
        #expect(renderingError { _ = try render("A", outline: TextOutline(widthPixels: -1, color: .black)) }
            == .invalidLength(field: .outlineWidth, value: -1))
        #expect(renderingError { _ = try render("A", maxWidth: .infinity) } == .invalidLength(field: .maxWidth, value: .infinity))
        // Finite but absurd lengths are refused rather than overflowing an integer.
        #expect(renderingError { _ = try render("A", shadow: TextShadow(offsetXPixels: 1e300, offsetYPixels: 0, color: .black)) }
            == .invalidLength(field: .shadowOffsetX, value: 1e300))
        #expect(renderingError { _ = try render("A", box: TextBox(color: .black, paddingPixels: 1e9)) }
            == .invalidLength(field: .boxPadding, value: 1e9))
        // Negative shadow offsets are fine.
        #expect(try render("A", shadow: TextShadow(offsetXPixels: -5, offsetYPixels: -5, color: .black)).warnings.isEmpty)
    }

    // MARK: Determinism and caching

    @Test func renderingIsDeterministic() throws {
        let style = TextStyle(text: "Det\u{E000}rminism ש 中 {x} %", capHeightPixels: 33.3, color: RGBAColor(red: 10, green: 200, blue: 30, alpha: 200),
                              maxWidthPixels: 250, outline: TextOutline(widthPixels: 1.5, color: .black),
                              shadow: TextShadow(offsetXPixels: 2, offsetYPixels: 3, blurPixels: 4, color: RGBAColor(red: 0, green: 0, blue: 0, alpha: 128)),
                              box: TextBox(color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 60), paddingPixels: 5, cornerRadiusPixels: 6))
        let first = try fonts.render(style)
        // Other work in between must not change the result (caches are transparent).
        _ = try fonts.render(TextStyle(text: "Other text Ω", capHeightPixels: 12))
        let second = try fonts.render(style)
        let fresh = try FontLibrary().render(style)
        #expect(first.sprite == second.sprite)
        #expect(first.sprite == fresh.sprite)
        #expect(first.warnings == fresh.warnings)
    }
}
