import Foundation
import Overlay
import Testing
@testable import LeakTrace

/// The still's two readings and their verdict, on synthetic evidence: OCR's confusions cost
/// nothing, a class's shared domain names nobody, a look-alike classmate weakens the text, a
/// row is named when its text is read where its key puts it, and a text read elsewhere is a forgery.
@Suite("still trace: text and position evidence")
struct StillEvidenceTests {
    @Test func ocrConfusionsReadAlike() {
        #expect(OCRCanonicalText.of("rn.l1O0@x") == OCRCanonicalText.of("m.llOo@x"))
        #expect(OCRCanonicalText.of("ada lovelace17") == OCRCanonicalText.of("adalovelacel7"))
        #expect(OCRCanonicalText.of("Grace Hopper") == OCRCanonicalText.of("gracehopper"))
        #expect(OCRCanonicalText.of("ada,lovelace") == OCRCanonicalText.of("ada.lovelace"))
    }

    @Test func aReadingAlignsWithPartOfATextAndJunkAround() {
        let text = OCRCanonicalText.of("ada.lovelace17@example.edu")
        let full = TextAlignment.align(OCRCanonicalText.of("ada.lovelacel7@example.edu"), text, distinctive: 0..<14)
        #expect(full.matches == text.count && full.edits == 0 && full.distinctiveMatches == 14)
        // The start cropped off, junk before it, one letter misread.
        let part = TextAlignment.align(OCRCanonicalText.of("#~ lovelaze17@exam"), text, distinctive: 0..<14)
        #expect(part.edits == 1 && part.distinctiveMatches == 9, "\(part)")
    }

    static let texts = ["ada.lovelace17@example.edu", "ada.lovelace171@example.edu", "grace.hopper2@example.edu", "alan.turing3@example.edu",
                        "zoe.knuth4@example.edu", "ken.perlman5@example.edu"].map(OCRCanonicalText.of)

    @Test func theSharedDomainIsNoEvidenceAndChanceFallsWithEveryCharacter() {
        let distinctiveness = TextDistinctiveness(texts: Self.texts)
        #expect(distinctiveness.commonSuffix == "@example.edu".count && distinctiveness.commonPrefix == 0)
        let domainOnly = TextAlignment.align(OCRCanonicalText.of("@example.edu"), Self.texts[2], distinctive: distinctiveness.distinctiveRange(of: Self.texts[2]))
        #expect(distinctiveness.chanceAgreement(domainOnly, readingLength: 12, textLength: Self.texts[2].count) == 1)
        let some = TextAlignment(matches: 8, edits: 1, distinctiveMatches: 8), more = TextAlignment(matches: 14, edits: 1, distinctiveMatches: 14)
        #expect(distinctiveness.chanceAgreement(more, readingLength: 25, textLength: 25) < 1e-5 * distinctiveness.chanceAgreement(some, readingLength: 25, textLength: 25))
    }

    /// A 200×100 display; rows' marks 60×10 at their keyed spots; the still shows a mark of
    /// strokes at `markAt`.
    static func scene(markAt mark: PlaneRect, rowRects: [PlaneRect]) -> (rows: [StillRowMarks], difference: StillDifference) {
        let footprint = MarkFootprint(width: 60, height: 10, layoutBox: PixelRect(x: 0, y: 0, width: 60, height: 10),
                                      displayWidth: 200, displayHeight: 100, insetPixels: 0, isTiled: false)
        let original = LumaImage(width: 200, height: 100, filledWith: 60)
        var still = original
        for y in Int(mark.minY)..<Int(mark.maxY) { for x in Int(mark.minX)..<Int(mark.maxX) where x % 3 == 0 { still[x, y] = 160 } }
        let difference = StillDifference(still: WarpedPicture(image: still, valid: [Bool](repeating: true, count: 20_000)), original: original,
                                         scale: 1, marks: MarkColors(levels: [255], opacity: 0.5), lineHeight: 8)
        let rows = zip(rowRects, texts).map { rect, text in
            StillRowMarks(traced: [StillRowMarks.Traced(footprint: footprint, rects: [rect])], texts: [StillRowMarks.Text(text: text, rects: [rect])])
        }
        return (rows, difference)
    }

    static let rowRects = [PlaneRect(x: 20, y: 20, width: 60, height: 10), PlaneRect(x: 120, y: 70, width: 60, height: 10),
                           PlaneRect(x: 100, y: 10, width: 60, height: 10), PlaneRect(x: 10, y: 80, width: 60, height: 10),
                           PlaneRect(x: 70, y: 45, width: 60, height: 10), PlaneRect(x: 130, y: 30, width: 60, height: 10)]

