import Animation
import Foundation
import Overlay
import Testing
@testable import LeakTrace

/// The whole chain on made-up media: a leak cropped, shrunk, re-timed, noised, with one row's
/// mark blurred beyond reading, is traced back to that row; an unmarked copy to nobody.
@Suite("leak tracing: identification")
struct TracingTests {
    static let video = SyntheticVideo(width: 192, height: 108)
    static let rows = SyntheticRows(count: 60, width: 192, height: 108, durationMilliseconds: 2000)

    static func trace(_ recipe: LeakRecipe) throws -> (analysis: LeakAnalysis, verdict: TraceVerdict) {
        let (traced, schedules) = TracedLayers.find(in: rows.layers)
        let analyzer = LeakAnalyzer(originalDisplayWidth: 192, originalDisplayHeight: 108, schedules: schedules,
                                    visibility: [[Visibility.always]])
        var leak = ArrayFrameSource(recipe.frames(of: video, rows: rows))
        var keyframes = ArrayFrameSource(stride(from: 0.0, through: 40, by: 2).map { TimedLuma(time: $0, image: video.frame(at: $0)) })
        let analysis = try analyzer.analyse(leak: &leak, keyframes: &keyframes) { start in
            ArrayFrameSource(stride(from: (start * 10).rounded(.down) / 10, through: 40, by: 0.1).map { TimedLuma(time: $0, image: video.frame(at: $0)) })
        }
        let marks = rows.layers.indices.map {
            TracedLayers.marks(of: rows.layers[$0], footprints: rows.footprints[$0], traced: traced, schedules: schedules, slots: analysis.maps.slots)
        }
        let scorer = RowScorer(maps: analysis.maps, displayToMap: analysis.displayToMap, content: analysis.content)
        return (analysis, TraceVerdict(ranking: scorer.score(marks)))
    }

    @Test func theMarkedRowIsIdentifiedAndNobodyElse() throws {
        let (analysis, verdict) = try Self.trace(LeakRecipe(markedRow: 17))
        #expect(abs(analysis.offset - 6.3) < 0.05)
        #expect(abs(analysis.crops.left - 0.08) < 0.01 && abs(analysis.crops.top - 0.05) < 0.01)
        #expect(verdict.ranking.first?.row == 17)
        #expect(verdict.identified.map(\.row) == [17], "ranking: \(verdict.ranking.prefix(3))")
    }

    /// A crop the keyframes' fingerprints do not shrug off (14 % per side moves the picture's edges by
    /// over two cells of the grid): the offset is proposed with the keyframes cropped alike
    /// (`LeakAnalyzer.cropGuesses`) and each proposal registered alone.
    @Test func aHeavilyCroppedLeakIsPlacedAndTraced() throws {
        let recipe = LeakRecipe(offset: 11.7, crops: CropFractions(left: 0.14, right: 0.14, top: 0.14, bottom: 0.14), markedRow: 17)
        let (analysis, verdict) = try Self.trace(recipe)
        #expect(abs(analysis.offset - 11.7) < 0.05)
        #expect(abs(analysis.crops.left - 0.14) < 0.01 && abs(analysis.crops.bottom - 0.14) < 0.01)
        #expect(verdict.identified.map(\.row) == [17], "ranking: \(verdict.ranking.prefix(3))")
    }

    @Test func anUnmarkedCopyIdentifiesNobody() throws {
        let (_, verdict) = try Self.trace(LeakRecipe(markedRow: nil))
        #expect(verdict.identified.isEmpty, "ranking: \(verdict.ranking.prefix(3))")
        #expect((verdict.ranking.first?.falseMatchProbability ?? 0) > 0.01)
    }

    @Test func aLeakFromAnotherVideoIsNotAligned() throws {
        let other = SyntheticVideo(width: 192, height: 108, seed: 1234)
        let analyzer = LeakAnalyzer(originalDisplayWidth: 192, originalDisplayHeight: 108,
                                    schedules: [SlotSchedule(durationSeconds: 2, easeSeconds: 0)], visibility: [[.always]])
        var leak = ArrayFrameSource(LeakRecipe().frames(of: other, rows: Self.rows))
        var keyframes = ArrayFrameSource(stride(from: 0.0, through: 40, by: 2).map { TimedLuma(time: $0, image: Self.video.frame(at: $0)) })
        #expect(throws: LeakAnalysisError.notAligned) {
            _ = try analyzer.analyse(leak: &leak, keyframes: &keyframes) { _ in ArrayFrameSource([]) }
        }
    }
}

