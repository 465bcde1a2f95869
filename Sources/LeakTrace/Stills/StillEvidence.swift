import Foundation
import Overlay

/// One row's marks at the instants a still may show (display pixels).
public struct StillRowMarks: Sendable {
    public struct Traced: Sendable {
        public var footprint: MarkFootprint
        /// Where the layer's mark is at each instant (distinct rectangles only).
        public var rects: [PlaneRect]
        public init(footprint: MarkFootprint, rects: [PlaneRect]) { self.footprint = footprint; self.rects = rects }
    }

    public struct Text: Sendable {
        /// The text as `OCRCanonicalText` gives it.
        public var text: [Character]
        /// Where the layer draws it at each instant.
        public var rects: [PlaneRect]
        /// The layer's footprint when its path is keyed (its place is then evidence), nil for a fixed layer.
        public var footprint: MarkFootprint?
        public init(text: [Character], rects: [PlaneRect], footprint: MarkFootprint? = nil) {
            self.text = text
            self.rects = rects
            self.footprint = footprint
        }
    }

    /// The row's layers whose place depends on the row (their path is keyed).
    public var traced: [Traced]
    /// The row's texts that differ from other rows', wherever their layers put them.
    public var texts: [Text]

    public init(traced: [Traced], texts: [Text]) {
        self.traced = traced
        self.texts = texts
    }
}

/// A line OCR read in the still.
public struct MarkReading: Sendable, Equatable {
    public enum Source: String, Sendable { case opacity, difference, picture }
    public var text: String
    /// Tesseract's confidence, 0…100.
    public var confidence: Double
    /// Where it was read, in the original's display pixels.
    public var box: PlaneRect
    /// Read from the marks' opacity map, from how far the still differs from the frame, or from the still's own pixels.
    public var source: Source
    /// Where each of `text`'s characters but spaces was read (original's display pixels), when the OCR said.
    public var characterBoxes: [PlaneRect]

    public init(text: String, confidence: Double, box: PlaneRect, source: Source, characterBoxes: [PlaneRect] = []) {
        self.text = text
        self.confidence = confidence
        self.box = box
        self.source = source
        self.characterBoxes = characterBoxes
    }
}

/// What a still says about one row: what the text read says, where the row's mark is, and both together.
public struct StillRowEvidence: Sendable {
    public var row: Int
    /// The readings (indices into the verdict's) the row's text was matched with, best first.
    public var readings: [Int]
    public var alignment: TextAlignment?
    /// The chance that a text unrelated to the row reads this much like it (1: no evidence).
    public var textPValue: Double
    /// Whether the reading sits where the row's copy draws its text; nil when the reading is
    /// too weak to say anything of the row.
    public var located: Bool?
    /// The mean strength of marks' strokes inside the row's keyed mark (nil where the still does not show it).
    public var markOpacity: Double?
    /// The chance that a spot drawn as the row's path draws them holds as much mark (1: not seen).
    public var positionPValue: Double
    /// When the text is read where the row's copy draws it: the chance that a mark put where
    /// somebody liked, not knowing the key, lies as close to one of the row's places
    /// (`StillEvidence.forgeryChance`); the row's false-match probability is at least this.
    public var forgeryChance: Double?
    /// Both readings combined (Fisher's method) and the false-match probability over the rows.
    public var score: RowScore
    /// The text names this row but its copy's mark is elsewhere.
    public var contradicted: Bool { located == false }
}

/// Where a row's keyed mark is against the marks a still shows.
public struct PositionEvidence: Sendable {
    /// The mean stroke strength inside the row's mark (nil: the still does not show it).
    public var strokes: Double?
    /// The share of the places the row's path could have put the mark holding as much.
    public var pValue: Double
    /// The row's mark where it is strongest (display pixels).
    public var rect: PlaneRect?
}

/// The rows a still names, or why it names nobody.
public struct StillVerdict: Sendable {
    public var readings: [MarkReading]
    /// Every row, strongest first.
    public var ranking: [StillRowEvidence]
    /// Rows named: false-match probability at most the threshold, their text (if read) where their copy draws it.
    public var named: [StillRowEvidence]
    /// When nobody is named: rows the text alone names, whose copies put their mark elsewhere.
    public var forged: [StillRowEvidence]
}

