import Animation
import Overlay
import Testing
import TestSupport
@testable import LeakTrace

/// A variant layer as the compositor draws it on a made-up lecture: its q variants rendered by
/// `Compositor` (the real text, tiled), then the leak made and damaged, then read back.
struct VariantLecture {
    static let width = 256, height = 144

    let video = SyntheticVideo(width: width, height: height, seed: 11)
    /// Per variant, straight RGBA of the layer alone on a transparent frame.
    let renders: [StraightRGBAImage]
    let patterns: VariantPatterns

    init(count: Int = 4, opacity: Double = 0.15) throws {
        let layer = LayerSpec(content: .text("CS 101 · Fall"), sizeFraction: 0.06, opacity: opacity,
                              outline: LayerSpec.Outline(widthFraction: 0.004, color: .black), tile: TilePattern(angleDegrees: -30),
                              timeline: LayerTimeline(xPercent: 0, yPercent: 0), variants: LayerVariants(count: count, periodSeconds: 2))
        let fonts = try FontLibrary()
        renders = try (0..<count).map { variant in
            let compositor = Compositor(layers: [layer], fonts: fonts)
            compositor.variantSchedule = .constant(variant)
            var frame = StraightRGBAImage(width: Self.width, height: Self.height)
            try frame.withCanvas { try compositor.composite(onto: $0, at: .zero) }
            return frame
        }
        patterns = VariantPatterns(straightRGBA: renders)
    }

    /// The original at `seconds` with variant `variant` blended in, as a frame of that copy shows it.
    func markedFrame(at seconds: Double, variant: Int) -> LumaImage {
        var frame = video.frame(at: seconds)
        let render = renders[variant]
        for i in frame.pixels.indices {
            let alpha = Float(render.pixels[i * 4 + 3]) / 255
            guard alpha > 0 else { continue }
            let mark = 0.2126 * Float(render.pixels[i * 4]) + 0.7152 * Float(render.pixels[i * 4 + 1]) + 0.0722 * Float(render.pixels[i * 4 + 2])
            frame.pixels[i] = frame.pixels[i] * (1 - alpha) + mark * alpha
        }
        return frame
    }
}

/// How a made-up leak of a variant-marked lecture is made: whose copies, mixed how, damaged how.
struct VariantLeakRecipe {
    /// Per row's copy, its variant per 2-s period; one copy, or several averaged frame by frame.
    var copies: [[Int]]
    var periods = 0..<30
    var framesPerPeriod = 3
    /// Cropped from every side, then scaled to `width`×`height`.
    var crop = 0.0
    var width = 160, height = 90
    /// Box-blur passes of radius 2 before cropping (two passes: about a Gaussian of σ 1.6 px,
    /// which is σ 8 px on a 1280-wide original).
    var blurPasses = 0
    /// ± this many levels of noise, then rounding to 8 bits (what re-encoding leaves).
    var noise = 3
    var unmarked = false

    var map: AxisAlignedMap {
        let w = Double(VariantLecture.width), h = Double(VariantLecture.height)
        return AxisAlignedMap(mapping: PlaneRect(minX: crop * w, minY: crop * h, maxX: (1 - crop) * w, maxY: (1 - crop) * h),
                              onto: PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)))
    }

    /// Frames in the steady part of each period, with the original frame of the same instant.
    func read(_ lecture: VariantLecture) -> VariantReadings {
        let reader = VariantReader(patterns: lecture.patterns, periods: VariantPeriods(everySeconds: 2, count: 300),
                                   width: width, height: height, content: PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)),
                                   originalToAnalysis: map, displayToAnalysis: map)
        var random = SplitMix64(seed: 3)
        let region = map.inverse.apply(PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)))
        for period in periods {
            for index in 0..<framesPerPeriod {
                let time = Double(period) * 2 + 0.4 + 1.2 * Double(index) / Double(max(framesPerPeriod - 1, 1))
                var shown = LumaImage(width: VariantLecture.width, height: VariantLecture.height)
                for copy in copies {
                    let frame = unmarked ? lecture.video.frame(at: time) : lecture.markedFrame(at: time, variant: copy[period])
                    for i in shown.pixels.indices { shown.pixels[i] += frame.pixels[i] / Float(copies.count) }
                }
                for _ in 0..<blurPasses { shown = shown.boxBlurred(radius: 2) }
                var leak = shown.resampled(from: region, width: width, height: height)
                for i in leak.pixels.indices {
                    leak.pixels[i] = min(255, max(0, (leak.pixels[i] + Float(random.below(2 * noise + 1) - noise)).rounded()))
                }
                reader.add(leak: leak, original: lecture.video.frame(at: time), originalTime: time)
            }
        }
        return reader.readings()
    }
}

