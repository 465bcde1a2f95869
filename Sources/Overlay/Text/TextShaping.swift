/// A stretch of one paragraph drawn with one face in one direction and script.
struct TextRun: Equatable {
    var range: Range<Int>
    /// Bidi embedding level: odd is right to left.
    var level: UInt8
    /// A HarfBuzz script tag, with Common/Inherited characters resolved to their neighbours'.
    var script: UInt32
    var faceID: Int
}

/// One user-typed line, itemised into runs (logical order) and measured for wrapping.
struct ItemizedParagraph {
    var scalars: [Unicode.Scalar]
    var codepoints: [UInt32]
    var bidi: BidiParagraph
    var runs: [TextRun]
    /// Each scalar's share of the shaped advance, in ems (a cluster's advance goes to its first scalar).
    var advanceEms: [Double]
    /// Each run shaped whole (in `runs` order): a line that holds a whole run reuses it.
    var shapedRuns: [[ShapedGlyph]]
}

/// A glyph placed on a line, in its face's design units; lines list glyphs left to right.
struct LineGlyph: Equatable {
    var faceID: Int
    var shaped: ShapedGlyph
}

extension FontLibrary {
    /// Splits `scalars` into runs of one bidi level, script and face, and shapes them once to
    /// measure every scalar. Characters no installed font has are added to `missing`.
    func itemize(_ scalars: [Unicode.Scalar], primary: FontFace, missing: inout [Unicode.Scalar]) -> ItemizedParagraph {
        let bidi = BidiParagraph(scalars)
        let scripts = resolvedScripts(scalars)
        let faceIDs = faceChoices(scalars, scripts: scripts, primary: primary, missing: &missing)
        var runs: [TextRun] = []
        for i in scalars.indices {
            if let last = runs.last, last.level == bidi.levels[i], last.script == scripts[i], last.faceID == faceIDs[i] {
                runs[runs.count - 1].range = last.range.lowerBound..<(i + 1)
            } else {
                runs.append(TextRun(range: i..<(i + 1), level: bidi.levels[i], script: scripts[i], faceID: faceIDs[i]))
            }
        }
        let codepoints = scalars.map(\.value)
        var advances = [Double](repeating: 0, count: scalars.count)
        var shapedRuns: [[ShapedGlyph]] = []
        for run in runs {
            let face = faces[run.faceID]
            let glyphs = face.shaper.shape(paragraph: codepoints, range: run.range, rightToLeft: run.level & 1 == 1, script: run.script)
            for glyph in glyphs {
                advances[glyph.cluster] += Double(glyph.xAdvance) / Double(face.unitsPerEm)
            }
            shapedRuns.append(glyphs)
        }
        return ItemizedParagraph(scalars: scalars, codepoints: codepoints, bidi: bidi, runs: runs, advanceEms: advances,
                                 shapedRuns: shapedRuns)
    }

    /// Shapes `range` of `paragraph` as one line: its runs clipped to the range, put in visual
    /// order (bidi rule L2), each shaped with its face. Glyphs come out left to right.
    func shapeLine(_ paragraph: ItemizedParagraph, range: Range<Int>) -> [LineGlyph] {
        let pieces = paragraph.runs.indices.compactMap { index -> (run: TextRun, whole: Int?)? in
            var piece = paragraph.runs[index]
            let clipped = piece.range.clamped(to: range)
            guard !clipped.isEmpty else { return nil }
            let whole = clipped == piece.range ? index : nil
            piece.range = clipped
            return (piece, whole)
        }
        var glyphs: [LineGlyph] = []
        for index in visualOrder(ofRunLevels: pieces.map(\.run.level)) {
            let (run, whole) = pieces[index]
            // A run the line holds whole shapes as it did for measuring (same text, same context).
            let shaped = whole.map { paragraph.shapedRuns[$0] }
                ?? faces[run.faceID].shaper.shape(paragraph: paragraph.codepoints, range: run.range,
                                                  rightToLeft: run.level & 1 == 1, script: run.script)
            glyphs.append(contentsOf: shaped.map { LineGlyph(faceID: run.faceID, shaped: $0) })
        }
        return glyphs
    }