    @Test func aRowIsNamedWhenItsTextIsReadWhereItsKeyPutsIt() {
        let (rows, difference) = Self.scene(markAt: Self.rowRects[2], rowRects: Self.rowRects)
        let positions = StillEvidence.positions(of: rows, difference: difference)
        #expect(positions[2].pValue < 0.01 && positions.enumerated().allSatisfy { $0.offset == 2 || $0.element.pValue > positions[2].pValue })
        let reading = MarkReading(text: "grace.hopper2@examp1e.edu", confidence: 80, box: Self.rowRects[2].insetBy(dx: 2, dy: 1), source: .opacity)
        let verdict = StillEvidence.evaluate(rows: rows, positions: positions, readings: [reading], distinctiveness: TextDistinctiveness(texts: Self.texts),
                                                 difference: difference)
        #expect(verdict.named.map(\.row) == [2])
        #expect(verdict.forged.isEmpty && verdict.named.first?.located == true)
    }

    /// A still that does not pin its instant (a crop without the pointer, a slide held for
    /// seconds) offers a row's mark many places, one per instant its path passes in that time. A
    /// classmate's address typed where one of them happens to be reads as that row's, where its
    /// copy draws it, yet a place of the forger's choosing fits one of so many by chance too
    /// often: nobody is named, and the row's false-match probability is no smaller than that
    /// chance. The same mark where the still pins one instant names its row.
    @Test func anAddressTypedOnOneOfManyPlacesTheStillAllowsNamesNobody() throws {
        let footprint = MarkFootprint(width: 60, height: 10, layoutBox: PixelRect(x: 0, y: 0, width: 60, height: 10),
                                      displayWidth: 200, displayHeight: 100, insetPixels: 0, isTiled: false)
        let places = (0..<48).map { (n: Int) -> PlaneRect in
            PlaneRect(x: Double(18 * (n % 8)), y: Double(15 * (n / 8)), width: 60, height: 10)
        }
        let typed = places[19]
        func verdict(rowPlaces: [PlaneRect]) -> StillVerdict {
            var (rows, difference) = Self.scene(markAt: typed, rowRects: Self.rowRects)
            rows[2] = StillRowMarks(traced: [StillRowMarks.Traced(footprint: footprint, rects: rowPlaces)],
                                    texts: [StillRowMarks.Text(text: Self.texts[2], rects: rowPlaces, footprint: footprint)])
            let positions = StillEvidence.positions(of: rows, difference: difference)
            let reading = MarkReading(text: "grace.hopper2@example.edu", confidence: 90, box: typed, source: .opacity)
            return StillEvidence.evaluate(rows: rows, positions: positions, readings: [reading], distinctiveness: TextDistinctiveness(texts: Self.texts),
                                                 difference: difference)
        }
        let unpinned = verdict(rowPlaces: places)
        let grace = unpinned.ranking.first { $0.row == 2 }
        #expect(unpinned.named.isEmpty && unpinned.forged.isEmpty, "\(unpinned.named.map { ($0.row, $0.score.falseMatchProbability) })")
        #expect(grace?.located == true && (grace?.textPValue ?? 1) < 1e-6)
        // Typed exactly on one of 48 places: 48 × (1/140 × 1/90) of the path's places lie as close, or a
        // few times that where the top of the strokes' fit is uneven (strokes every third column).
        let chance = try #require(grace?.forgeryChance)
        #expect(chance >= 48.0 / (140 * 90) && chance <= 4 * 48.0 / (140 * 90) && grace!.score.falseMatchProbability >= chance, "\(chance)")
        #expect(verdict(rowPlaces: [typed]).named.map(\.row) == [2])
        // One place only, but the address typed 8 px left and 3 px above it: close enough for the
        // reading to sit where the copy draws it, not for a typed one to be unlikely there.
        let near = verdict(rowPlaces: [PlaneRect(x: typed.minX + 8, y: typed.minY + 3, width: 60, height: 10)])
        let nearGrace = near.ranking.first { $0.row == 2 }
        #expect(near.named.isEmpty && nearGrace?.located == true && (nearGrace?.forgeryChance ?? 0) > 0.001, "\(String(describing: nearGrace))")
    }