@Suite("variant layers: reading a leak")
struct VariantReadingTests {
    static let lecture = Result { try VariantLecture() }
    static let code = TestCode(rows: 300, positions: 300, seed: 31)

    /// How many of the recipe's periods read as exactly the variants the copies show there.
    static func correct(_ readings: VariantReadings, _ recipe: VariantLeakRecipe) -> Int {
        readings.periods.filter { reading in VariantSet(recipe.copies.map { $0[reading.period] }) == reading.variants }.count
    }

    @Test(arguments: [("re-encoded", VariantLeakRecipe(copies: [VariantReadingTests.code.codewords[17]], noise: 4)),
                      ("cropped 10% per side and scaled",
                       VariantLeakRecipe(copies: [VariantReadingTests.code.codewords[17]], crop: 0.1, width: 128, height: 72)),
                      ("blurred", VariantLeakRecipe(copies: [VariantReadingTests.code.codewords[17]], blurPasses: 2))])
    func oneCopyReadsPeriodByPeriodAndNamesItsRow(_ name: String, _ recipe: VariantLeakRecipe) throws {
        let readings = recipe.read(try Self.lecture.get())
        #expect(readings.periods.count == 30)
        #expect(Self.correct(readings, recipe) >= 28, "\(name): \(readings.periods.map { "\($0.variants)" }) strength \(readings.strength)")
        let named = Self.code.named(readings.observations(0..<300))
        #expect(named == [17], "\(name): named \(named)")
    }

    @Test func twoAveragedCopiesShowBothVariants() throws {
        var recipe = VariantLeakRecipe(copies: [Self.code.codewords[3], Self.code.codewords[4]])
        recipe.periods = 0..<20
        let readings = recipe.read(try Self.lecture.get())
        let differing = readings.periods.filter { Self.code.codewords[3][$0.period] != Self.code.codewords[4][$0.period] }
        #expect(Self.correct(readings, recipe) >= 18, "\(readings.periods.map { "\($0.variants)" })")
        for reading in differing where reading.variants.count == 2 {
            let shares = reading.shares.sorted(by: >)
            #expect(abs(shares[0] - shares[1]) < 0.35 * readings.strength, "period \(reading.period): \(reading.shares)")
        }
    }

    @Test func anUnmarkedCopyShowsNoVariantLayer() throws {
        let readings = VariantLeakRecipe(copies: [Self.code.codewords[0]], periods: 0..<10, unmarked: true).read(try Self.lecture.get())
        #expect(readings.strength < VariantReadings.leastStrength, "strength \(readings.strength)")
        #expect(readings.periods.allSatisfy { $0.variants.isErased })
    }

    @Test func periodsLeaveOutTheirBoundaries() {
        let periods = VariantPeriods(starts: [0, 2.002, 4.004])
        #expect(periods.period(at: 0.1) == nil && periods.period(at: 0.3) == 0 && periods.period(at: 1.9) == nil)
        #expect(periods.period(at: 2.3) == 1 && periods.period(at: 5.0) == 2 && periods.period(at: 5.9) == nil && periods.period(at: -1) == nil)
    }

    @Test func nonNegativeLeastSquaresFindsTheSharesShown() {
        // Two overlapping patterns, the difference is 0.6·first + 0.3·second.
        let gram = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]
        let truth = [0.6, 0.3, 0.0]
        let projections = gram.map { row in zip(row, truth).reduce(0) { $0 + $1.0 * $1.1 } }
        let shares = NonNegativeLeastSquares.solve(gram: gram, projections: projections)
        for k in 0..<3 { #expect(abs(shares[k] - truth[k]) < 1e-9, "\(shares)") }
        // A negative unconstrained share is clamped to a support without it.
        let clamped = NonNegativeLeastSquares.solve(gram: gram, projections: [1.0, -2.0, 0.1])
        #expect(clamped.allSatisfy { $0 >= 0 } && clamped[1] == 0)
    }
}
