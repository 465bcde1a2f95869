import Foundation
import Testing
import TestSupport
@testable import LeakTrace

/// The still's geometry on synthetic pictures: homographies, RANSAC among wrong pairs, and a
/// picture found again through features after a known perspective warp, noise and a tone change.
@Suite("still trace: placement geometry")
struct StillGeometryTests {
    static func close(_ a: (x: Double, y: Double)?, _ b: (x: Double, y: Double), within tolerance: Double) -> Bool {
        guard let a else { return false }
        return abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
    }

    /// A perspective of the kind a photograph gives.
    static let photograph = Homography([0.84, 0.044, 205, -0.045, 0.9, 299, -6e-5, 1e-5, 1])

    @Test func fourPairsGiveTheirHomographyAndManyNoisyOnesItsLeastSquares() throws {
        let corners = [(x: 0.0, y: 0.0), (x: 640, y: 0), (x: 640, y: 360), (x: 0, y: 360)]
        let images = try corners.map { try #require(Self.photograph.apply(x: $0.x, y: $0.y)) }
        let exact = try #require(Homography.fitting(from: corners, to: images))
        for (a, b) in zip(exact.entries, Self.photograph.entries) { #expect(abs(a - b) <= 1e-6 * max(1, abs(b))) }

        var random = SplitMix64(seed: 7)
        let points = (0..<200).map { _ in (x: random.unit() * 640, y: random.unit() * 360) }
        let noisy = try points.map { point -> (x: Double, y: Double) in
            let image = try #require(Self.photograph.apply(x: point.x, y: point.y))
            return (image.x + (random.unit() - 0.5) * 0.6, image.y + (random.unit() - 0.5) * 0.6)
        }
        let fitted = try #require(Homography.fitting(from: points, to: noisy))
        #expect(Self.close(fitted.apply(x: 320, y: 180), try #require(Self.photograph.apply(x: 320, y: 180)), within: 0.2))
        let back = try #require(fitted.inverse)
        #expect(Self.close(back.apply(x: noisy[0].x, y: noisy[0].y), points[0], within: 0.5))
    }

    @Test func aMirrorImageOrAFoldIsNoScreen() {
        let rect = PlaneRect(minX: 0, minY: 0, maxX: 100, maxY: 50)
        #expect(Self.photograph.keepsOrientation(of: rect))
        #expect(!Homography(scaleX: -1, scaleY: 1, offsetX: 100, offsetY: 0).keepsOrientation(of: rect))
        #expect(Homography.fitting(from: [(0, 0), (1, 0), (2, 0), (0, 1)], to: [(0, 0), (1, 0), (2, 0), (0, 1)]) == nil
                || RobustHomography.degenerate([(0, 0), (1, 0), (2, 0), (0, 1)]))
    }

    @Test func ransacFindsTheMapAmongWrongPairs() throws {
        var random = SplitMix64(seed: 11)
        var from: [(x: Double, y: Double)] = [], to: [(x: Double, y: Double)] = []
        for index in 0..<300 {
            let point = (x: random.unit() * 640, y: random.unit() * 360)
            from.append(point)
            // Two of every five pairs are wrong.
            if index % 5 < 2 {
                to.append((random.unit() * 1600, random.unit() * 1200))
            } else {
                to.append(try #require(Self.photograph.apply(x: point.x, y: point.y)))
            }
        }
        let estimate = try #require(RobustHomography.estimate(from: from, to: to, threshold: 1.5))
        #expect(estimate.inliers.count >= 175 && estimate.inliers.count <= 185)
        #expect(Self.close(estimate.map.apply(x: 100, y: 300), try #require(Self.photograph.apply(x: 100, y: 300)), within: 0.5))
        // Pairs that agree on nothing give no map.
        let noise = (0..<100).map { _ in (x: random.unit() * 1600, y: random.unit() * 1200) }
        #expect(RobustHomography.estimate(from: Array(from.prefix(100)), to: noise, threshold: 1.5, minimumInliers: 12) == nil)
    }

    /// A slide-like picture: blocks of "text" (short bars of random lengths), a frame, a figure.
    static func slide(width: Int, height: Int, seed: UInt64) -> LumaImage {
        var random = SplitMix64(seed: seed)
        var image = LumaImage(width: width, height: height, filledWith: 40)
        func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int, _ value: Float) {
            for y in max(0, y0)..<min(height, y0 + h) { for x in max(0, x0)..<min(width, x0 + w) { image[x, y] = value } }
        }
        fill(0, 0, width, height / 8, 90)
        var y = height / 6
        while y < height - 12 {
            var x = width / 20
            while x < width * 9 / 10 {
                let word = 4 + random.below(20)
                fill(x, y, word, 5 + random.below(3), 200 + Float(random.below(40)))
                x += word + 3 + random.below(5)
            }
            y += 12 + random.below(6)
        }
        return image
    }

    @Test func aPhotographedFrameIsPlacedAgainThroughItsFeatures() throws {
        let frame = Self.slide(width: 640, height: 360, seed: 3)
        // The still: the frame seen through the photograph's perspective, brighter, noisy.
        let stillToFrame = try #require(Self.photograph.inverse)
        let display = PicturePyramid(frame)
        let warped = display.warped(by: stillToFrame, region: PlaneRect(minX: 0, minY: 0, maxX: 800, maxY: 600), width: 800, height: 600)
        var random = SplitMix64(seed: 5)
        let still = LumaImage(width: 800, height: 600, pixels: zip(warped.image.pixels, warped.valid).map { value, seen in
            (seen ? 0.85 * value + 30 : 110) + Float(random.unit() - 0.5) * 12
        })
        let (features, scale) = StillFrameSearch.features(of: PicturePyramid(still))
        let frames = FeatureFrame.finding(in: [TimedLuma(time: 0, image: frame)], displayWidth: 640)
        let placement = try #require(StillPlacementSearch.place(still: features, stillScale: scale, stillSize: (800, 600),
                                                                 frames: frames, display: (640, 360)))
        #expect(placement.inliers >= 30)
        var map = placement.map
        map = PlacementRefinement.refine(map, still: PicturePyramid(still), frame: frame, display: (640, 360), radius: 3)
        for corner in [(x: 0.0, y: 0.0), (x: 640, y: 0), (x: 640, y: 360), (x: 0, y: 360), (x: 320, y: 180)] {
            let truth = try #require(Self.photograph.apply(x: corner.x, y: corner.y))
            #expect(Self.close(map.apply(x: corner.x, y: corner.y), truth, within: 1.5), "\(corner): \(String(describing: map.apply(x: corner.x, y: corner.y))) vs \(truth)")
        }
    }

    /// Two slides of one template, a number changed, gather nearly as many feature pairs: both
    /// are rivals, and each look's thumbnails are searched whole, from a thumbnail interval
    /// before the look was seen to the next look.
    @Test func slidesOfOneTemplateAreRivalsAndSearchedWhole() throws {
        let first = Self.slide(width: 640, height: 360, seed: 3)
        var second = first
        for y in 20..<34 { for x in 500..<530 { second[x, y] = 255 - first[x, y] } }
        let frames = FeatureFrame.finding(in: [TimedLuma(time: 0, image: first), TimedLuma(time: 6, image: second)], displayWidth: 640)
        let (features, scale) = StillFrameSearch.features(of: PicturePyramid(second))
        let placement = try #require(StillPlacementSearch.place(still: features, stillScale: scale, stillSize: (640, 360),
                                                                 frames: frames, display: (640, 360)))
        #expect(Set(placement.rivals) == [0, 1], "\(placement.rivals)")
        let thumbnails = stride(from: 0.0, to: 12, by: 0.5).map { TimedLuma(time: $0, image: LumaImage(width: 4, height: 2, filledWith: 0)) }
        let overview = StillFrameSearch.Overview(thumbnails: thumbnails, featureFrames: frames, display: (640, 360))
        #expect(StillFrameSearch.thumbnails(ofLooks: [1], overview: overview).map { thumbnails[$0].time } == Array(stride(from: 5.5, to: 12, by: 0.5)))
        #expect(StillFrameSearch.thumbnails(ofLooks: [0], overview: overview).map { thumbnails[$0].time } == Array(stride(from: 0.0, to: 6, by: 0.5)))
    }

    @Test func theBrightnessOfAScreenIsFittedAroundTheMarks() {
        var random = SplitMix64(seed: 9)
        let original = LumaImage(width: 100, height: 50, pixels: (0..<5000).map { _ in Float(random.below(200)) + 20 })
        var still = LumaImage(width: 100, height: 50, pixels: original.pixels.map { 0.8 * $0 + 25 })
        // A mark over a tenth of the picture.
        for y in 10..<15 { for x in 0..<100 { still[x, y] = 255 } }
        let fit = PhotometricFit.fit(still: still, original: original, valid: [Bool](repeating: true, count: 5000))
        #expect(abs(fit.gain - 0.8) < 0.02 && abs(fit.offset - 25) < 2, "\(fit)")
    }

    /// The still's instant shows a clean slide under the mark; at another instant a pointer sits
    /// under the mark's place. The mark's soft edges are nearer the pointer's grey than the
    /// slide's, so compared everywhere the other instant looks nearer and the still's own is
    /// ruled out; what the still covers with its mark cannot tell the two apart, and both stay.
    @Test func whatTheMarkCoversCannotRuleAnInstantOut() {
        let (width, height) = (80, 40)
        let slide = LumaImage(width: width, height: height, filledWith: 55)
        var pointer = slide
        for y in 18..<22 { for x in 40..<44 { pointer[x, y] = 80 } }
        // The mark over rows 16..<24: glyphs at 165, their soft edges at 85 (every other column).
        var still = slide
        for y in 16..<24 { for x in 20..<60 { still[x, y] = x % 2 == 0 ? 165 : 85 } }
        let view = StillView(PicturePyramid(still), map: .identity, display: (width, height), width: width, height: height)
        let fit = PhotometricFit(gain: 1, offset: 0)
        // Seen everywhere, the pointer's frame wins on the soft edges and rules the slide out.
        #expect(!StillTiming.indistinguishable(slide, from: pointer, view: view, fit: fit))
        let covered = StillTiming.ownMarks(view, best: pointer, fit: fit)
        #expect(covered[20 * width + 41] && !covered[5 * width + 5])
        #expect(StillTiming.indistinguishable(slide, from: pointer, view: view.hiding(covered), fit: fit))
        // Where the still shows the pointer itself, it still tells the frames apart.
        var shown = slide
        for y in 18..<22 { for x in 40..<44 { shown[x, y] = 80 } }
        let shownView = StillView(PicturePyramid(shown), map: .identity, display: (width, height), width: width, height: height)
        let shownCovered = StillTiming.ownMarks(shownView, best: pointer, fit: fit)
        #expect(!StillTiming.indistinguishable(slide, from: pointer, view: shownView.hiding(shownCovered), fit: fit))
    }

    /// A crop that is mostly mark: on the row of its baseline the glyphs' strokes outnumber
    /// the slide's pixels, and a fit of that row alone takes the mark for the slide's tone (a
    /// line of mark across the whole crop). The rows around it say what the row's tone is; a
    /// player's bar, rows high, keeps its sharp edge.
    @Test func aRowMostlyMarkKeepsItsNeighboursToneAndABarKeepsItsEdge() {
        var random = SplitMix64(seed: 4)
        let (width, height) = (200, 60)
        let original = LumaImage(width: width, height: height, pixels: (0..<(width * height)).map { _ in Float(random.below(120)) + 40 })
        var still = original
        // A bar over rows 40 and below halves the tones (a player's translucent controls).
        for y in 40..<height { for x in 0..<width { still[x, y] = 0.5 * original[x, y] } }
        // Only columns 60..<140 are seen (a crop); on row 20, 70 % of them are a mark's stroke.
        let valid = (0..<(width * height)).map { (60..<140).contains($0 % width) }
        for x in 60..<116 { still[x, 20] = 255 }
        let tones = ToneField(still: WarpedPicture(image: still, valid: valid), original: original,
                              global: PhotometricFit(gain: 1, offset: 0), block: 10)
        // A slide pixel of the mark's row, and of the rows either side of the bar's edge.
        for (x, y, expected) in [(130, 20, original[130, 20]), (100, 39, original[100, 39]), (100, 40, 0.5 * original[100, 40])] {
            let index = y * width + x
            #expect(abs(tones.apply(original[x, y], at: index) - expected) < 3, "row \(y): \(tones.apply(original[x, y], at: index)) for \(expected)")
        }
    }
}

extension SplitMix64 {
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / 9_007_199_254_740_992.0 }
}
