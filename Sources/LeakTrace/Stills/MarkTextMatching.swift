import Foundation

/// Text as OCR confuses it: lower case, "rn" read as one "m" (and "vv" as "w", "cl" as "d"), 0/o, 1/l/i/I/|,
/// 5/s, 2/z, 8/b, 9/g/q, "," for "." each the same character, spaces dropped. Both the reading
/// and each row's text pass through it, so a confusion costs nothing, whichever way it went.
public enum OCRCanonicalText {
    public static func of(_ text: String) -> [Character] {
        indexed(text).map(\.character)
    }

    /// The canonical characters, each with the characters of `text` it stands for, counted
    /// without whitespace (as `MarkReading.characterBoxes` are).
    public static func indexed(_ text: String) -> [(character: Character, source: Range<Int>)] {
        var characters: [(character: Character, source: Int)] = []
        for (index, original) in text.filter({ !$0.isWhitespace }).enumerated() {
            for character in String(original).lowercased() {
                characters.append((Self.single[character] ?? character, index))
            }
        }
        // Pairs read as one letter, after the single letters (so "rn" and "m" meet either way).
        var result: [(character: Character, source: Range<Int>)] = []
        var index = 0
        while index < characters.count {
            let (character, source) = characters[index]
            if index + 1 < characters.count, let joined = Self.pairs["\(character)\(characters[index + 1].character)"] {
                result.append((joined, source..<(characters[index + 1].source + 1)))
                index += 2
            } else {
                result.append((character, source..<(source + 1)))
                index += 1
            }
        }
        return result
    }

    static let single: [Character: Character] = [
        "0": "o", "q": "g", "9": "g", "1": "l", "i": "l", "|": "l", "!": "l", "í": "l", "5": "s", "$": "s", "2": "z", "8": "b",
        ",": ".", "·": ".", "—": "-", "–": "-", "©": "@", "®": "@",
    ]
    static let pairs: [String: Character] = ["rn": "m", "vv": "w", "cl": "d"]
}

/// How a reading lines up with one row's text: the best local alignment of the two canonical
/// texts (Smith–Waterman, +1 per character that agrees, −1 per substitution, insertion or
/// deletion), so a reading may hold only part of the text (the rest cropped off or unread)
/// and junk around it.
public struct TextAlignment: Sendable, Equatable {
    /// Characters that agree.
    public var matches: Int
    /// Substitutions, insertions and deletions between the first and last agreeing character.
    public var edits: Int
    /// Agreeing characters of the row's text inside its distinctive part (see `TextDistinctiveness`).
    public var distinctiveMatches: Int
    /// The characters of the reading and of the row's text the alignment spans (empty when nothing agrees).
    public var readingSpan: Range<Int> = 0..<0
    public var textSpan: Range<Int> = 0..<0
    /// matches − edits.
    public var score: Int { matches - edits }

    public init(matches: Int, edits: Int, distinctiveMatches: Int, readingSpan: Range<Int> = 0..<0, textSpan: Range<Int> = 0..<0) {
        self.matches = matches
        self.edits = edits
        self.distinctiveMatches = distinctiveMatches
        self.readingSpan = readingSpan
        self.textSpan = textSpan
    }

