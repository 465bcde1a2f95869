/// Where a paragraph may be wrapped, and how to wrap paragraphs onto a number of lines.
///
/// Deliberately small, not full UAX #14: a line may end
/// - at a run of breaking spaces (dropped at the break; no-break spaces never break),
/// - inside an e-mail address (a word holding "@"), after the "@" and after each inner ".",
///   so "student.name@example-university.edu" can become "student.name@" / "example-university.edu",
/// - between two ideographs or kana (CJK text has no spaces).
enum LineBreaking {
    /// A place to wrap: the line ends before scalar `lineEnd`, the next starts at `nextStart`
    /// (later when spaces are dropped).
    struct Opportunity: Equatable {
        var lineEnd: Int
        var nextStart: Int
    }

    static func opportunities(in scalars: [Unicode.Scalar]) -> [Opportunity] {
        var result: [Opportunity] = []
        var i = 0
        while i < scalars.count {
            if isBreakingSpace(scalars[i]) {
                let start = i
                while i < scalars.count && isBreakingSpace(scalars[i]) { i += 1 }
                // Leading and trailing spaces are kept as typed: no line may be empty.
                if start > 0 && i < scalars.count { result.append(Opportunity(lineEnd: start, nextStart: i)) }
                continue
            }
            let wordStart = i
            while i < scalars.count && !isBreakingSpace(scalars[i]) { i += 1 }
            let word = wordStart..<i
            if scalars[word].contains("@") {
                // After "@" and inner "."s, never at the word's end or before another "." or "@".
                for j in word where j + 1 < word.upperBound && (scalars[j] == "@" || scalars[j] == ".")
                    && scalars[j + 1] != "." && scalars[j + 1] != "@" && j > word.lowerBound {
                    result.append(Opportunity(lineEnd: j + 1, nextStart: j + 1))
                }
            }
            for j in word.dropFirst() where isIdeographic(scalars[j - 1]) && isIdeographic(scalars[j]) {
                result.append(Opportunity(lineEnd: j, nextStart: j))
            }
        }
        return result.sorted { $0.lineEnd < $1.lineEnd }
    }

    /// Spaces that separate words; U+00A0, U+2007 and U+202F are typed precisely to keep words together.
    static func isBreakingSpace(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.properties.generalCategory == .spaceSeparator else { return false }
        return scalar != "\u{00A0}" && scalar != "\u{2007}" && scalar != "\u{202F}"
    }

    private static func isIdeographic(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isIdeographic || (0x3040...0x30FF).contains(scalar.value)
    }

    /// One paragraph to wrap: its scalars' advances (any unit) and its opportunities.
    struct Paragraph {
        var advances: [Double]
        var opportunities: [Opportunity]

        init(advances: [Double], opportunities: [Opportunity]) {
            self.advances = advances
            self.opportunities = opportunities
            prefix = [0]
            prefix.reserveCapacity(advances.count + 1)
            for advance in advances { prefix.append(prefix[prefix.count - 1] + advance) }
        }

        private var prefix: [Double]

        func width(_ range: Range<Int>) -> Double { prefix[range.upperBound] - prefix[range.lowerBound] }

        /// The widest piece that can never be split.
        var widestUnbreakable: Double {
            var widest = 0.0, start = 0
            for opportunity in opportunities {
                widest = max(widest, width(start..<opportunity.lineEnd))
                start = opportunity.nextStart
            }
            return max(widest, width(start..<advances.count))
        }

        /// Fills lines greedily up to `limit`: the fewest lines for that limit. A piece wider than
        /// the limit gets a line of its own.
        func greedyLines(limit: Double) -> [Range<Int>] {
            var lines: [Range<Int>] = []
            var start = 0
            var lastFitting: Opportunity?
            for opportunity in opportunities {
                if width(start..<opportunity.lineEnd) <= limit {
                    lastFitting = opportunity
                    continue
                }
                if let fitting = lastFitting {
                    lines.append(start..<fitting.lineEnd)
                    start = fitting.nextStart
                    lastFitting = nil
                    if width(start..<opportunity.lineEnd) <= limit {
                        lastFitting = opportunity
                        continue
                    }
                }
                // The piece before this opportunity is wider than the limit on its own.
                lines.append(start..<opportunity.lineEnd)
                start = opportunity.nextStart
            }
            if let fitting = lastFitting, width(start..<advances.count) > limit {
                lines.append(start..<fitting.lineEnd)
                start = fitting.nextStart
            }
            lines.append(start..<advances.count)
            return lines
        }
    }

    /// Each paragraph's lines when all paragraphs together may use at most `maxLines` lines,
    /// chosen so the widest line is as narrow as possible. With fewer lines allowed than there
    /// are paragraphs, every paragraph is one line.
    static func wrap(_ paragraphs: [Paragraph], maxLines: Int) -> [[Range<Int>]] {
        let unwrapped = paragraphs.map { [0..<$0.advances.count] }
        guard maxLines > paragraphs.count else { return unwrapped }
        func lines(limit: Double) -> [[Range<Int>]] { paragraphs.map { $0.greedyLines(limit: limit) } }
        func count(_ lines: [[Range<Int>]]) -> Int { lines.reduce(0) { $0 + $1.count } }
        var low = paragraphs.map(\.widestUnbreakable).max() ?? 0
        var high = paragraphs.map { $0.width(0..<$0.advances.count) }.max() ?? 0
        guard low < high else { return unwrapped }
        if count(lines(limit: low)) <= maxLines { return lines(limit: low) }
        // Invariant: `high` fits in maxLines lines, `low` does not. Widths are sums of a few
        // hundred advances at most, so 50 halvings reach a limit exact to the last bit that matters.
        for _ in 0..<50 {
            let middle = (low + high) / 2
            if count(lines(limit: middle)) <= maxLines { high = middle } else { low = middle }
        }
        return lines(limit: high)
    }
}
