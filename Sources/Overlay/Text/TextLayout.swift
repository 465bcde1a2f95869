/// The user's text as lines of Unicode scalars, after the clean-up `TextStyle` documents.
struct TextLines {
    var lines: [[Unicode.Scalar]]

    init(_ text: String) throws {
        guard !text.isEmpty else { throw TextRenderingError.textEmpty }
        let count = text.unicodeScalars.count
        guard count <= TextLimits.maximumScalarCount else { throw TextRenderingError.textTooLong(count: count) }
        var lines: [[Unicode.Scalar]] = [[]]
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\u{2028}", "\u{2029}":
                lines.append([])
            default:
                // "\r" (so CRLF text works), tabs, bells, escapes…: nothing sensible to draw.
                if scalar.properties.generalCategory == .control { continue }
                lines[lines.count - 1].append(scalar)
            }
        }
        guard lines.contains(where: { !$0.isEmpty }) else { throw TextRenderingError.textEmpty }
        self.lines = lines
    }
}

/// Every line's glyphs, chosen from the primary face or a fallback, and the characters no
/// installed font has (drawn as the primary face's .notdef box).
struct GlyphLines {
    var lines: [[GlyphReference]]
    var missing: [Unicode.Scalar]
}

/// Glyph positions and the text's boxes at one size, in text coordinates: origin at the left
/// edge of the widest line's advance box, level with the top of the first line's capitals.
struct TextLayout {
    struct Line {
        var glyphs: [(glyph: GlyphReference, penX: Int)]
        var baselineY: Int
    }

    var lines: [Line]
    /// The em size every face is rasterised at, in 1/64 pixel.
    var size26Dot6: Int
    /// From the top of the first line's capitals to the last line's baseline, and the widest line's advance.
    var textBox: PixelRect
    /// What placement aligns: `textBox`, or the plate when the text has a box.
    var layoutBox: PixelRect
}

extension FontLibrary {
    /// Picks a glyph for every scalar: the primary face's, else a fallback face's, else nothing
    /// for an invisible default-ignorable, else the primary's .notdef (recorded as missing).
    func glyphLines(for text: TextLines, primary: FontFace) -> GlyphLines {
        var choices: [UInt32: GlyphReference?] = [:]
        var missing: [Unicode.Scalar] = []
        var lines: [[GlyphReference]] = []
        for line in text.lines {
            var glyphs: [GlyphReference] = []
            glyphs.reserveCapacity(line.count)
            for scalar in line {
                let choice: GlyphReference?
                if let known = choices[scalar.value] {
                    choice = known
                } else {
                    choice = glyph(for: scalar, primary: primary, missing: &missing)
                    choices[scalar.value] = choice
                }
                if let choice { glyphs.append(choice) }
            }
            lines.append(glyphs)
        }
        return GlyphLines(lines: lines, missing: missing)
    }

    private func glyph(for scalar: Unicode.Scalar, primary: FontFace, missing: inout [Unicode.Scalar]) -> GlyphReference? {
        let index = primary.glyphIndex(for: scalar)
        if index != 0 { return GlyphReference(faceID: primary.id, glyph: index) }
        if let fallback = fallbackFace(for: scalar, primary: primary) {
            return GlyphReference(faceID: fallback.id, glyph: fallback.glyphIndex(for: scalar))
        }
        // Unicode asks for unsupported default-ignorables (joiners, variation selectors) to be invisible.
        if scalar.properties.isDefaultIgnorableCodePoint { return nil }
        // An unusual space is still a space; a box there would look like a missing letter.
        if scalar.properties.generalCategory == .spaceSeparator {
            let space = primary.glyphIndex(for: " ")
            if space != 0 { return GlyphReference(faceID: primary.id, glyph: space) }
        }
        missing.append(scalar)
        return GlyphReference(faceID: primary.id, glyph: 0)
    }

