import Animation
import Testing
@testable import Overlay

/// TPStreams configs laid out as the SDK lays them out. The SDK's formula, from
/// testpress iOSPlayerSDK, Source/Views/UIKit/WatermarkOverlayView.swift,
/// `positionedFrame(for:at:in:)`, with `inset = 16` points:
///
///     size = label.sizeThatFits(width: W − 2·inset)      // the label's line box
///     left = inset + max(W − w − 2·inset, 0) · x / 100
///     top  = inset + (H − h − 2·inset) · y / 100
///
/// with `UIFont.systemFont(ofSize: textSize)` (textSize default 14), and labels added in
/// reverse order so the first entry is on top. Points are read on a reference frame whose
/// short side is 360 points. Images (not in the SDK's public source) are fitted into their
/// `width`×`height` box with their aspect kept, centred, and the box is what is placed.
@Suite("TPStreams layout")
struct TPStreamsLayoutTests {
    static let inset = 16.0 / 360

    static func image(_ logo: StraightRGBAImage, width: Double = 48, height: Double = 48, x: Double, y: Double) -> LayerSpec {
        LayerSpec(content: .image(logo, name: "logo.png"), sizeFraction: 0.16, opacity: 1, insetFraction: inset,
                  timeline: LayerTimeline(xPercent: x, yPercent: y), convention: .tpStreams,
                  imageBox: .init(widthFraction: width / 360, heightFraction: height / 360))
    }

    static func text(_ text: String, points: Double = 14, x: Double, y: Double,
                     convention: LayerSpec.LayoutConvention = .tpStreams) -> LayerSpec {
        LayerSpec(content: .text(text), sizeFraction: points / 360, opacity: 1, insetFraction: inset,
                  timeline: LayerTimeline(xPercent: x, yPercent: y), convention: convention)
    }

    static func inkBounds(_ layers: [LayerSpec], width: Int, height: Int, stacking: Compositor.Stacking = .laterOnTop) throws -> PixelRect? {
        let frame = try CanvasMeasurements.render(Compositor(layers: layers, fonts: try FontLibrary(), stacking: stacking),
                                                  width: width, height: height)
        return CanvasMeasurements.inkBounds(frame, alphaAtLeast: 128)
    }

    /// A 48-point image at x, y ∈ {0, 50, 100}: 16 px from the edges on 640×360 and 360×640,
    /// centred at 50, and 32 px (and 96 px wide) on 1280×720.
    @Test(arguments: [(640, 360), (360, 640), (1280, 720)])
    func imagesLandAtTheSDKsInset(width: Int, height: Int) throws {
        let logo = StraightRGBAImage(width: 64, height: 64, fill: RGBAColor(red: 200, green: 30, blue: 30))
        let pointPixels = Double(min(width, height)) / 360
        let side = Int(48 * pointPixels), inset = Int(16 * pointPixels)
        for x in [0.0, 50, 100] {
            for y in [0.0, 50, 100] {
                let bounds = try Self.inkBounds([Self.image(logo, x: x, y: y)], width: width, height: height)
                let left = inset + Int((Double(width - side - 2 * inset) * x / 100).rounded())
                let top = inset + Int((Double(height - side - 2 * inset) * y / 100).rounded())
                #expect(bounds == PixelRect(x: left, y: top, width: side, height: side), "\(width)×\(height) at \(x), \(y)")
            }
        }
        // The corners by the numbers, as the issue states them.
        let corner = try Self.inkBounds([Self.image(logo, x: 100, y: 100)], width: width, height: height)
        #expect(corner?.maxX == width - inset && corner?.maxY == height - inset)
    }

    /// `width: 96, height: 48` with a square logo: a 48×48 image centred in a 96×48 box, and
    /// the box is what sits at the inset (so the image is 24 px further in at x = 0).
    @Test func widthAndHeightAreABoxTheImageIsFittedInto() throws {
        let logo = StraightRGBAImage(width: 64, height: 64, fill: RGBAColor(red: 30, green: 200, blue: 30))
        let atLeft = try Self.inkBounds([Self.image(logo, width: 96, height: 48, x: 0, y: 0)], width: 640, height: 360)
        #expect(atLeft == PixelRect(x: 16 + 24, y: 16, width: 48, height: 48))
        let atRight = try Self.inkBounds([Self.image(logo, width: 96, height: 48, x: 100, y: 100)], width: 640, height: 360)
        #expect(atRight == PixelRect(x: 640 - 16 - 96 + 24, y: 360 - 16 - 48, width: 48, height: 48))
        // A wide logo in a tall box: fitted by its width, centred vertically.
        let wide = StraightRGBAImage(width: 80, height: 40, fill: .white)
        let tall = try Self.inkBounds([Self.image(wide, width: 48, height: 96, x: 0, y: 0)], width: 640, height: 360)
        #expect(tall == PixelRect(x: 16, y: 16 + 36, width: 48, height: 24))
        // Zero width (the SDK clamps negatives to 0): nothing is drawn.
        #expect(try Self.inkBounds([Self.image(logo, width: 0, height: 48, x: 0, y: 0)], width: 640, height: 360) == nil)
    }

