import Testing
@testable import LeakTrace

@Suite("leak tracing: pictures and maps")
struct ImagingTests {
    @Test func shrinkingAveragesTheAreaEachPixelCovers() {
        let image = LumaImage(width: 4, height: 2, pixels: [0, 4, 8, 12, 16, 20, 24, 28])
        #expect(image.resized(width: 2, height: 1).pixels == [10, 18])
        // A third of a pixel's width: the footprint [0, 4/3) takes pixel 0 whole and a third of pixel 1.
        let thirds = image.resampled(from: PlaneRect(minX: 0, minY: 0, maxX: 4, maxY: 1), width: 3, height: 1)
        #expect(abs(thirds.pixels[0] - (0 + 4.0 / 3) / (4.0 / 3)) < 1e-4)
    }

    @Test func enlargingInterpolatesBetweenPixelCentres() {
        let image = LumaImage(width: 2, height: 1, pixels: [0, 100])
        let wide = image.resampled(from: image.bounds, width: 4, height: 1)
        // Output centres at source x = 0.25, 0.75, 1.25, 1.75: clamped, 25, 75, clamped.
        #expect(wide.pixels == [0, 25, 75, 100])
    }

    @Test func regionsPastTheEdgeRepeatTheEdge() {
        let image = LumaImage(width: 2, height: 2, pixels: [10, 20, 30, 40])
        let shifted = image.resampled(from: PlaneRect(minX: -1, minY: 0, maxX: 1, maxY: 2), width: 2, height: 2)
        #expect(shifted.pixels == [10, 10, 30, 30])
    }

    @Test func boxBlurKeepsFlatPicturesAndAverages() {
        let flat = LumaImage(width: 5, height: 4, filledWith: 7)
        #expect(flat.boxBlurred(radius: 2) == flat)
        var dot = LumaImage(width: 5, height: 5, filledWith: 0)
        dot[2, 2] = 90
        #expect(dot.boxBlurred(radius: 1)[1, 1] == 10)
        #expect(dot.boxBlurred(radius: 1)[0, 0] == 0)
    }

    @Test func mapsComposeAndInvert() {
        let map = AxisAlignedMap(mapping: PlaneRect(minX: 76.8, minY: 27, maxX: 960, maxY: 540),
                                 onto: PlaneRect(minX: 0, minY: 0, maxX: 640, maxY: 360))
        let corner = map.apply(x: 76.8, y: 540)
        #expect(abs(corner.x) < 1e-9 && abs(corner.y - 360) < 1e-9)
        let roundTrip = map.followed(by: map.inverse)
        #expect(abs(roundTrip.scaleX - 1) < 1e-12 && abs(roundTrip.offsetY) < 1e-9)
        let rect = map.inverse.apply(PlaneRect(minX: 0, minY: 0, maxX: 640, maxY: 360))
        #expect(abs(rect.minX - 76.8) < 1e-9 && abs(rect.maxY - 540) < 1e-9)
    }

    @Test func compactPicturesRoundToBytes() {
        let image = LumaImage(width: 3, height: 1, pixels: [-4, 12.4, 300])
        #expect(CompactLuma(image).image.pixels == [0, 12, 255])
    }
}

@Suite("leak tracing: letterbox")
struct ContentAreaTests {
    /// A textured picture inside bars of `bar` rows (top and bottom) and `side` columns.
    static func framed(top: Int, bottom: Int, side: Int, seed: Int) -> LumaImage {
        var image = LumaImage(width: 64, height: 48, filledWith: 16)
        for y in top..<(48 - bottom) {
            for x in side..<(64 - side) { image[x, y] = Float((x * 7 + y * 13 + seed * 5) % 97 + 60) }
        }
        return image
    }

    @Test func barsOnEverySideAreFound() {
        let frames = (0..<3).map { Self.framed(top: 6, bottom: 5, side: 4, seed: $0) }
        #expect(ContentArea.detect(in: frames) == PlaneRect(minX: 4, minY: 6, maxX: 60, maxY: 43))
    }

    @Test func aPictureWithoutBarsIsAllContent() {
        let frames = (0..<3).map { Self.framed(top: 0, bottom: 0, side: 0, seed: $0) }
        #expect(ContentArea.detect(in: frames) == PlaneRect(minX: 0, minY: 0, maxX: 64, maxY: 48))
    }

    /// A flat band that changes between frames (a title bar whose colour fades) is picture.
    @Test func aBandThatChangesOverTimeIsNotABar() {
        let frames = (0..<3).map { seed -> LumaImage in
            var image = Self.framed(top: 0, bottom: 0, side: 0, seed: seed)
            for y in 0..<5 { for x in 0..<64 { image[x, y] = Float(30 + 40 * seed) } }
            return image
        }
        #expect(ContentArea.detect(in: frames).minY == 0)
    }
}