    /// Lays the glyphs out for a cap height of `capHeightPixels`.
    ///
    /// Advances and kerning come from the fonts' design units scaled to 26.6 fixed point and
    /// summed exactly; each glyph then sits at its pen position rounded to a whole pixel, so
    /// cached bitmaps can be reused. All faces share the em size that gives the primary face's
    /// capitals the requested height (as browsers do with fallback fonts).
    ///
    /// Lines are `primary`'s line height apart (its designed ascender − descender + line gap,
    /// about 1.6 cap heights for DejaVu Sans), kept within 1.2…3 cap heights so a font with odd
    /// metrics cannot make lines collide or drift apart. Each line is centred on the widest.
    func layout(_ text: GlyphLines, primary: FontFace, capHeightPixels: Double, boxPaddingPixels: Double?) throws -> TextLayout {
        let emPixels = capHeightPixels * Double(primary.unitsPerEm) / Double(primary.capHeightUnits)
        let size26Dot6 = max(1, Int((emPixels * 64).rounded()))
        let capPixels = max(1, Int(capHeightPixels.rounded()))
        let designLineHeight = Double(primary.lineHeightUnits) * emPixels / Double(primary.unitsPerEm)
        let linePitch = min(max(designLineHeight, 1.2 * capHeightPixels), 3 * capHeightPixels)

        var lines: [TextLayout.Line] = []
        var widths: [Int] = []
        for (number, glyphs) in text.lines.enumerated() {
            var placed: [(glyph: GlyphReference, penX: Int)] = []
            placed.reserveCapacity(glyphs.count)
            var pen26Dot6 = 0
            var previous: GlyphReference?
            for glyph in glyphs {
                let face = faces[glyph.faceID]
                if let previous, previous.faceID == glyph.faceID {
                    pen26Dot6 += scaled(face.kerningUnits(previous.glyph, glyph.glyph), face: face, size26Dot6: size26Dot6)
                }
                placed.append((glyph, roundedPixels(pen26Dot6)))
                pen26Dot6 += scaled(try face.advanceUnits(of: glyph.glyph), face: face, size26Dot6: size26Dot6)
                previous = glyph
            }
            widths.append(max(0, roundedPixels(pen26Dot6)))
            lines.append(TextLayout.Line(glyphs: placed, baselineY: capPixels + Int((Double(number) * linePitch).rounded())))
        }
        // Never narrower than a pixel, so a text of only zero-width characters still has a place.
        let width = max(1, widths.max() ?? 0)
        for i in lines.indices {
            let offset = (width - widths[i]) / 2
            if offset != 0 { lines[i].glyphs = lines[i].glyphs.map { ($0.glyph, $0.penX + offset) } }
        }
        let textBox = PixelRect(x: 0, y: 0, width: width, height: lines.last?.baselineY ?? capPixels)
        var layoutBox = textBox
        if let padding = boxPaddingPixels {
            // The plate reaches below the last baseline by the font's descender so g, p, y sit
            // inside it. Its top and bottom edges are each rounded once from their exact places
            // (padding above the capitals' true top; padding below baseline + descender), so the
            // plate's height is within a pixel of cap height + 2·padding + descender at any size.
            let descender = Double(primary.descenderUnits) * emPixels / Double(primary.unitsPerEm)
            let top = Int((Double(capPixels) - capHeightPixels - padding).rounded())
            let bottom = Int((Double(textBox.height) + padding + descender).rounded())
            let side = Int(padding.rounded())
            layoutBox = PixelRect(x: -side, y: top, width: width + 2 * side, height: bottom - top)
        }
        return TextLayout(lines: lines, size26Dot6: size26Dot6, textBox: textBox, layoutBox: layoutBox)
    }

    /// Font units to 26.6 pixels at an em size of `size26Dot6`, rounded to nearest.
    private func scaled(_ units: Int, face: FontFace, size26Dot6: Int) -> Int {
        let numerator = units * size26Dot6, denominator = face.unitsPerEm
        // Floor division of (2n + d) / 2d rounds half up for negative kerning values too.
        let twice = 2 * numerator + denominator
        let quotient = twice / (2 * denominator)
        return twice % (2 * denominator) < 0 ? quotient - 1 : quotient
    }

    /// 26.6 to whole pixels, rounded to nearest (arithmetic shift floors negatives correctly).
    private func roundedPixels(_ value26Dot6: Int) -> Int { (value26Dot6 + 32) >> 6 }
}