    /// Text is placed by its line box: the first baseline lies `ascender` below the box's top,
    /// the box is `ascender + descender` tall (hhea metrics, as `UIFont.lineHeight`), and the
    /// default 14-point text has an em of 14 px on a 360-px short side.
    @Test func textIsPlacedByItsLineBox() throws {
        let fonts = try FontLibrary()
        let face = try fonts.primaryFace(for: .family(FontLibrary.defaultFamily)).face
        let em = 14.0, units = Double(face.unitsPerEm)
        let ascender = Double(face.ascenderUnits) * em / units, descender = Double(face.descenderUnits) * em / units
        let capHeight = Double(face.capHeightUnits) * em / units
        let lineHeight = ascender + descender
        for y in [0.0, 50, 100] {
            // "H" has no descender and sits on the baseline: its ink ends at the baseline.
            let ink = try #require(try Self.inkBounds([Self.text("H", x: 0, y: y)], width: 640, height: 360))
            let top = 16 + (360 - lineHeight - 32) * y / 100
            let baseline = top + ascender
            #expect(abs(Double(ink.maxY) - baseline) <= 1, "y \(y): ink ends at \(ink.maxY), the SDK's baseline is \(baseline)")
            #expect(abs(Double(ink.height) - capHeight) <= 1, "y \(y): capitals \(ink.height) px, expected \(capHeight)")
        }
        // The cap-height convention puts the capitals' top at the inset instead, higher by ascender − cap height.
        let capBox = try #require(try Self.inkBounds([Self.text("H", x: 0, y: 0, convention: .standard)]
            .map { var l = $0; l.sizeFraction = capHeight / 360; return l }, width: 640, height: 360))
        #expect(capBox.y == 16)
        // Descenders stay inside the line box: "gy" at y = 100 ends within a pixel of the bottom inset.
        let descending = try #require(try Self.inkBounds([Self.text("gy", x: 0, y: 100)], width: 640, height: 360))
        #expect(descending.maxY <= 360 - 16 + 1)
    }

    /// The label is at most `W − 2·inset` wide (`sizeThatFits`); the SDK wraps a longer text,
    /// videowm shrinks it, and either way it stays inside the insets.
    @Test func longTextStaysBetweenTheInsets() throws {
        let long = String(repeating: "student.name@example.com ", count: 4)
        let ink = try #require(try Self.inkBounds([Self.text(long, x: 50, y: 50)], width: 640, height: 360))
        #expect(ink.x >= 16 - 1 && ink.maxX <= 640 - 16 + 1, "\(ink)")
    }

    /// The SDK's overflow rule: a box wider than the room between the insets sits at the
    /// left inset (videowm's own layers centre it).
    @Test func anOversizedBoxSitsAtTheInset() {
        let sdk = Placement.origin(boxWidth: 700, boxHeight: 20, frameWidth: 640, frameHeight: 360, insetPixels: 16,
                                   xPercent: 100, yPercent: 100, convention: .tpStreams)
        #expect(sdk.x == 16 && sdk.y == 360 - 20 - 16)
        let own = Placement.origin(boxWidth: 700, boxHeight: 20, frameWidth: 640, frameHeight: 360, insetPixels: 16,
                                   xPercent: 100, yPercent: 100)
        #expect(own.x == -30)
    }

    /// Earlier entries on top: a red and then a blue square at the same place show red.
    @Test func earlierEntriesAreDrawnOnTop() throws {
        let red = Self.image(StraightRGBAImage(width: 8, height: 8, fill: RGBAColor(red: 255, green: 0, blue: 0)), x: 50, y: 50)
        let blue = Self.image(StraightRGBAImage(width: 8, height: 8, fill: RGBAColor(red: 0, green: 0, blue: 255)), x: 50, y: 50)
        for (stacking, expected) in [(Compositor.Stacking.earlierOnTop, RGBAColor(red: 255, green: 0, blue: 0)),
                                     (.laterOnTop, RGBAColor(red: 0, green: 0, blue: 255))] {
            let frame = try CanvasMeasurements.render(Compositor(layers: [red, blue], fonts: try FontLibrary(), stacking: stacking),
                                                      width: 640, height: 360)
            #expect(frame.pixel(x: 320, y: 180) == expected, "\(stacking)")
        }
    }
}
