import Testing
@testable import LeakTrace

@Suite("leak tracing: alignment")
struct AlignmentTests {
    static let video = SyntheticVideo(width: 192, height: 108)

    /// Cropped unevenly (so x and y scale differently) and shrunk: the crops come back to a
    /// fraction of a leak pixel.
    @Test func registrationRecoversUnevenCropsAndScale() {
        let crops = CropFractions(left: 0.08, right: 0.01, top: 0.05, bottom: 0.03)
        let pairs = [2.0, 5.5, 9.0, 13.0].map { second -> FramePair in
            let original = Self.video.frame(at: second)
            let leak = original.resampled(from: crops.visibleRegion(width: 192, height: 108), width: 128, height: 72)
            return FramePair(leak: leak, original: original)
        }
        let result = SpatialRegistration.register(pairs, leakContent: PlaneRect(minX: 0, minY: 0, maxX: 128, maxY: 72))
        #expect(result.correlation > 0.99)
        for side in 0..<4 {
            #expect(abs(result.crops[side] - crops[side]) < 0.004, "side \(side): \(result.crops[side]) for \(crops[side])")
        }
    }

    /// A leak with bars: the picture is mapped into the content area, not the whole frame.
    @Test func registrationMapsIntoTheContentArea() {
        let crops = CropFractions(left: 0.0, right: 0.1, top: 0.0, bottom: 0.0)
        let content = PlaneRect(minX: 0, minY: 9, maxX: 128, maxY: 63)
        let pairs = [3.0, 8.0, 12.0].map { second -> FramePair in
            let original = Self.video.frame(at: second)
            let picture = original.resampled(from: crops.visibleRegion(width: 192, height: 108), width: 128, height: 54)
            var leak = LumaImage(width: 128, height: 72, filledWith: 0)
            for y in 0..<54 { for x in 0..<128 { leak[x, y + 9] = picture[x, y] } }
            return FramePair(leak: leak, original: original)
        }
        #expect(ContentArea.detect(in: pairs.map(\.leak)) == content)
        let result = SpatialRegistration.register(pairs, leakContent: content)
        let topLeft = result.map.apply(x: 0, y: 0)
        #expect(abs(topLeft.x) < 0.5 && abs(topLeft.y - 9) < 0.5, "original (0, 0) lands at \(topLeft)")
    }

    /// The leak starts 6.3 s into the original and runs at 8 fps against keyframes every 2 s:
    /// the coarse search finds the start to a frame, the refinement to a fraction of one.
    @Test func offsetIsFoundFromKeyframesThenRefined() {
        let recipe = LeakRecipe()
        let rows = SyntheticRows(count: 1, width: 192, height: 108, durationMilliseconds: 2000)
        let leak = recipe.frames(of: Self.video, rows: rows)
        let keyframes = stride(from: 0.0, through: 40, by: 2).map { TimedLuma(time: $0, image: Self.video.frame(at: $0)) }
        let content = PlaneRect(minX: 0, minY: 0, maxX: 128, maxY: 72)
        let prints = leak.map { TimedLuma(time: $0.time, image: TemporalAlignment.fingerprint(of: $0.image, region: content)) }
        let keyPrints = keyframes.map { TimedLuma(time: $0.time, image: TemporalAlignment.fingerprint(of: $0.image, region: $0.image.bounds)) }
        let best = TemporalAlignment.candidates(leak: prints, keyframes: keyPrints).first
        #expect(abs((best?.offset ?? 0) - 6.3) <= 0.126, "coarse offset \(String(describing: best))")
        let map = AxisAlignedMap(mapping: recipe.crops.visibleRegion(width: 192, height: 108), onto: content)
        let refined = TemporalAlignment.refine(offset: best?.offset ?? 0, leak: leak, keyframes: keyframes, map: map, leakContent: content)
        #expect(abs((refined ?? 0) - 6.3) < 0.03, "refined offset \(String(describing: refined))")
    }
}
