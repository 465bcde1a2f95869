import Testing
@testable import Overlay

/// Fonts chosen by fontconfig pattern, weight and style, and the warnings for substitutions.
@Suite struct FontSelectionTests {
    let fonts: FontLibrary

    init() throws { fonts = try FontLibrary() }

    private func resolve(_ spec: FontSpec) throws -> (path: String, family: String, style: String, warning: String?) {
        let (face, warning) = try fonts.primaryFace(for: spec)
        return (face.path, face.familyName, face.styleName, warning)
    }

    @Test func patternsPickTheWeightAndSlantAskedFor() throws {
        let serifBold = try resolve(.family("DejaVu Serif:bold"))
        #expect(serifBold.path.hasSuffix("/DejaVuSerif-Bold.ttf"))
        #expect(serifBold.warning == nil)
        let italic = try resolve(.family("Noto Sans:italic"))
        #expect(italic.path.hasSuffix("/NotoSans-Italic.ttf") && italic.warning == nil)
        #expect(try resolve(.family("Noto Sans:bold:italic")).path.hasSuffix("/NotoSans-BoldItalic.ttf"))
        #expect(try resolve(.family("DejaVu Sans:weight=bold")).path.hasSuffix("/DejaVuSans-Bold.ttf"))
        // Numeric weights are CSS's: 600 is semibold (bold is the nearest Noto has), 300 light (regular is the nearest).
        #expect(try resolve(.family("Noto Sans:weight=600")).path.hasSuffix("/NotoSans-Bold.ttf"))
        #expect(try resolve(.family("Noto Sans:weight=300")).path.hasSuffix("/NotoSans-Regular.ttf"))
        // The family alone is the regular face, as before.
        #expect(try resolve(.family("DejaVu Sans")).path.hasSuffix("/DejaVuSans.ttf"))
        // ":bold" alone is the default family in bold.
        #expect(try resolve(.family(":bold")).path.hasSuffix("/DejaVuSans-Bold.ttf"))
    }

    @Test func weightAndStyleFieldsOverrideThePattern() throws {
        #expect(try resolve(.family("DejaVu Serif", weight: .bold)).path.hasSuffix("/DejaVuSerif-Bold.ttf"))
        #expect(try resolve(.family("Noto Serif", weight: FontWeight(name: "semibold"), style: .italic)).path.hasSuffix("/NotoSerif-BoldItalic.ttf"))
        #expect(try resolve(.family("DejaVu Serif:bold", weight: .regular)).path.hasSuffix("/DejaVuSerif.ttf"))
        #expect(FontWeight(name: "Extra-Bold")?.value == 800 && FontWeight(name: "heavy")?.value == 900)
        #expect(FontWeight(name: "fat") == nil && FontWeight(0) == nil && FontWeight(1001) == nil)
    }

    @Test func substitutionsWarnNamingBothFonts() throws {
        let unknown = try resolve(.family("No Such Family Xyz"))
        #expect(unknown.warning == "font family 'No Such Family Xyz' not found; using 'DejaVu Sans'")
        #expect(unknown.path.hasSuffix("/DejaVuSans.ttf"))
        // A misspelt family keeps the weight asked for, in the default family.
        let unknownBold = try resolve(.family("Dejavoo Serif:bold"))
        #expect(unknownBold.path.hasSuffix("/DejaVuSans-Bold.ttf"))
        #expect(unknownBold.warning == "font family 'Dejavoo Serif' not found; using 'DejaVu Sans'")
        // A family without the style asked for says what it draws instead.
        let noItalic = try resolve(.family("DejaVu Serif", style: .italic))
        if !noItalic.path.contains("Italic") {
            #expect(noItalic.warning?.contains("has no italic face; using 'DejaVu Serif") == true, "\(String(describing: noItalic.warning))")
        }
        let noBlack = try resolve(.family("DejaVu Sans:weight=900"))
        #expect(noBlack.path.hasSuffix("/DejaVuSans-Bold.ttf"))
        #expect(noBlack.warning?.contains("no weight 900 face") == true, "\(String(describing: noBlack.warning))")
        // Generic names are whatever the system maps them to, without a warning.
        #expect(try resolve(.family("sans-serif")).warning == nil)
        #expect(try resolve(.family("monospace:bold")).warning == nil)
    }

    @Test func unknownPropertiesAreReportedNotSilentlyIgnored() throws {
        #expect(FontSpec.problem(inPattern: "DejaVu Serif:bold") == nil)
        #expect(FontSpec.problem(inPattern: "DejaVu Serif:weight=600:slant=italic") == nil)
        let problem = try #require(FontSpec.problem(inPattern: "DejaVu Serif:bolt"))
        #expect(problem.contains("'bolt'"))
        #expect(FontSpec.problem(inPattern: "DejaVu Serif:colour=red")?.contains("'colour=red'") == true)
        // Rendering draws the rest of the pattern and warns.
        let resolved = try resolve(.family("DejaVu Serif:bolt:bold"))
        #expect(resolved.path.hasSuffix("/DejaVuSerif-Bold.ttf"))
        #expect(resolved.warning?.contains("'bolt'") == true)
    }

    @Test func patternsChangeTheDrawing() throws {
        let regular = try fonts.render(TextStyle(text: "Ada", font: .family("DejaVu Serif"), capHeightPixels: 30))
        let bold = try fonts.render(TextStyle(text: "Ada", font: .family("DejaVu Serif:bold"), capHeightPixels: 30))
        #expect(bold.warnings.isEmpty)
        // Bold strokes are thicker: more ink at the same cap height.
        let ink = { (image: PremultipliedRGBAImage) in stride(from: 3, to: image.pixels.count, by: 4).reduce(0) { $0 + Int(image.pixels[$1]) } }
        #expect(Double(ink(bold.sprite.image)) > 1.3 * Double(ink(regular.sprite.image)))
    }
}