public enum StillEvidence {
    /// Decoy spots per axis: the uniform grid over the path's 0…100 % that a row's position is ranked in.
    static let decoyGrid = 201
    /// A reading whose text p-value is at most this says something about where the row's mark should be.
    static let placingLevel = 0.01
    /// How far (in the mark's heights) a reading may sit from where the row's copy draws its text.
    static let placementTolerance = 0.35

    /// How far (in the mark's widths, beyond `placementTolerance` of its height) the middle of
    /// the characters read may sit from the middle of the same characters where the row's copy
    /// draws them. Characters are placed in proportion to their index: a proportional font's
    /// widths differ, but over an address the middle of a span strays by a few per cent at most.
    static let spanTolerance = 0.12

    /// The middle, along the line, of the characters of a reading the alignment agrees on: from
    /// the OCR's own boxes of the first and last when it gave them, else in proportion to their
    /// index in the reading's box. Checked against the middle of the same characters where the
    /// row's copy draws them, it tells a mark overlapping the row's place by half its width
    /// (another key's place, say) from the row's own: its characters sit half a mark away.
    static func readSpan(_ alignment: TextAlignment, box: PlaneRect, characterBoxes: [PlaneRect], readingLength: Int) -> Double? {
        let span = alignment.readingSpan
        guard !span.isEmpty, readingLength > 0 else { return nil }
        if characterBoxes.count == readingLength { return (characterBoxes[span.lowerBound].minX + characterBoxes[span.upperBound - 1].maxX) / 2 }
        return proportionalMiddle(of: span, among: readingLength, across: box)
    }

    /// The middle of characters `span` of `count` laid evenly across `rect`.
    static func proportionalMiddle(of span: Range<Int>, among count: Int, across rect: PlaneRect) -> Double {
        rect.minX + rect.width * Double(span.lowerBound + span.upperBound) / Double(2 * count)
    }

    /// Where each row's keyed mark is against the marks the still shows, text unread: the mean
    /// stroke strength there and its p-value among the places the row's path could have put it.
    public static func positions(of rows: [StillRowMarks], difference: StillDifference) -> [PositionEvidence] {
        var decoys = DecoyTables(difference: difference)
        return rows.map { position(of: $0, decoys: &decoys) }
    }

