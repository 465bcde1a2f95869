import Animation
import Foundation
import Testing
@testable import Overlay

/// Long text wraps before it shrinks below the legible floor; a warning names the layer when even
/// wrapping is not enough; lines are aligned as asked.
@Suite struct LongTextTests {
    /// 60 characters, as a long student address can be.
    static let email = "alexandra.konstantinopoulou-smythe2024@students.example.edu."

    static func layer(_ text: String, maxLines: Int = 2, alignment: TextAlignment = .center,
                      origin: LayerSpec.Origin? = nil) -> LayerSpec {
        LayerSpec(content: .text(text), sizeFraction: 0.04, opacity: 1,
                  timeline: LayerTimeline(xPercent: 50, yPercent: 50), origin: origin, maxLines: maxLines, alignment: alignment)
    }

    private func rendered(_ layer: LayerSpec, width: Int, height: Int) throws -> RenderedText {
        let fonts = try FontLibrary()
        let short = Double(min(width, height))
        guard case .text(let text) = layer.content else { throw TextRenderingError.textEmpty }
        return try fonts.render(TextStyle(text: text, capHeightPixels: layer.sizeFraction * short,
                                          maxWidthPixels: layer.maxWidthFraction * Double(width),
                                          minimumLegibleCapHeightPixels: Compositor.legibleCapHeightPixels(shortSide: min(width, height)),
                                          maxLines: layer.maxLines, alignment: layer.alignment))
    }

    @Test func theFloorIsAShareOfTheShortSideAndAtLeastNinePixels() {
        #expect(Compositor.legibleCapHeightPixels(shortSide: 360) == 9)
        #expect(Compositor.legibleCapHeightPixels(shortSide: 200) == 9)
        #expect(Compositor.legibleCapHeightPixels(shortSide: 1080) == 27)
    }

    @Test(arguments: [(360, 640), (640, 360)])
    func aLongEmailStaysLegibleInsideTheFrame(width: Int, height: Int) throws {
        #expect(Self.email.count == 60)
        let floor = Compositor.legibleCapHeightPixels(shortSide: min(width, height))
        let text = try rendered(Self.layer(Self.email), width: width, height: height)
        #expect(text.warnings.isEmpty, "\(text.warnings)")
        #expect(text.capHeightPixels >= floor, "cap height \(text.capHeightPixels) px")
        // Portrait needs two lines; landscape fits one, shrunk no further than the floor.
        #expect(text.lineCount == (width < height ? 2 : 1))
        if ProcessInfo.processInfo.environment["VIDEOWM_PRINT_MEASUREMENTS"] == "1" {
            print("measurement: 60-character e-mail on \(width)×\(height): \(text.lineCount) line(s), cap height \(text.capHeightPixels) px (floor \(floor) px)")
        }
        // Composited: every inked pixel inside the frame's inset.
        for x in [0.0, 50, 100] {
            var spec = Self.layer(Self.email)
            spec.timeline = LayerTimeline(xPercent: x, yPercent: x)
            let frame = try CanvasMeasurements.render(Compositor(layers: [spec], fonts: try FontLibrary()), width: width, height: height)
            let ink = try #require(CanvasMeasurements.inkBounds(frame, alphaAtLeast: 128))
            let inset = Int((0.03 * Double(min(width, height))).rounded(.down))
            #expect(ink.x >= inset - 1 && ink.maxX <= width - inset + 1, "ink \(ink) in \(width)×\(height)")
            #expect(ink.y >= inset - 1 && ink.maxY <= height - inset + 4, "ink \(ink) in \(width)×\(height)")
        }
    }

    @Test func withOneLineAllowedItShrinksBelowTheFloorAndTheWarningNamesTheLayer() throws {
        let origin = LayerSpec.Origin(file: "marks.json", path: "watermarks[0]")
        let warnings = WarningList()
        let compositor = Compositor(layers: [Self.layer(Self.email, maxLines: 1, origin: origin)], fonts: try FontLibrary(),
                                    warn: { warnings.append($0) })
        for second in 0..<3 {
            _ = try CanvasMeasurements.render(compositor, width: 360, height: 640, at: PresentationTime(seconds: Double(second)))
        }
        #expect(warnings.messages.count == 1)
        let message = try #require(warnings.messages.first)
        #expect(message.hasPrefix("marks.json: watermarks[0]: text is shrunk to a cap height of "), "\(message)")
        #expect(message.contains("below the legible 9.00 px") && message.contains("on 1 line;"))
        // Two lines allowed: no warning.
        let quiet = WarningList()
        _ = try CanvasMeasurements.render(Compositor(layers: [Self.layer(Self.email)], fonts: try FontLibrary(), warn: { quiet.append($0) }),
                                          width: 360, height: 640)
        #expect(quiet.messages.isEmpty)
    }

    @Test func shortTextAndModestShrinkingDoNotWrap() throws {
        #expect(try rendered(Self.layer("ada@example.com"), width: 360, height: 640).lineCount == 1)
        // On a wide frame even the long address only shrinks.
        let wide = try rendered(Self.layer(Self.email), width: 1920, height: 1080)
        #expect(wide.lineCount == 1 && wide.capHeightPixels >= 27)
    }

    @Test func linesAreAlignedAsAsked() throws {
        func lineEdges(_ alignment: TextAlignment) throws -> [(left: Int, right: Int)] {
            let text = try rendered(Self.layer("Ada Lovelace\nAda", alignment: alignment), width: 640, height: 360)
            let image = text.sprite.image, box = text.sprite.layoutBox
            let cap = Int(text.capHeightPixels.rounded())
            let pitch = box.height - cap
            return try [box.y, box.y + pitch].map { top in
                let ink = try #require(CanvasMeasurements.inkBounds(
                    StraightRGBAImage(width: image.width, height: image.height, pixels: image.pixels),
                    alphaAtLeast: 128, in: PixelRect(x: 0, y: top, width: image.width, height: cap)))
                return (ink.x, ink.maxX)
            }
        }
        let left = try lineEdges(.left), right = try lineEdges(.right), center = try lineEdges(.center)
        #expect(abs(left[0].left - left[1].left) <= 1)
        #expect(abs(right[0].right - right[1].right) <= 2)
        let middles = center.map { Double($0.left + $0.right) / 2 }
        #expect(abs(middles[0] - middles[1]) <= 2)
    }
}
