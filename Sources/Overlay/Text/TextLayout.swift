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

/// Glyph positions and the text's boxes at one size, in text coordinates: origin at the left
/// edge of the widest line's advance box, level with the top of the first line's capitals.
struct TextLayout {
    struct PlacedGlyph {
        var glyph: GlyphReference
        /// Where the glyph's origin (pen position plus the shaper's offsets) lands, in whole pixels.
        var x: Int
        var baselineY: Int
    }

    var glyphs: [PlacedGlyph]
    var lineCount: Int
    /// The em size every face is rasterised at, in 1/64 pixel.
    var size26Dot6: Int
    /// From the top of the first line's capitals to the last line's baseline, and the widest line's advance.
    var textBox: PixelRect
    /// What placement aligns: `textBox`, or the plate when the text has a box.
    var layoutBox: PixelRect
}

extension FontLibrary {
    /// Lays shaped lines (glyphs left to right) out for a cap height of `capHeightPixels`.
    ///
    /// Advances and offsets come from the shaper in design units, scaled to 26.6 fixed point and
    /// summed exactly; each glyph then sits at its position rounded to a whole pixel, so cached
    /// bitmaps can be reused. All faces share the em size that gives the primary face's
    /// capitals the requested height (as browsers do with fallback fonts).
    ///
    /// Lines are `primary`'s line height apart (its designed ascender − descender + line gap,
    /// about 1.6 cap heights for DejaVu Sans), kept within 1.2…3 cap heights so a font with odd
    /// metrics cannot make lines collide or drift apart. Lines shorter than the widest are
    /// placed by `alignment`.
    func layout(_ lines: [[LineGlyph]], primary: FontFace, capHeightPixels: Double, boxPaddingPixels: Double?,
                alignment: TextAlignment) -> TextLayout {
        let emPixels = capHeightPixels * Double(primary.unitsPerEm) / Double(primary.capHeightUnits)
        let size26Dot6 = max(1, Int((emPixels * 64).rounded()))
        let capPixels = max(1, Int(capHeightPixels.rounded()))
        let designLineHeight = Double(primary.lineHeightUnits) * emPixels / Double(primary.unitsPerEm)
        let linePitch = min(max(designLineHeight, 1.2 * capHeightPixels), 3 * capHeightPixels)

        var placedLines: [[TextLayout.PlacedGlyph]] = []
        var widths: [Int] = []
        var lastBaseline = capPixels
        for (number, line) in lines.enumerated() {
            let baselineY = capPixels + Int((Double(number) * linePitch).rounded())
            lastBaseline = baselineY
            var placed: [TextLayout.PlacedGlyph] = []
            placed.reserveCapacity(line.count)
            var pen26Dot6 = 0
            for glyph in line {
                let face = faces[glyph.faceID]
                let x = pen26Dot6 + scaled(glyph.shaped.xOffset, face: face, size26Dot6: size26Dot6)
                let rise = scaled(glyph.shaped.yOffset, face: face, size26Dot6: size26Dot6)
                placed.append(TextLayout.PlacedGlyph(glyph: GlyphReference(faceID: glyph.faceID, glyph: glyph.shaped.glyph),
                                                     x: roundedPixels(x), baselineY: baselineY - roundedPixels(rise)))
                pen26Dot6 += scaled(glyph.shaped.xAdvance, face: face, size26Dot6: size26Dot6)
            }
            widths.append(max(0, roundedPixels(pen26Dot6)))
            placedLines.append(placed)
        }
        // Never narrower than a pixel, so a text of only zero-width characters still has a place.
        let width = max(1, widths.max() ?? 0)
        var glyphs: [TextLayout.PlacedGlyph] = []
        for (line, lineWidth) in zip(placedLines, widths) {
            let offset: Int
            switch alignment {
            case .left: offset = 0
            case .center: offset = (width - lineWidth) / 2
            case .right: offset = width - lineWidth
            }
            glyphs.append(contentsOf: line.map { TextLayout.PlacedGlyph(glyph: $0.glyph, x: $0.x + offset, baselineY: $0.baselineY) })
        }
        let textBox = PixelRect(x: 0, y: 0, width: width, height: lastBaseline)
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
        return TextLayout(glyphs: glyphs, lineCount: max(1, lines.count), size26Dot6: size26Dot6,
                          textBox: textBox, layoutBox: layoutBox)
    }

    /// Font units to 26.6 pixels at an em size of `size26Dot6`, rounded to nearest.
    private func scaled(_ units: Int, face: FontFace, size26Dot6: Int) -> Int {
        let numerator = units * size26Dot6, denominator = face.unitsPerEm
        // Floor division of (2n + d) / 2d rounds half up for negative values too.
        let twice = 2 * numerator + denominator
        let quotient = twice / (2 * denominator)
        return twice % (2 * denominator) < 0 ? quotient - 1 : quotient
    }

    /// 26.6 to whole pixels, rounded to nearest (arithmetic shift floors negatives correctly).
    private func roundedPixels(_ value26Dot6: Int) -> Int { (value26Dot6 + 32) >> 6 }
}