    /// Each scalar's script, with Common and Inherited ones (spaces, digits, punctuation, marks)
    /// taking the script before them, or after them at the start of the paragraph.
    private func resolvedScripts(_ scalars: [Unicode.Scalar]) -> [UInt32] {
        var scripts = scalars.map(ScriptProperty.script(of:))
        // A mark belongs to its base, even when the base is a digit or a symbol.
        for i in scripts.indices.dropFirst() where scripts[i] == ScriptProperty.inherited { scripts[i] = scripts[i - 1] }
        var previous: UInt32?
        for i in scripts.indices {
            if ScriptProperty.isNeutral(scripts[i]) {
                if let previous { scripts[i] = previous }
            } else {
                previous = scripts[i]
            }
        }
        if let first = scripts.firstIndex(where: { !ScriptProperty.isNeutral($0) }) {
            for i in 0..<first { scripts[i] = scripts[first] }
        }
        return scripts
    }

    /// The face for every scalar (see `TextStyle` for the rules in words).
    private func faceChoices(_ scalars: [Unicode.Scalar], scripts: [UInt32], primary: FontFace,
                             missing: inout [Unicode.Scalar]) -> [Int] {
        // Own choices: emoji presentation from a colour font, else the primary, else a fallback.
        var own: [Int?] = scalars.indices.map { i in
            let scalar = scalars[i]
            let wantsColor = scalar.properties.isEmojiPresentation
                || (i + 1 < scalars.count && scalars[i + 1] == "\u{FE0F}" && scalar.properties.isEmoji)
            if wantsColor, let color = fallbackFace(for: scalar, primary: primary, color: true) { return color.id }
            if primary.glyphIndex(for: scalar) != 0 { return primary.id }
            return fallbackFace(for: scalar, primary: primary, color: nil)?.id
        }
        unifyFallbacks(&own, scalars: scalars, scripts: scripts, primary: primary)

        // Neutral characters stay with the face before them when it has them, so spaces inside a
        // Devanagari name, marks and joiners inside an emoji sequence do not split the run.
        var chosen = own
        var previous: Int?
        for i in scalars.indices {
            let scalar = scalars[i]
            let script = ScriptProperty.script(of: scalar)
            let ownIsColor = own[i].map { faces[$0].isColor } ?? false
            if let previous, !ownIsColor, ScriptProperty.isNeutral(script) || scalar.properties.isDefaultIgnorableCodePoint {
                let face = faces[previous]
                let isMark = script == ScriptProperty.inherited || scalar.properties.isDefaultIgnorableCodePoint
                // Marks, joiners and selectors belong to the cluster before them (an emoji's keycap
                // and variation selector too); punctuation and spaces go back to the text face after an emoji.
                let keep = isMark ? (face.glyphIndex(for: scalar) != 0 || face.isColor || own[i] == nil
                                     || scalar.properties.isDefaultIgnorableCodePoint)
                                  : (!face.isColor && face.glyphIndex(for: scalar) != 0)
                if keep { chosen[i] = previous }
            }
            if let face = chosen[i] { previous = face }
        }
        // Leading neutrals take the face after them when it has them ("(" before an Arabic name).
        if let first = scalars.indices.first(where: { !ScriptProperty.isNeutral(ScriptProperty.script(of: scalars[$0])) }),
           let face = chosen[first] {
            for i in 0..<first where faces[face].glyphIndex(for: scalars[i]) != 0 && !faces[face].isColor { chosen[i] = face }
        }
        return scalars.indices.map { i in
            if let face = chosen[i] { return face }
            let scalar = scalars[i]
            // Invisible joiners and selectors, and unusual spaces, are handled by the shaper; anything else is a box.
            if !scalar.properties.isDefaultIgnorableCodePoint && scalar.properties.generalCategory != .spaceSeparator
                && !missing.contains(scalar) {
                missing.append(scalar)
            }
            return primary.id
        }
    }

    /// Within a stretch of one script drawn from fallback fonts, one font for the whole stretch
    /// when one covers it all: a Devanagari name is not drawn half in one font, half in another.
    private func unifyFallbacks(_ own: inout [Int?], scalars: [Unicode.Scalar], scripts: [UInt32], primary: FontFace) {
        var i = 0
        while i < scalars.count {
            guard let face = own[i], face != primary.id, !faces[face].isColor else { i += 1; continue }
            var end = i + 1
            while end < scalars.count, scripts[end] == scripts[i], let next = own[end], next != primary.id, !faces[next].isColor {
                end += 1
            }
            let stretch = Array(scalars[i..<end])
            if Set(own[i..<end]).count > 1, let common = fallbackFace(covering: stretch, primary: primary) {
                for j in i..<end { own[j] = common.id }
            }
            i = end
        }
    }
}
