import Animation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Overlay

/// One config on the six shapes a real photo set contains: the marks must have the same
/// size and the same distance from their corner, as fractions of the short side, on each,
/// measured from the rendered pixels alone.
@Suite("geometry")
struct GeometryTests {
    static let shapes: [(width: Int, height: Int)] = [
        (4032, 3024), (3024, 4032), (8064, 6048), (1179, 2556), (1080, 1080), (16000, 3400),
    ]

    /// Each layer shows alone for one second, so each can be measured on its own:
    /// text at the bottom-right in [0, 1) s, a logo at the bottom-right in [1, 2) s,
    /// a text on a plate at the top-left in [2, 3) s.
    static func layers() -> [LayerSpec] {
        func window(_ start: Int) -> Visibility {
            Visibility(start: PresentationTime(seconds: Double(start)), end: PresentationTime(seconds: Double(start + 1)))
        }
        // Capitals with flat tops and feet, so the ink's height is the cap height.
        return [
            LayerSpec(content: .text("HILL"), sizeFraction: 0.04, opacity: 1,
                      timeline: LayerTimeline(xPercent: 100, yPercent: 100, visibility: window(0))),
            LayerSpec(content: .image(checkerLogo(width: 400, height: 200), name: "logo"), sizeFraction: 0.16, opacity: 1,
                      timeline: LayerTimeline(xPercent: 100, yPercent: 100, visibility: window(1))),
            LayerSpec(content: .text("HILL"), sizeFraction: 0.04, opacity: 1,
                      box: LayerSpec.Box(color: RGBAColor(argb: 0xFF202020), paddingFraction: 0.01, radiusFraction: 0),
                      timeline: LayerTimeline(xPercent: 0, yPercent: 0, visibility: window(2))),
        ]
    }

    /// What is measured on one frame, in pixels.
    struct Measurement {
        var shortSide: Int
        var textHeight: Int, textRight: Int, textBottom: Int
        var logoWidth: Int, logoHeight: Int, logoRight: Int, logoBottom: Int
        var plateHeight: Int, plateLeft: Int, plateTop: Int
    }

    @Test func marksAreTheSameFractionOfTheShortSideOnEveryShape() throws {
        let compositor = Compositor(layers: Self.layers(), fonts: try FontLibrary())
        var measured: [Measurement] = []
        // One frame at a time: the largest is 218 MB.
        for shape in Self.shapes {
            var frame = StraightRGBAImage(width: shape.width, height: shape.height)
            func inkAt(_ seconds: Double, alphaAtLeast threshold: UInt8) throws -> PixelRect {
                frame.pixels.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) }
                try frame.withCanvas { try compositor.composite(onto: $0, at: PresentationTime(seconds: seconds)) }
                return try #require(CanvasMeasurements.inkBounds(frame, alphaAtLeast: threshold),
                                    "nothing drawn at \(seconds) s on \(shape.width)×\(shape.height)")
            }
            // Half coverage finds an anti-aliased edge to within half a pixel.
            let text = try inkAt(0.5, alphaAtLeast: 128)
            let logo = try inkAt(1.5, alphaAtLeast: 1)
            let plate = try inkAt(2.5, alphaAtLeast: 128)
            measured.append(Measurement(
                shortSide: min(shape.width, shape.height),
                textHeight: text.height, textRight: shape.width - text.maxX, textBottom: shape.height - text.maxY,
                logoWidth: logo.width, logoHeight: logo.height, logoRight: shape.width - logo.maxX, logoBottom: shape.height - logo.maxY,
                plateHeight: plate.height, plateLeft: plate.x, plateTop: plate.y))
        }

        // Lengths the config states exactly: within a pixel of fraction × short side on every shape.
        func expect(_ name: String, _ value: KeyPath<Measurement, Int>, fraction: Double) {
            for m in measured {
                let expected = fraction * Double(m.shortSide)
                #expect(abs(Double(m[keyPath: value]) - expected) <= 1,
                        "\(name) is \(m[keyPath: value]) px on a short side of \(m.shortSide), expected \(expected)")
            }
        }
        expect("text cap height", \.textHeight, fraction: 0.04)
        expect("text distance from the bottom", \.textBottom, fraction: 0.03)
        expect("logo width", \.logoWidth, fraction: 0.16)
        expect("logo height", \.logoHeight, fraction: 0.08)
        expect("logo distance from the right", \.logoRight, fraction: 0.03)
        expect("logo distance from the bottom", \.logoBottom, fraction: 0.03)
        expect("plate distance from the left", \.plateLeft, fraction: 0.03)
        expect("plate distance from the top", \.plateTop, fraction: 0.03)

        // Lengths that depend on the font (side bearing, descender room under the plate): the
        // fraction measured on the largest frame, within a pixel on every other.
        func expectSameFraction(_ name: String, _ value: KeyPath<Measurement, Int>) {
            let reference = measured.max { $0.shortSide < $1.shortSide }!
            let fraction = Double(reference[keyPath: value]) / Double(reference.shortSide)
            for m in measured {
                let expected = fraction * Double(m.shortSide)
                #expect(abs(Double(m[keyPath: value]) - expected) <= 1,
                        "\(name) is \(m[keyPath: value]) px on a short side of \(m.shortSide), expected \(expected) (\(fraction) of it)")
            }
        }
        expectSameFraction("text distance from the right", \.textRight)
        expectSameFraction("plate height", \.plateHeight)
    }
}