@Suite("leak tracing: statistics and traced layers")
struct ScoringUnitTests {
    @Test func chiSquareTailMatchesClosedForms() {
        // 2 degrees of freedom: e^(−x/2); 4: e^(−x/2)(1 + x/2).
        #expect(abs(Significance.logChiSquareTail(10, halfDegreesOfFreedom: 1) - (-5)) < 1e-12)
        #expect(abs(Significance.logChiSquareTail(10, halfDegreesOfFreedom: 2) - (-5 + log(6.0))) < 1e-12)
        // Far tails stay finite instead of underflowing.
        #expect(Significance.logChiSquareTail(5000, halfDegreesOfFreedom: 20) < -2000)
    }

    @Test func falseMatchAllowsForTheNumberOfRows() {
        let single = Significance.logAnyOf(trials: 1, logP: log(0.01))
        let hundred = Significance.logAnyOf(trials: 100, logP: log(0.01))
        #expect(abs(exp(single) - 0.01) < 1e-12)
        #expect(abs(exp(hundred) - (1 - pow(0.99, 100))) < 1e-9)
        #expect(abs(Significance.logAnyOf(trials: 200, logP: -100) - (-100 + log(200.0))) < 1e-9)
    }

    static func layer(_ text: String, motion: Motion, path: String = "watermarks[0]") -> LayerSpec {
        LayerSpec(content: .text(text), sizeFraction: 0.04, opacity: 0.4, timeline: LayerTimeline(xPercent: 0, yPercent: 0, motion: motion),
                  origin: LayerSpec.Origin(file: "marks.json", path: path))
    }

    @Test func onlyRandomLayersWhoseSeedDiffersAreTraced() {
        let rows = ["ada@example.com", "grace@example.com"].map { email in
            [Self.layer(email, motion: .random(durationMilliseconds: 5000, seed: RandomSeed.from(text: email), easeMilliseconds: 300)),
             Self.layer("CONFIDENTIAL", motion: .random(durationMilliseconds: 3000, seed: 7, easeMilliseconds: 0), path: "watermarks[1]"),
             Self.layer(email, motion: .pingPong(durationMilliseconds: 4000), path: "watermarks[2]")]
        }
        let (traced, schedules) = TracedLayers.find(in: rows)
        #expect(traced.map(\.key) == ["watermarks[0]"])
        #expect(schedules == [SlotSchedule(durationSeconds: 5, easeSeconds: 0.3)])
        let same = ["ada@example.com", "grace@example.com"].map { _ in
            [Self.layer("CONFIDENTIAL", motion: .random(durationMilliseconds: 3000, seed: 7, easeMilliseconds: 0))]
        }
        #expect(TracedLayers.find(in: same).layers.isEmpty)
    }

    @Test func slotsLeaveOutJumpsAndEasing() {
        let schedule = SlotSchedule(durationSeconds: 5, easeSeconds: 0.3)
        #expect(schedule.slot(at: 2.5) == 0)
        #expect(schedule.slot(at: 5.4) == nil)   // still easing (0.3 s) plus the guard
        #expect(schedule.slot(at: 5.6) == 1)
        #expect(schedule.slot(at: 9.9) == nil)   // about to jump
        #expect(schedule.steadyTime(of: 3) == PresentationTime(milliseconds: 17_650))
    }
}

@Suite("leak tracing: scorer")
struct ScorerTests {
    /// Standardised maps of made-up noise for `slots` slots of a 160×90 leak.
    static func maps(slots: Int) -> DifferenceMaps {
        let accumulator = DifferenceAccumulator(width: 160, height: 90, content: PlaneRect(minX: 0, minY: 4, maxX: 160, maxY: 86),
                                                originalToAnalysis: .identity)
        let original = LumaImage(width: 160, height: 90, filledWith: 100)
        for slot in 0..<slots {
            var leak = original
            for i in leak.pixels.indices { leak.pixels[i] += Float((i * 7919 + slot * 104_729) % 23) - 11 }
            accumulator.add(leak: leak, original: original, to: [SlotKey(schedule: 0, slot: Int64(slot))])
        }
        return accumulator.maps()
    }

