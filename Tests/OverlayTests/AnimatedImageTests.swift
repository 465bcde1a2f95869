import Animation
import Testing
@testable import Overlay

/// Animated logos through the compositor: the frame shown is chosen by presentation time,
/// each frame is scaled once per frame size, and a tiled animation keeps its first frame.
@Suite("animated images")
struct AnimatedImageTests {
    static let colors = [RGBAColor(red: 255, green: 0, blue: 0), RGBAColor(red: 0, green: 255, blue: 0), RGBAColor(red: 0, green: 0, blue: 255)]

    static func animation(frameSeconds: PresentationTime = PresentationTime(value: 1, timescale: 2)) -> AnimatedImage {
        AnimatedImage(frames: colors.map { StraightRGBAImage(width: 20, height: 20, fill: $0) },
                      durations: Array(repeating: frameSeconds, count: 3))
    }

    static func layer(_ animation: AnimatedImage, tile: TilePattern? = nil) -> LayerSpec {
        LayerSpec(content: .animatedImage(animation, name: "bug.gif"), sizeFraction: 0.2, opacity: 1, tile: tile,
                  timeline: LayerTimeline(xPercent: 50, yPercent: 50))
    }

    /// Three 0.5 s frames: frame 2 at 0.6 s, frame 3 at 1.2 s, frame 1 again at 1.6 s.
    @Test func theFrameShownFollowsPresentationTime() throws {
        let compositor = Compositor(layers: [Self.layer(Self.animation())], fonts: try FontLibrary())
        for (milliseconds, frame) in [(0, 0), (400, 0), (600, 1), (1200, 2), (1600, 0), (2100, 1)] {
            let image = try CanvasMeasurements.render(compositor, width: 100, height: 100,
                                                      at: PresentationTime(milliseconds: Int64(milliseconds)))
            #expect(image.pixel(x: 50, y: 50) == Self.colors[frame], "at \(milliseconds) ms")
        }
    }

    /// Going back in time (a thumbnail after a transcode, a seek) gives the same pixels as
    /// the first visit: the choice depends on the time alone.
    @Test func framesArePreparedOnceAndReusedInAnyOrder() throws {
        let compositor = Compositor(layers: [Self.layer(Self.animation())], fonts: try FontLibrary())
        let times = [1600, 600, 1200, 0, 600, 1600].map { PresentationTime(milliseconds: Int64($0)) }
        let first = try times.map { try CanvasMeasurements.render(compositor, width: 100, height: 100, at: $0) }
        let fresh = Compositor(layers: [Self.layer(Self.animation())], fonts: try FontLibrary())
        let again = try times.reversed().map { try CanvasMeasurements.render(fresh, width: 100, height: 100, at: $0) }
        #expect(first == Array(again.reversed()))
    }

    @Test func aTiledAnimationShowsItsFirstFrameAndSaysSo() throws {
        let warnings = WarningList()
        let compositor = Compositor(layers: [Self.layer(Self.animation(), tile: TilePattern(angleDegrees: 0))],
                                    fonts: try FontLibrary(), warn: { warnings.append($0) })
        let later = try CanvasMeasurements.render(compositor, width: 100, height: 100, at: PresentationTime(milliseconds: 600))
        #expect(later.pixels.enumerated().allSatisfy { index, value in index % 4 != 1 || value == 0 }, "no green from frame 2")
        #expect(warnings.messages.filter { $0.contains("animated") }.count == 1)
    }
}
