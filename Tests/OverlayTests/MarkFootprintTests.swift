import Animation
import Testing
@testable import Overlay

/// `Compositor.markRects` says where marks land without drawing them: it must agree with the
/// pixels `composite` draws, frame after frame, because leak tracing relies on it.
@Suite("mark footprints")
struct MarkFootprintTests {
    static func movingText(_ text: String, outline: Bool = false) -> LayerSpec {
        LayerSpec(content: .text(text), sizeFraction: 0.05, opacity: 1,
                  outline: outline ? LayerSpec.Outline(widthFraction: 0.006, color: .black) : nil,
                  timeline: LayerTimeline(xPercent: 0, yPercent: 0,
                                          motion: .random(durationMilliseconds: 1000, seed: RandomSeed.from(text: text), easeMilliseconds: 0)))
    }

    @Test(arguments: [false, true])
    func rectsHoldExactlyTheDrawnInk(outline: Bool) throws {
        let compositor = Compositor(layers: [Self.movingText("ada@example.com", outline: outline)], fonts: try FontLibrary())
        let sprite = try compositor.makeSprite(compositor.layers[0], displayWidth: 320, displayHeight: 180, warn: { _ in })
        let spriteInk = try #require(sprite.image.opaqueBounds())
        for second in [0.2, 1.5, 2.7, 3.1, 7.9] {
            let time = PresentationTime(seconds: second)
            let frame = try CanvasMeasurements.render(compositor, width: 320, height: 180, at: time)
            let ink = try #require(CanvasMeasurements.inkBounds(frame))
            let rect = try #require(try compositor.markRects(at: time, storedWidth: 320, storedHeight: 180)[0])
            #expect(rect.width == sprite.image.width && rect.height == sprite.image.height)
            #expect(ink == PixelRect(x: rect.x + spriteInk.x, y: rect.y + spriteInk.y, width: spriteInk.width, height: spriteInk.height),
                    "at \(second) s")
        }
    }

    /// Rects are in display coordinates: a frame stored sideways gets the upright layout.
    @Test func rotatedStorageGivesDisplayRects() throws {
        let compositor = Compositor(layers: [Self.movingText("grace@example.com")], fonts: try FontLibrary())
        let time = PresentationTime(seconds: 4.2)
        let upright = try compositor.markRects(at: time, storedWidth: 320, storedHeight: 180)
        let sideways = try compositor.markRects(at: time, storedWidth: 180, storedHeight: 320,
                                                rotation: DisplayRotation(clockwiseQuarterTurns: 1))
        #expect(upright == sideways)
    }

    @Test func hiddenLayersHaveNoRect() throws {
        var layer = Self.movingText("zoe@example.com")
        layer.timeline = LayerTimeline(xPercent: 0, yPercent: 0, visibility: Visibility(start: PresentationTime(seconds: 2)))
        let compositor = Compositor(layers: [layer], fonts: try FontLibrary())
        #expect(try compositor.markRects(at: PresentationTime(seconds: 1), storedWidth: 320, storedHeight: 180) == [nil])
        #expect(try compositor.markRects(at: PresentationTime(seconds: 3), storedWidth: 320, storedHeight: 180)[0] != nil)
    }

    @Test func footprintPlacesTheLayoutBoxBetweenTheInsets() {
        let footprint = MarkFootprint(width: 50, height: 20, layoutBox: PixelRect(x: 2, y: 4, width: 40, height: 10),
                                      displayWidth: 200, displayHeight: 100, insetPixels: 5, isTiled: false)
        #expect(footprint.displayRect(xPercent: 0, yPercent: 0) == PixelRect(x: 3, y: 1, width: 50, height: 20))
        // x = 100: the layout box's right edge at 200 − 5, so the box's left at 155 and the image's at 153.
        #expect(footprint.displayRect(xPercent: 100, yPercent: 100) == PixelRect(x: 153, y: 81, width: 50, height: 20))
        // A box wider than the room between the insets: centred by videowm, kept at the left inset by TPStreams.
        let wide = PixelRect(x: 0, y: 0, width: 195, height: 10)
        let standard = MarkFootprint(width: 195, height: 10, layoutBox: wide, displayWidth: 200, displayHeight: 100, insetPixels: 5, isTiled: false)
        let tpStreams = MarkFootprint(width: 195, height: 10, layoutBox: wide, displayWidth: 200, displayHeight: 100, insetPixels: 5,
                                      convention: .tpStreams, isTiled: false)
        #expect(standard.displayRect(xPercent: 100, yPercent: 0).x == 2)
        #expect(tpStreams.displayRect(xPercent: 100, yPercent: 0).x == 5)
    }
}