    @Test func aTextReadWhereTheRowsKeyDoesNotPutItIsAForgery() {
        // Grace's address drawn where Alan's key puts his mark.
        let (rows, difference) = Self.scene(markAt: Self.rowRects[3], rowRects: Self.rowRects)
        let positions = StillEvidence.positions(of: rows, difference: difference)
        let reading = MarkReading(text: "grace.hopper2@example.edu", confidence: 90, box: Self.rowRects[3], source: .opacity)
        let verdict = StillEvidence.evaluate(rows: rows, positions: positions, readings: [reading], distinctiveness: TextDistinctiveness(texts: Self.texts),
                                                 difference: difference)
        #expect(verdict.named.isEmpty)
        #expect(verdict.forged.map(\.row) == [2])
    }

    /// Another platform's key put Grace's own mark half a mark to the right of where this key
    /// puts it: the line read overlaps her place enough, but her characters are read half a
    /// mark from where her copy draws them (by the OCR's boxes of each, or in proportion when it
    /// gave none). Her own place, read the same way, stays hers.
    @Test func theRowsTextReadHalfAMarkAlongIsNotWhereItsCopyDrawsIt() {
        let own = Self.rowRects[2], shifted = PlaneRect(x: own.minX + 30, y: own.minY, width: own.width, height: own.height)
        let text = "grace.hopper2@example.edu"
        func verdict(markAt mark: PlaneRect, junk: Bool, characterBoxes: Bool) -> StillVerdict {
            let (rows, difference) = Self.scene(markAt: mark, rowRects: Self.rowRects)
            let positions = StillEvidence.positions(of: rows, difference: difference)
            // Junk read left of the mark widens the line's box towards the row's own place.
            let line = junk ? "ee " + text : text
            let box = junk ? PlaneRect(minX: mark.minX - 20, minY: mark.minY, maxX: mark.maxX, maxY: mark.maxY) : mark
            let glyphs = text.count, step = mark.width / Double(glyphs)
            let boxes = (junk ? [PlaneRect(x: box.minX, y: mark.minY, width: 5, height: 10), PlaneRect(x: box.minX + 6, y: mark.minY, width: 5, height: 10)] : [])
                + (0..<glyphs).map { PlaneRect(x: mark.minX + Double($0) * step, y: mark.minY, width: step, height: 10) }
            let reading = MarkReading(text: line, confidence: 80, box: box, source: .opacity, characterBoxes: characterBoxes ? boxes : [])
            return StillEvidence.evaluate(rows: rows, positions: positions, readings: [reading], distinctiveness: TextDistinctiveness(texts: Self.texts),
                                                 difference: difference)
        }
        let foreign = verdict(markAt: shifted, junk: true, characterBoxes: true)
        #expect(foreign.named.isEmpty && foreign.forged.map(\.row) == [2])
        #expect(verdict(markAt: shifted, junk: false, characterBoxes: false).named.isEmpty)
        #expect(verdict(markAt: own, junk: true, characterBoxes: true).named.map(\.row) == [2])
        #expect(verdict(markAt: own, junk: false, characterBoxes: false).named.map(\.row) == [2])
    }

    @Test func theAlignmentSaysWhichCharactersAgree() {
        let text = OCRCanonicalText.of("ada.lovelace17@example.edu")
        let part = TextAlignment.align(OCRCanonicalText.of("#~ lovelace17@exam"), text, distinctive: 0..<14)
        #expect(part.readingSpan == 2..<17 && part.textSpan == 4..<19, "\(part)")
        // "rn" is one canonical "m", standing for two characters of the reading.
        #expect(OCRCanonicalText.indexed("a rn.b").map(\.source) == [0..<1, 1..<3, 3..<4, 4..<5])
    }

    @Test func aLookAlikeClassmateLeavesTheTextWeak() {
        let (rows, difference) = Self.scene(markAt: Self.rowRects[0], rowRects: Self.rowRects)
        let positions = StillEvidence.positions(of: rows, difference: difference)
        // "ada.lovelace17" read, the rest unread: 171's text reads as well.
        let reading = MarkReading(text: "ada.lovelace17", confidence: 60, box: Self.rowRects[0], source: .opacity)
        let verdict = StillEvidence.evaluate(rows: rows, positions: positions, readings: [reading], distinctiveness: TextDistinctiveness(texts: Self.texts),
                                                 difference: difference)
        let evidence = verdict.ranking.first { $0.row == 0 }
        #expect((evidence?.textPValue ?? 0) >= 1.0 / 6)
        // Too weak to say where 171's mark should be: no forgery either.
        #expect(verdict.ranking.first { $0.row == 1 }?.located == nil && verdict.forged.isEmpty)
    }
}
