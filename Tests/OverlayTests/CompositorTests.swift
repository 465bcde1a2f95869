import Animation
import Testing
@testable import Overlay

/// The compositor's bookkeeping around the renderers: which layer failed, legibility on
/// tiny frames, and warnings given once per layer and frame size rather than per frame.
@Suite("compositor")
struct CompositorTests {
    static func text(_ text: String, size: Double = 0.04, font: FontSpec = .family(FontLibrary.defaultFamily),
                     origin: LayerSpec.Origin? = nil) -> LayerSpec {
        LayerSpec(content: .text(text), sizeFraction: size, font: font, opacity: 1,
                  timeline: LayerTimeline(xPercent: 0, yPercent: 0), origin: origin)
    }

    static func logo(_ image: StraightRGBAImage, size: Double = 0.16) -> LayerSpec {
        LayerSpec(content: .image(image, name: "logo.png"), sizeFraction: size, opacity: 1,
                  timeline: LayerTimeline(xPercent: 100, yPercent: 100))
    }

    @Test func aFailingLayerIsNamedByIndexAndOrigin() throws {
        let origin = LayerSpec.Origin(file: "marks.json", path: "watermarks[2]")
        let compositor = Compositor(layers: [Self.text("fine"), Self.text("\u{7}\u{7}", origin: origin)], fonts: try FontLibrary())
        var frame = StraightRGBAImage(width: 64, height: 36)
        do {
            try frame.withCanvas { try compositor.composite(onto: $0, at: .zero) }
            Issue.record("expected a LayerPreparationError")
        } catch let error as LayerPreparationError {
            #expect(error.layerIndex == 1)
            #expect(error.origin == origin)
            #expect(error.underlying as? TextRenderingError == .textEmpty)
            #expect(error.description.hasPrefix("marks.json: watermarks[2]: text is empty"))
        }
        // Nothing was drawn: the frame is untouched when preparation fails.
        #expect(frame.pixels.allSatisfy { $0 == 0 })
    }

    @Test func validateRendersTextLayersOnceAndReportsTheFirstBadOne() throws {
        let missingFont = Self.text("hello", font: .file("/nonexistent/font.ttf"))
        let good = Compositor(layers: [Self.text("hello"), Self.logo(checkerLogo(width: 8, height: 8))], fonts: try FontLibrary())
        try good.validate()
        let bad = Compositor(layers: [Self.logo(checkerLogo(width: 8, height: 8)), missingFont], fonts: try FontLibrary())
        #expect(throws: LayerPreparationError.self) { try bad.validate() }
        do { try bad.validate() } catch let error as LayerPreparationError {
            #expect(error.layerIndex == 1)
            #expect(error.underlying as? TextRenderingError == .fontFileMissing(path: "/nonexistent/font.ttf"))
        }
    }

    /// 0.02 of a 300-px thumbnail is a 6-px cap height: drawn at the legible minimum of 8 px
    /// instead, while larger frames keep the fraction.
    @Test(arguments: [(300, 8.0), (600, 12.0), (3000, 60.0)])
    func textNeverGoesBelowALegibleCapHeight(side: Int, expectedCap: Double) throws {
        let compositor = Compositor(layers: [Self.text("HILL", size: 0.02)], fonts: try FontLibrary())
        let frame = try CanvasMeasurements.render(compositor, width: side, height: side)
        let ink = try #require(CanvasMeasurements.inkBounds(frame, alphaAtLeast: 128))
        #expect(abs(Double(ink.height) - expectedCap) <= 1, "cap height \(ink.height) px on \(side)×\(side)")
    }

    @Test func outlineGrowsWithTheLegibleMinimum() throws {
        // An outline of 0.004 of 300 px would be 1.2 px; with the text grown by 8 / 6 it is 1.6 px.
        var layer = Self.text("I", size: 0.02)
        layer.outline = LayerSpec.Outline(widthFraction: 0.004, color: .black)
        let compositor = Compositor(layers: [layer], fonts: try FontLibrary())
        let sprite = try compositor.makeSprite(layer, displayWidth: 300, displayHeight: 300, warn: { _ in })
        let plain = try compositor.makeSprite(Self.text("I", size: 0.02), displayWidth: 300, displayHeight: 300, warn: { _ in })
        let grownBy = try #require(sprite.image.opaqueBounds()).width - (try #require(plain.image.opaqueBounds()).width)
        #expect((2...5).contains(grownBy), "the outline adds \(grownBy) px (2 × 1.6 expected)")
    }

    /// An upscaled logo is said once per frame size, not once per frame.
    @Test func upscaleWarningIsGivenOncePerLayerAndFrameSize() throws {
        let warnings = WarningList()
        let compositor = Compositor(layers: [Self.logo(checkerLogo(width: 20, height: 10)), Self.logo(checkerLogo(width: 400, height: 200))],
                                    fonts: try FontLibrary(), warn: { warnings.append($0) })
        var frame = StraightRGBAImage(width: 640, height: 360)
        for second in 0..<5 {
            try frame.withCanvas { try compositor.composite(onto: $0, at: PresentationTime(seconds: Double(second))) }
        }
        #expect(warnings.messages.count == 1)
        #expect(warnings.messages.first?.contains("image logo.png is 20×10 and is upscaled") == true)
        #expect(warnings.messages.first?.contains("640×360") == true)
        var larger = StraightRGBAImage(width: 1280, height: 720)
        for _ in 0..<3 { try larger.withCanvas { try compositor.composite(onto: $0, at: .zero) } }
        try frame.withCanvas { try compositor.composite(onto: $0, at: .zero) }
        #expect(warnings.messages.count == 2)
        // Validation never warns: it does not know the job's frame size.
        let quiet = WarningList()
        try Compositor(layers: [Self.logo(checkerLogo(width: 20, height: 10))], fonts: try FontLibrary(), warn: { quiet.append($0) }).validate()
        #expect(quiet.messages.isEmpty)
    }
}
