import Testing
@testable import Overlay

/// Bidi levels (FriBidi), the order runs are drawn in, and where and how lines wrap.
@Suite struct BidiAndLineBreakingTests {
    private func scalars(_ text: String) -> [Unicode.Scalar] { Array(text.unicodeScalars) }

    // MARK: Bidi

    @Test func latinTextIsAllLeftToRight() {
        let paragraph = BidiParagraph(scalars("ada@example.com (2024)"))
        #expect(!paragraph.isRightToLeft)
        #expect(paragraph.levels.allSatisfy { $0 == 0 })
    }

    @Test func hebrewAndArabicAreRightToLeftParagraphs() {
        for text in ["שלום", "محمد", "שלום עולם"] {
            let paragraph = BidiParagraph(scalars(text))
            #expect(paragraph.isRightToLeft, "\(text)")
            #expect(paragraph.levels.allSatisfy { $0 == 1 }, "\(text): \(paragraph.levels)")
        }
    }

    @Test func anEmailInsideArabicIsALeftToRightIsland() {
        let text = scalars("محمد — ada@example.com")
        let paragraph = BidiParagraph(text)
        #expect(paragraph.isRightToLeft)
        let email = text.count - "ada@example.com".unicodeScalars.count
        #expect(paragraph.levels[0..<4].allSatisfy { $0 == 1 })
        // The whole address, "@" and "." included, resolves to one even level above the paragraph's.
        #expect(paragraph.levels[email...].allSatisfy { $0 == 2 }, "\(paragraph.levels)")
        // The dash between them takes the paragraph's direction.
        #expect(paragraph.levels[5] == 1)
    }

    @Test func latinParagraphWithAnArabicNameStaysLeftToRight() {
        let text = scalars("Name: محمد Ali")
        let paragraph = BidiParagraph(text)
        #expect(!paragraph.isRightToLeft)
        #expect(paragraph.levels[6..<10].allSatisfy { $0 == 1 })
        #expect(paragraph.levels[0..<6].allSatisfy { $0 == 0 } && paragraph.levels[11...].allSatisfy { $0 == 0 })
    }

    @Test func runsAreReversedFromTheHighestLevelDown() {
        #expect(visualOrder(ofRunLevels: [0, 0, 0]) == [0, 1, 2])
        #expect(visualOrder(ofRunLevels: [1, 1, 1]) == [2, 1, 0])
        // RTL paragraph: Arabic, neutral, LTR island: the island is drawn first (leftmost), itself unreversed.
        #expect(visualOrder(ofRunLevels: [1, 1, 2]) == [2, 1, 0])
        #expect(visualOrder(ofRunLevels: [1, 2, 2, 1]) == [3, 1, 2, 0])
        // LTR paragraph with an RTL run inside.
        #expect(visualOrder(ofRunLevels: [0, 1, 1, 0]) == [0, 2, 1, 3])
        #expect(visualOrder(ofRunLevels: []) == [])
    }

    // MARK: Break opportunities

    @Test func spacesBreakAndAreDroppedButNoBreakSpacesHold() {
        let text = scalars("Ada  Lovelace\u{00A0}Byron")
        #expect(LineBreaking.opportunities(in: text) == [LineBreaking.Opportunity(lineEnd: 3, nextStart: 5)])
        // Leading and trailing spaces never make an empty line.
        #expect(LineBreaking.opportunities(in: scalars(" a ")).isEmpty)
    }

    @Test func anEmailBreaksAfterTheAtSignAndItsDots() {
        let text = scalars("first.last@uni.example.edu")
        let ends = LineBreaking.opportunities(in: text).map(\.lineEnd)
        // After "first.", "first.last@", "uni.", "example."; never at the very end.
        #expect(ends == [6, 11, 15, 23])
        #expect(LineBreaking.opportunities(in: text).allSatisfy { $0.lineEnd == $0.nextStart })
        // A word without "@" is not an address: its dots do not break.
        #expect(LineBreaking.opportunities(in: scalars("www.example.com")).isEmpty)
        // Doubled separators stay together.
        #expect(LineBreaking.opportunities(in: scalars("a..b@c")).map(\.lineEnd) == [3, 5])
    }

    @Test func ideographsBreakBetweenEachOther() {
        #expect(LineBreaking.opportunities(in: scalars("中文字")).map(\.lineEnd) == [1, 2])
        #expect(LineBreaking.opportunities(in: scalars("ひらがな")).count == 3)
    }

    // MARK: Wrapping

    private func paragraph(_ text: String) -> LineBreaking.Paragraph {
        let s = scalars(text)
        return LineBreaking.Paragraph(advances: s.map { _ in 1 }, opportunities: LineBreaking.opportunities(in: s))
    }

    private func lines(_ text: String, _ ranges: [Range<Int>]) -> [String] {
        let s = scalars(text)
        return ranges.map { String(String.UnicodeScalarView(s[$0])) }
    }

    @Test func greedyLinesFillUpToTheLimit() {
        let text = "aa bb cc dd"
        #expect(lines(text, paragraph(text).greedyLines(limit: 5)) == ["aa bb", "cc dd"])
        #expect(lines(text, paragraph(text).greedyLines(limit: 8)) == ["aa bb cc", "dd"])
        #expect(lines(text, paragraph(text).greedyLines(limit: 100)) == ["aa bb cc dd"])
        // A word wider than the limit gets a line of its own rather than being cut.
        let long = "a verylongword b"
        #expect(lines(long, paragraph(long).greedyLines(limit: 3)) == ["a", "verylongword", "b"])
    }

    @Test func wrappingBalancesTheLinesAndRespectsMaxLines() {
        let email = "student.firstname.lastname@example-university.edu"
        let wrapped = LineBreaking.wrap([paragraph(email)], maxLines: 2)
        #expect(lines(email, wrapped[0]) == ["student.firstname.lastname@", "example-university.edu"])
        let three = LineBreaking.wrap([paragraph(email)], maxLines: 3)
        #expect(three[0].count == 3)
        #expect(lines(email, three[0]).joined() == email)
        // Spaces at a break are dropped, everything else is kept.
        let sentence = "one two three four"
        #expect(lines(sentence, LineBreaking.wrap([paragraph(sentence)], maxLines: 2)[0]) == ["one two", "three four"])
        // Typed lines count towards maxLines and are never joined.
        let typed = LineBreaking.wrap([paragraph("aa bb"), paragraph("cc dd")], maxLines: 2)
        #expect(typed.map(\.count) == [1, 1])
        let room = LineBreaking.wrap([paragraph("aaaa bbbb"), paragraph("cc")], maxLines: 3)
        #expect(room.map(\.count) == [2, 1])
        // Nothing to break at: one line, whatever maxLines says.
        #expect(LineBreaking.wrap([paragraph("unbreakable")], maxLines: 4)[0].count == 1)
    }
}