    /// Each row judged on both readings: `positions` from `positions(of:difference:)`, `readings` from OCR.
    /// `difference` (the still against the frame) measures how close a mark read where a row's
    /// copy draws it is to that place, against a forgery.
    public static func evaluate(rows: [StillRowMarks], positions: [PositionEvidence], readings: [MarkReading],
                                distinctiveness: TextDistinctiveness, difference: StillDifference,
                                threshold: Double = TraceVerdict.identificationThreshold) -> StillVerdict {
        precondition(positions.count == rows.count, "a position per row")
        let candidates = ReadingCandidates(readings)
        let text = TextEvidence(rows: rows, candidates: candidates, distinctiveness: distinctiveness)
        var evidence: [StillRowEvidence] = []
        for (index, row) in rows.enumerated() {
            let best = text.best[index]
            let pText = text.pValue(row: index)
            var located: Bool?
            if let best, pText <= placingLevel {
                let box = candidates.boxes[best.candidate]
                let single = candidates.members[best.candidate].count == 1
                let read = Self.readSpan(best.alignment, box: box, characterBoxes: candidates.characterBoxes[best.candidate],
                                         readingLength: candidates.texts[best.candidate].count)
                let text = row.texts[best.text]
                located = text.rects.contains { rect in
                    let grown = rect.insetBy(dx: -placementTolerance * rect.height, dy: -placementTolerance * rect.height)
                    guard grown.intersection(box).area >= 0.5 * min(box.area, rect.area) else { return false }
                    guard single, let read, !best.alignment.textSpan.isEmpty else { return true }
                    let drawn = Self.proportionalMiddle(of: best.alignment.textSpan, among: text.text.count, across: rect)
                    StillTraceDiagnostics.note("located row \(index + 1): rect \(rect) box \(box) read \(read) drawn \(drawn) boxes \(candidates.characterBoxes[best.candidate].count)")
                    return abs(read - drawn) <= spanTolerance * rect.width + placementTolerance * rect.height
                }
            }
            var position = positions[index]
            // Where the text was read is evidence of place too: the chance that the row's path
            // put its mark over the reading as well as it did. (Places read are found without
            // regard to any row, so the chance is exact.) The better of the two places, paid for.
            if let best, pText <= placingLevel, let footprint = row.texts[best.text].footprint {
                let cover = Self.locationPValue(box: candidates.boxes[best.candidate], rects: row.texts[best.text].rects, footprint: footprint)
                position.pValue = min(1, 2 * min(position.pValue, cover))
            }
            // A text read where the row's copy does not put it is no evidence for the row.
            let terms = located == false ? [position.pValue] : [pText, position.pValue]
            let logP = Significance.logChiSquareTail(-2 * terms.reduce(0) { $0 + log(max($1, 1e-300)) }, halfDegreesOfFreedom: terms.count)
            var logFalseMatch = Significance.logAnyOf(trials: rows.count, logP: logP)
            // Or the text as a choice, the place as the test: given the picture, the rows whose
            // texts read best are known before any key is looked at, and each innocent one's
            // place is where the key put it, at random: the chance that any of them sits where the
            // marks are is their number times the place's p-value. Either way is valid; the better
            // one is taken, and paid for twice.
            if located != false, text.picked.contains(index) {
                let chosen = log(Double(text.picked.count)) + log(max(position.pValue, 1e-300))
                logFalseMatch = min(logFalseMatch, chosen)
            }
            logFalseMatch = min(0, logFalseMatch + log(2))
            // A forger types a classmate's address where they like: then the text names that row
            // whatever the still is, and only the place can refuse it. The key puts the row's mark
            // at a place the forger cannot know, uniform over the path's range whatever place they
            // chose, so the chance that a typed address sits where the row's copy draws it this
            // closely is `forgeryChance`: a naming that rests on the text is no surer than that
            // (a still that pins its instant and shows the mark's strokes sharply makes it small).
            var forgeryChance: Double?
            if located == true, let best, let footprint = row.texts[best.text].footprint {
                let chance = Self.forgeryChance(rects: row.texts[best.text].rects, footprint: footprint, difference: difference)
                forgeryChance = chance
                logFalseMatch = max(logFalseMatch, log(max(chance, 1e-300)))
            }
            let score = RowScore(row: index, slotsUsed: 1, log10PValue: logP / log(10), log10FalseMatch: logFalseMatch / log(10))
            evidence.append(StillRowEvidence(row: index, readings: best.map { candidates.members[$0.candidate] } ?? [],
                                             alignment: best?.alignment, textPValue: pText, located: located, markOpacity: position.strokes,
                                             positionPValue: position.pValue, forgeryChance: forgeryChance, score: score))
        }
        let ranking = evidence.sorted { ($0.score.log10PValue, $0.row) < ($1.score.log10PValue, $1.row) }
        let named = ranking.filter { $0.score.falseMatchProbability <= threshold && !$0.contradicted }
        let forged = named.isEmpty ? ranking.filter {
            $0.contradicted && exp(Significance.logAnyOf(trials: rows.count, logP: log(max($0.textPValue, 1e-300)))) <= threshold
        } : []
        return StillVerdict(readings: readings, ranking: ranking, named: named, forged: forged)
    }
}

/// The readings, and readings of two lines one above the other joined (a mark wrapped onto two).
struct ReadingCandidates {
    var texts: [[Character]] = []
    var boxes: [PlaneRect] = []
    /// The readings each candidate is made of.
    var members: [[Int]] = []
    /// Where each canonical character was read, for a single reading whose OCR said; else empty.
    var characterBoxes: [[PlaneRect]] = []

