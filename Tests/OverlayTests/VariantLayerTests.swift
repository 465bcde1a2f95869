import Animation
import Testing
@testable import Overlay

/// A variant layer's variants are its tile's pattern shifted by k/q of the lattice's row-to-row
/// step (docs/design/variant-marks.md §3), drawn deterministically, one per period as the schedule says.
@Suite("variant layers")
struct VariantLayerTests {
    /// A 20×10 opaque tile with a recognisable inside, so a shift shows in every pixel.
    static let tile = checkerLogo(width: 20, height: 10, cell: 5).premultiplied()

    /// Angle 0, 200×100 frame, gap 0.2 of the short side (20 px): cells 40×30, so phase 0.5 moves
    /// the lattice by exactly (10, 15) pixels and phase 1 by one lattice vector (20, 30).
    static func pattern(phase: Double) -> PremultipliedRGBAImage {
        TilePattern(angleDegrees: 0, spacingFraction: 0.2, phase: phase).render(tile: tile, frameWidth: 200, frameHeight: 100)
    }

    @Test func aPhaseShiftsTheLatticeByThatShareOfItsRowStep() {
        let base = Self.pattern(phase: 0), half = Self.pattern(phase: 0.5)
        #expect(base != half)
        var compared = 0
        for y in 15..<100 {
            for x in 10..<200 {
                #expect(half.pixel(x: x, y: y) == base.pixel(x: x - 10, y: y - 15), "(\(x), \(y))")
                compared += 1
            }
        }
        #expect(compared > 15_000)
    }

    /// Phase 1 is one of the lattice's own vectors: the same pattern, where floating point agrees.
    @Test func aWholePhaseIsThePatternAgain() {
        let base = Self.pattern(phase: 0), whole = Self.pattern(phase: 1)
        let differing = stride(from: 0, to: base.pixels.count, by: 4).filter { base.pixels[$0 + 3] != whole.pixels[$0 + 3] }.count
        #expect(differing <= base.width * base.height / 100, "\(differing) pixels differ")
    }

    /// Phase 0 is the unshifted pattern bit for bit, so existing tiles keep their pixels.
    @Test func phaseZeroIsTheTileAsBefore() {
        let explicit = TilePattern(angleDegrees: -30, spacingFraction: nil, phase: 0).render(tile: Self.tile, frameWidth: 320, frameHeight: 180)
        let plain = TilePattern(angleDegrees: -30).render(tile: Self.tile, frameWidth: 320, frameHeight: 180)
        #expect(explicit == plain)
    }

    static func variantLayer(count: Int = 4) -> LayerSpec {
        LayerSpec(content: .text("CS 101"), sizeFraction: 0.05, opacity: 0.2, tile: TilePattern(angleDegrees: -30),
                  timeline: LayerTimeline(xPercent: 0, yPercent: 0), variants: LayerVariants(count: count, periodSeconds: 2))
    }

    static func frame(_ compositor: Compositor, at seconds: Double) throws -> StraightRGBAImage {
        try CanvasMeasurements.render(compositor, width: 320, height: 180, at: PresentationTime(seconds: seconds))
    }

    /// Each period shows the variant the schedule gives it, exactly as that variant's own render
    /// (a shared render, `.constant(k)`) draws it; the q variants all differ; drawing is repeatable.
    @Test func eachPeriodShowsItsVariantAsTheSharedRenderDrawsIt() throws {
        let fonts = try FontLibrary()
        let renders = try (0..<4).map { variant -> StraightRGBAImage in
            let shared = Compositor(layers: [Self.variantLayer()], fonts: fonts)
            shared.variantSchedule = .constant(variant)
            return try Self.frame(shared, at: 0.5)
        }
        for a in 0..<4 { for b in (a + 1)..<4 { #expect(renders[a] != renders[b], "variants \(a) and \(b)") } }

        let student = Compositor(layers: [Self.variantLayer()], fonts: fonts)
        let codeword = [2, 0, 3, 3, 1]
        student.variantSchedule = VariantSchedule(periodSeconds: 2, variants: codeword)
        for (period, variant) in codeword.enumerated() {
            for into in [0.0, 1.0, 1.96] {
                #expect(try Self.frame(student, at: Double(period) * 2 + into) == renders[variant], "period \(period) at +\(into) s")
            }
        }
        // Twice the same: deterministic, whichever variant was prepared first.
        #expect(try Self.frame(student, at: 6.5) == renders[3])
        #expect(try Self.frame(student, at: 0.1) == renders[2])
    }

    /// Variant k is phase k/q of the same tile: the variant layer's variant 2 of 4 equals a plain
    /// tiled layer at phase 0.5, and a layer without variants ignores the schedule.
    @Test func variantKIsTheTileAtPhaseKOverQ() throws {
        let fonts = try FontLibrary()
        let variants = Compositor(layers: [Self.variantLayer()], fonts: fonts)
        variants.variantSchedule = .constant(2)
        var plainSpec = Self.variantLayer()
        plainSpec.variants = nil
        plainSpec.tile?.phase = 0.5
        let plain = Compositor(layers: [plainSpec], fonts: fonts)
        plain.variantSchedule = .constant(3)
        #expect(try Self.frame(variants, at: 1) == Self.frame(plain, at: 1))
    }

    /// A hidden period (a student's own, where their e-mail names them) draws no variant layer,
    /// while the student's other marks draw as they would alone; the periods around it draw
    /// their variants, and `drawsAnything` agrees with what is drawn.
    @Test func aHiddenPeriodDrawsTheStudentsOwnMarksWithoutTheLayer() throws {
        let fonts = try FontLibrary()
        let email = LayerSpec(content: .text("ada@example.com"), sizeFraction: 0.08, opacity: 0.9,
                              timeline: LayerTimeline(xPercent: 50, yPercent: 50, visibility: Visibility(start: PresentationTime(seconds: 2.5), end: PresentationTime(seconds: 3.5))))
        let student = Compositor(layers: [email, Self.variantLayer()], fonts: fonts)
        student.variantSchedule = VariantSchedule(periodSeconds: 2, variants: [1, 2, 3]).hiding([false, true, false])
        let emailAlone = Compositor(layers: [email], fonts: fonts)
        let shared = Compositor(layers: [Self.variantLayer()], fonts: fonts)
        shared.variantSchedule = .constant(3)
        #expect(try Self.frame(student, at: 3) == Self.frame(emailAlone, at: 3), "the e-mail alone in its period")
        #expect(try Self.frame(student, at: 2.2) == StraightRGBAImage(width: 320, height: 180), "nothing before the e-mail in its period")
        #expect(!student.drawsAnything(at: PresentationTime(seconds: 2.2)))
        #expect(student.drawsAnything(at: PresentationTime(seconds: 3)))
        #expect(try Self.frame(student, at: 4.5) == Self.frame(shared, at: 4.5), "the next period's variant")
    }

    @Test func schedulesFindThePeriodOfATime() {
        let schedule = VariantSchedule(periodStarts: [.zero, PresentationTime(seconds: 2.002), PresentationTime(seconds: 4.004)],
                                       variants: [1, 0, 3])
        #expect(schedule.variant(at: PresentationTime(seconds: -0.1)) == 1)
        #expect(schedule.variant(at: PresentationTime(seconds: 2.001)) == 1)
        #expect(schedule.variant(at: PresentationTime(seconds: 2.002)) == 0)
        #expect(schedule.variant(at: PresentationTime(seconds: 100)) == 3)
        #expect(schedule.period(at: PresentationTime(seconds: 4.004)) == 2)
    }
}