    /// The scorer's fast decoy loop places and measures exactly as `MarkFootprint.displayRect`
    /// and `RowScorer.value` do, including marks too big to fit and the TPStreams convention.
    @Test(arguments: [(60, 8, LayerSpec.LayoutConvention.standard), (150, 10, .standard), (140, 96, .tpStreams), (310, 12, .tpStreams)])
    func decoyRanksMatchThePlainComputation(width: Int, height: Int, convention: LayerSpec.LayoutConvention) {
        let maps = Self.maps(slots: 4)
        let scorer = RowScorer(maps: maps, displayToMap: AxisAlignedMap(scaleX: 0.55, scaleY: 0.52, offsetX: -12.3, offsetY: -4.1),
                               content: PlaneRect(minX: 0, minY: 4, maxX: 160, maxY: 86))
        let footprint = MarkFootprint(width: width, height: height, layoutBox: PixelRect(x: 3, y: 2, width: width - 5, height: height - 3),
                                      displayWidth: 320, displayHeight: 180, insetPixels: 5.4, convention: convention, isTiled: false)
        var generator = SeededGenerator(seed: 3)
        let spots = (0..<500).map { _ in (x: generator.unit() * 100, y: generator.unit() * 100) }
        let table = maps.table(of: SlotKey(schedule: 0, slot: 2))!
        for threshold in [-0.5, 0.0, 0.3, 0.6, 5] {
            var valid = 0, atLeast = 0
            for spot in spots where atLeast < RowScorer.exceedancesToStop {
                let r = footprint.displayRect(xPercent: spot.x, yPercent: spot.y)
                guard let value = scorer.value(of: PlaneRect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height)),
                                               table: table) else { continue }
                valid += 1
                if value >= threshold { atLeast += 1 }
            }
            let fast = DecoyRank(footprint: footprint, scorer: scorer).count(DecoySpots(spots: spots), table: table, atLeast: threshold)
            #expect(fast == DecoyCount(valid: valid, atLeast: atLeast), "threshold \(threshold)")
        }
    }

    /// Rows that did not leak get p-values spread evenly: on pure noise, about a tenth of 500
    /// rows have p ≤ 0.1, and nobody reaches the identification threshold.
    @Test func pValuesOfRowsThatDidNotLeakAreUniform() {
        let maps = Self.maps(slots: 6)
        let scorer = RowScorer(maps: maps, displayToMap: AxisAlignedMap(scaleX: 0.5, scaleY: 0.5, offsetX: 0, offsetY: 0),
                               content: PlaneRect(minX: 0, minY: 4, maxX: 160, maxY: 86))
        var generator = SeededGenerator(seed: 11)
        let rows = (0..<500).map { _ -> RowMarks in
            let footprint = MarkFootprint(width: 80 + Int(generator.next() % 40), height: 12, layoutBox: PixelRect(x: 1, y: 1, width: 70, height: 10),
                                          displayWidth: 320, displayHeight: 180, insetPixels: 5.4, isTiled: false)
            let evidence = (0..<6).map { slot -> MarkEvidence in
                let r = footprint.displayRect(xPercent: generator.unit() * 100, yPercent: generator.unit() * 100)
                return MarkEvidence(slot: SlotKey(schedule: 0, slot: Int64(slot)), footprint: 0,
                                    rect: PlaneRect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height)))
            }
            return RowMarks(footprints: [footprint], evidence: evidence)
        }
        let verdict = TraceVerdict(ranking: scorer.score(rows))
        let belowTenth = verdict.ranking.filter { $0.log10PValue <= -1 }.count
        #expect((25...80).contains(belowTenth), "\(belowTenth) of 500 rows with p ≤ 0.1")
        #expect(verdict.identified.isEmpty)
        #expect(verdict.ranking.allSatisfy { $0.slotsUsed == 6 })
    }
}