    init(_ readings: [MarkReading]) {
        for (index, reading) in readings.enumerated() {
            let canonical = OCRCanonicalText.indexed(reading.text)
            guard canonical.count >= 3 else { continue }
            texts.append(canonical.map(\.character))
            boxes.append(reading.box)
            members.append([index])
            // Boxes only when there is one per character the reading's text holds (a symbol
            // that joined its neighbour into one character would shift every box after it).
            let known = reading.characterBoxes
            characterBoxes.append(known.count == reading.text.filter { !$0.isWhitespace }.count
                ? canonical.map { known[$0.source.lowerBound].union(known[$0.source.upperBound - 1]) } : [])
        }
        let single = texts.count
        for a in 0..<single {
            for b in 0..<single where a != b {
                let upper = boxes[a], lower = boxes[b]
                let height = max(upper.height, lower.height)
                guard lower.minY > upper.minY + 0.5 * height, lower.minY - upper.maxY < 0.8 * height,
                      lower.intersection(PlaneRect(minX: upper.minX, minY: lower.minY, maxX: upper.maxX, maxY: lower.maxY)).area > 0
                        || abs(lower.midX - upper.midX) < 0.5 * max(upper.width, lower.width) else { continue }
                texts.append(texts[a] + texts[b])
                boxes.append(upper.union(lower))
                members.append(members[a] + members[b])
                characterBoxes.append([])
            }
        }
    }
}

/// Every row's text against every candidate reading.
struct TextEvidence {
    struct Best {
        var candidate: Int
        /// Which of the row's texts.
        var text: Int
        var alignment: TextAlignment
        var chance: Double
    }

    let best: [Best?]
    let candidateCount: Int
    /// Rows' best alignment scores, sorted, for how many rows read as well as one.
    private let sortedScores: [Int]

    init(rows: [StillRowMarks], candidates: ReadingCandidates, distinctiveness: TextDistinctiveness) {
        candidateCount = candidates.texts.count
        best = rows.map { row in
            var found: Best?
            for (textIndex, text) in row.texts.enumerated() {
                let distinctive = distinctiveness.distinctiveRange(of: text.text)
                for (candidate, reading) in candidates.texts.enumerated() {
                    let alignment = TextAlignment.align(reading, text.text, distinctive: distinctive)
                    let chance = distinctiveness.chanceAgreement(alignment, readingLength: reading.count, textLength: text.text.count)
                    if chance < found?.chance ?? 2 { found = Best(candidate: candidate, text: textIndex, alignment: alignment, chance: chance) }
                }
            }
            return found
        }
        sortedScores = best.map { $0?.alignment.score ?? 0 }.sorted()
        // The rows the text picks: those reading within one edit of the best, when the best
        // agrees on enough distinctive characters to pick anything.
        let found = best
        let strongest = found.compactMap { $0 }.max { $0.alignment.score < $1.alignment.score }
        if let strongest, strongest.alignment.distinctiveMatches >= Self.pickingMatches {
            let top = strongest.alignment.score
            picked = Set(found.indices.filter { (found[$0]?.alignment.score ?? Int.min) >= top - 1 })
        } else {
            picked = []
        }
    }

    /// Distinctive characters the best reading must agree on for the text to pick rows.
    static let pickingMatches = 5
    /// The rows whose texts read best (within an edit of the best): the text's candidates.
    let picked: Set<Int>

    /// The chance that a text unrelated to the row reads this much like it: the union bound over
    /// the readings tried, and at least the share of other rows whose text reads as well.
    func pValue(row: Int) -> Double {
        guard let found = best[row], found.chance < 1 else { return 1 }
        let score = found.alignment.score
        // Rows (this one included) scoring at least as well.
        var low = 0, high = sortedScores.count
        while low < high {
            let middle = (low + high) / 2
            if sortedScores[middle] >= score { high = middle } else { low = middle + 1 }
        }
        let asWell = sortedScores.count - low
        let others = Double(max(asWell - 1, 0)) / Double(max(best.count, 1))
        return min(1, max(found.chance * Double(max(candidateCount, 1)), others))
    }
}

extension PlaneRect {
    var midX: Double { (minX + maxX) / 2 }
    var midY: Double { (minY + maxY) / 2 }
}