    /// The alignment of `reading` against `expected` (both canonical); `distinctive` is the
    /// range of `expected` that tells rows apart.
    public static func align(_ reading: [Character], _ expected: [Character], distinctive: Range<Int>) -> TextAlignment {
        let n = reading.count, m = expected.count
        guard n > 0, m > 0 else { return TextAlignment(matches: 0, edits: 0, distinctiveMatches: 0) }
        // score, matches, edits, distinctive matches and where the alignment began, per cell, row
        // by row. A cell of score 0 is a fresh start: no candidate of score 0 or less replaces one.
        struct Cell { var score = 0, matches = 0, edits = 0, distinctive = 0, startI = 0, startJ = 0 }
        var previous = [Cell](repeating: Cell(), count: m + 1)
        var best = Cell(), bestEnd = (i: 0, j: 0)
        for i in 1...n {
            var current = [Cell](repeating: Cell(), count: m + 1)
            for j in 1...m {
                let same = reading[i - 1] == expected[j - 1]
                var diagonal = previous[j - 1]
                if diagonal.score == 0 { (diagonal.startI, diagonal.startJ) = (i - 1, j - 1) }
                diagonal.score += same ? 1 : -1
                if same {
                    diagonal.matches += 1
                    if distinctive.contains(j - 1) { diagonal.distinctive += 1 }
                } else {
                    diagonal.edits += 1
                }
                var up = previous[j]
                up.score -= 1; up.edits += 1
                var left = current[j - 1]
                left.score -= 1; left.edits += 1
                var cell = Cell()
                for candidate in [diagonal, up, left] where candidate.score > cell.score
                    || (candidate.score == cell.score && candidate.score > 0 && candidate.distinctive > cell.distinctive) {
                    cell = candidate
                }
                current[j] = cell
                if cell.score > best.score || (cell.score == best.score && cell.distinctive > best.distinctive) { (best, bestEnd) = (cell, (i, j)) }
            }
            previous = current
        }
        guard best.score > 0 else { return TextAlignment(matches: 0, edits: 0, distinctiveMatches: 0) }
        return TextAlignment(matches: best.matches, edits: best.edits, distinctiveMatches: best.distinctive,
                             readingSpan: best.startI..<bestEnd.i, textSpan: best.startJ..<bestEnd.j)
    }
}

/// What tells a class's texts apart, and how likely two unrelated characters agree.
///
/// The texts' common start and end (an e-mail's "@example.edu") name nobody: only agreement
/// inside the rest, the distinctive part, is evidence. Characters of unrelated texts agree by
/// chance with probability `q`: the collision rate of the distinctive parts' characters
/// (Σ f²), never taken below `minimumCollision` — names are not random strings, and a
/// generous q keeps the evidence from being overstated.
public struct TextDistinctiveness: Sendable {
    public static let minimumCollision = 0.1
    /// Canonical texts, one per row and text layer.
    public let texts: [[Character]]
    public let commonPrefix: Int
    public let commonSuffix: Int
    public let collision: Double

    public init(texts: [[Character]]) {
        self.texts = texts
        guard let first = texts.first, texts.count > 1 else {
            commonPrefix = 0
            commonSuffix = 0
            collision = Self.minimumCollision
            return
        }
        var prefix = first.count, suffix = first.count
        for text in texts.dropFirst() {
            prefix = min(prefix, zip(first, text).prefix { $0 == $1 }.count)
            suffix = min(suffix, zip(first.reversed(), text.reversed()).prefix { $0 == $1 }.count)
        }
        // Leave every text at least one distinctive character.
        let shortest = texts.map(\.count).min() ?? 0
        if prefix + suffix >= shortest { suffix = max(0, shortest - 1 - prefix) }
        commonPrefix = prefix
        commonSuffix = suffix
        var counts: [Character: Int] = [:]
        var total = 0
        for text in texts where text.count > prefix + suffix {
            for character in text[prefix..<(text.count - suffix)] {
                counts[character, default: 0] += 1
                total += 1
            }
        }
        let sumOfSquares = counts.values.reduce(0.0) { $0 + pow(Double($1) / Double(max(total, 1)), 2) }
        collision = max(Self.minimumCollision, sumOfSquares)
    }

    /// The distinctive range of a text.
    public func distinctiveRange(of text: [Character]) -> Range<Int> {
        let start = min(commonPrefix, text.count)
        return start..<max(start, text.count - commonSuffix)
    }

    /// The chance that a text unrelated to the row's lines up with the reading as well, by a
    /// union bound over where the alignment starts in each text and where its edits fall:
    /// |reading|·|text| · C(m + e, e) · 3^e · q^m, with m the distinctive characters that agree
    /// and e the edits. At least three must agree for any evidence.
    public func chanceAgreement(_ alignment: TextAlignment, readingLength: Int, textLength: Int) -> Double {
        let m = alignment.distinctiveMatches, e = alignment.edits
        guard m >= 3 else { return 1 }
        let log10Chance = log10(Double(max(readingLength, 1) * max(textLength, 1))) + log10Binomial(m + e, e)
            + Double(e) * log10(3) + Double(m) * log10(collision)
        return min(1, pow(10, log10Chance))
    }

    private func log10Binomial(_ n: Int, _ k: Int) -> Double {
        guard k > 0, k < n else { return 0 }
        return (lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))) / log(10)
    }
}
