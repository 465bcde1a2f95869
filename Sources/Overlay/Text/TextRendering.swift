extension FontLibrary {
    /// Rasterises `style` into a premultiplied sprite.
    ///
    /// The sprite's `layoutBox` runs from the left to the right edge of the widest line's
    /// advance box and from the top of the first line's capitals to the last line's baseline
    /// (one line: exactly the rounded cap height); with a `box` it is the plate's rectangle.
    /// The image holds all ink, so descenders, outline, shadow and plate may reach outside
    /// the layout box; the layout box always lies inside the image.
    ///
    /// Sublayers, bottom to top: plate, shadow, outline, fill and colour glyphs, joined with
    /// premultiplied "source over". The outline is the glyphs grown by its width, and only its
    /// part outside the glyphs is painted (fill and outline share each edge pixel by area), so
    /// there is no seam between them and a translucent fill does not show the outline through it.
    /// Colour glyphs (emoji) keep their colours, take the fill colour's alpha, cast the shadow and
    /// get the outline around their silhouette like any glyph.
    ///
    /// Text wider than `maxWidthPixels` first shrinks; when that would take the cap height below
    /// `minimumLegibleCapHeightPixels`, it wraps onto up to `maxLines` lines (see `LineBreaking`)
    /// and shrinks only as much as the widest line needs; below the floor even then, one warning
    /// says so.
    ///
    /// Missing glyphs come from a fallback font when one is installed; otherwise the font's
    /// .notdef box is drawn and one warning lists them. The same style gives the same bytes.
    public func render(_ style: TextStyle) throws -> RenderedText {
        try draw(style).rendered
    }

    /// Renders `style` and keeps what a later `redraw(_:text:)` needs.
    func draw(_ style: TextStyle) throws -> TextDrawing {
        let text = try TextLines(style.text)
        let capHeight = try FontLibrary.validatedCapHeight(style.capHeightPixels)
        try FontLibrary.validate(style)
        var warnings: [String] = []
        let (primary, fontWarning) = try primaryFace(for: style.font)
        if let fontWarning { warnings.append(fontWarning) }

        var missing: [Unicode.Scalar] = []
        let paragraphs = text.lines.map { itemize($0, primary: primary, missing: &missing) }
        if !missing.isEmpty {
            warnings.append(FontLibrary.missingGlyphsWarning(missing, font: primary.familyName))
        }
        let lines = shapedLines(paragraphs, style: style, capHeight: capHeight, primary: primary)

        func layout(scale: Double) -> TextLayout {
            self.layout(lines, primary: primary, capHeightPixels: max(1, capHeight * scale),
                        boxPaddingPixels: style.box.map { $0.paddingPixels * scale }, alignment: style.alignment)
        }
        var scale = 1.0
        var textLayout = layout(scale: scale)
        if let maxWidth = style.maxWidthPixels, Double(textLayout.layoutBox.width) > maxWidth {
            // Widths are linear in the size up to rounding, so this settles in a step or two.
            for _ in 0..<40 where Double(textLayout.layoutBox.width) > maxWidth {
                let next = max(scale * min(maxWidth / Double(textLayout.layoutBox.width), 0.999), 1 / capHeight)
                if next >= scale { break }
                scale = next
                textLayout = layout(scale: scale)
            }
            if Double(textLayout.layoutBox.width) > maxWidth {
                warnings.append("text is \(textLayout.layoutBox.width) px wide even at a cap height of 1 px, wider than maxWidth (\(Int(maxWidth)) px)")
            } else if let floor = style.minimumLegibleCapHeightPixels, capHeight * scale < min(floor, capHeight) - 0.005 {
                let lineCount = textLayout.lineCount
                warnings.append("text is shrunk to a cap height of \(String(format2: capHeight * scale)) px, below the legible \(String(format2: min(floor, capHeight))) px, to fit maxWidth (\(Int(maxWidth)) px) on \(lineCount) line\(lineCount == 1 ? "" : "s"); shorten it or allow more lines (maxLines)")
            }
        }
        let box = textLayout.layoutBox
        if box.width > TextLimits.maximumImageSide || box.height > TextLimits.maximumImageSide
            || box.width * box.height > TextLimits.maximumImagePixels {
            throw TextRenderingError.renderedTooLarge(width: box.width, height: box.height)
        }

        let drawing = try rasterize(textLayout, lines: lines, style: style, scale: scale)
        if !drawing.hasInk && style.box == nil {
            warnings.append("text has no visible characters (only spaces or invisible marks); nothing is drawn")
        }
        drawing.rendered = RenderedText(sprite: drawing.sprite, warnings: warnings, lineCount: textLayout.lineCount,
                                        capHeightPixels: max(1, capHeight * scale))
        return drawing
    }

    /// The lines to draw, shaped: wrapped as `wrap` decides, each in visual order.
    func shapedLines(_ paragraphs: [ItemizedParagraph], style: TextStyle, capHeight: Double, primary: FontFace) -> [[LineGlyph]] {
        let emPerCap = Double(primary.unitsPerEm) / Double(primary.capHeightUnits)
        let lineRanges = FontLibrary.wrap(paragraphs, style: style, capHeight: capHeight, emPerCap: emPerCap)
        return lineRanges.map { shapeLine(paragraphs[$0.paragraph], range: $0.range) }
    }

    /// The lines to draw: each paragraph whole when it fits, or shrinks no further than the legible
    /// floor to fit; otherwise wrapped onto the fewest lines (up to `maxLines`) at which it fits
    /// above the floor, or onto the number that lets it be largest when none does.
    static func wrap(_ paragraphs: [ItemizedParagraph], style: TextStyle, capHeight: Double,
                     emPerCap: Double) -> [(paragraph: Int, range: Range<Int>)] {
        let unwrapped = paragraphs.indices.map { [0..<paragraphs[$0].scalars.count] }
        func flattened(_ lines: [[Range<Int>]]) -> [(paragraph: Int, range: Range<Int>)] {
            lines.enumerated().flatMap { paragraph, ranges in ranges.map { (paragraph, $0) } }
        }
        guard let maxWidth = style.maxWidthPixels, let floor = style.minimumLegibleCapHeightPixels,
              style.maxLines > paragraphs.count else { return flattened(unwrapped) }
        let breakable = paragraphs.map {
            LineBreaking.Paragraph(advances: $0.advanceEms, opportunities: LineBreaking.opportunities(in: $0.scalars))
        }
        let emPixels = capHeight * emPerCap, padding = style.box?.paddingPixels ?? 0
        let legible = min(floor, capHeight)
        // Padding, like everything else, shrinks with the text.
        func scale(_ lines: [[Range<Int>]]) -> Double {
            let widest = zip(breakable, lines).map { paragraph, ranges in ranges.map(paragraph.width).max() ?? 0 }.max() ?? 0
            return min(1, maxWidth / max(widest * emPixels + 2 * padding, 1e-9))
        }
        var best = unwrapped, bestScale = scale(unwrapped)
        if capHeight * bestScale >= legible { return flattened(unwrapped) }
        for count in (paragraphs.count + 1)...style.maxLines {
            let lines = LineBreaking.wrap(breakable, maxLines: count)
            let candidate = scale(lines)
            if candidate > bestScale * 1.000001 { best = lines; bestScale = candidate }
            if capHeight * candidate >= legible { break }
        }
        return flattened(best)
    }

    private static func validatedCapHeight(_ pixels: Double) throws -> Double {
        guard !pixels.isNaN, pixels <= TextLimits.maximumCapHeightPixels else {
            throw TextRenderingError.sizeOutOfRange(pixels: pixels)
        }
        return max(1, pixels)
    }

    /// Lengths must be finite and, except shadow offsets, not negative. Anything beyond the
    /// image side limit could not be drawn anyway, and is refused before it can overflow an `Int`.
    private static func validate(_ style: TextStyle) throws {
        func check(_ field: TextLength, _ value: Double?, mayBeNegative: Bool = false) throws {
            guard let value else { return }
            let limit = Double(TextLimits.maximumImageSide)
            guard value.isFinite, value <= limit, value >= (mayBeNegative ? -limit : 0) else {
                throw TextRenderingError.invalidLength(field: field, value: value)
            }
        }
        try check(.outlineWidth, style.outline?.widthPixels)
        try check(.shadowOffsetX, style.shadow?.offsetXPixels, mayBeNegative: true)
        try check(.shadowOffsetY, style.shadow?.offsetYPixels, mayBeNegative: true)
        try check(.shadowBlur, style.shadow?.blurPixels)
        try check(.boxPadding, style.box?.paddingPixels)
        try check(.boxCornerRadius, style.box?.cornerRadiusPixels)
        if let maxWidth = style.maxWidthPixels, !(maxWidth.isFinite && maxWidth >= 0) {
            throw TextRenderingError.invalidLength(field: .maxWidth, value: maxWidth)
        }
    }

    private static func missingGlyphsWarning(_ scalars: [Unicode.Scalar], font: String) -> String {
        func codePoint(_ scalar: Unicode.Scalar) -> String {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        let shown = scalars.prefix(8).map(codePoint).joined(separator: ", ")
        let more = scalars.count > 8 ? " and \(scalars.count - 8) more" : ""
        return "font \(font) has no glyph for \(shown)\(more), nor does any installed fallback font; drawn as a box"
    }

    /// Rasterises the glyphs of `layout` and composes the sublayers.
    private func rasterize(_ layout: TextLayout, lines: [[LineGlyph]], style: TextStyle, scale: Double) throws -> TextDrawing {
        let outlineRadius26Dot6 = style.outline.map { Int(($0.widthPixels * scale * 64).rounded()) } ?? 0
        var placed: [TextDrawing.PlacedGlyph] = []
        var ink: PixelRect?
        for glyph in layout.glyphs {
            let one = try place(glyph, size26Dot6: layout.size26Dot6, outlineRadius26Dot6: outlineRadius26Dot6)
            if let rect = one.inkRect { ink = ink.map { $0.union(rect) } ?? rect }
            placed.append(one)
        }

        var canvas = layout.layoutBox
        var shadowShift = (x: 0, y: 0), shadowSigma = 0.0
        if let ink {
            canvas = canvas.union(ink)
            if let shadow = style.shadow {
                shadowShift = (Int((shadow.offsetXPixels * scale).rounded()), Int((shadow.offsetYPixels * scale).rounded()))
                shadowSigma = shadow.blurPixels * scale / 2
                let spread = CoveragePlane.blurExtent(sigma: shadowSigma)
                canvas = canvas.union(PixelRect(x: ink.x + shadowShift.x - spread, y: ink.y + shadowShift.y - spread,
                                                width: ink.width + 2 * spread, height: ink.height + 2 * spread))
            }
        }
        guard canvas.width <= TextLimits.maximumImageSide, canvas.height <= TextLimits.maximumImageSide,
              canvas.width * canvas.height <= TextLimits.maximumImagePixels else {
            throw TextRenderingError.renderedTooLarge(width: canvas.width, height: canvas.height)
        }
        var layoutBox = layout.layoutBox
        layoutBox.x -= canvas.x
        layoutBox.y -= canvas.y
        var composition = TextComposition(fill: CoveragePlane(width: canvas.width, height: canvas.height), fillColor: style.color)
        if let outline = style.outline, outlineRadius26Dot6 > 0 {
            composition.outline = (CoveragePlane(width: canvas.width, height: canvas.height), outline.color)
        }
        if let shadow = style.shadow, ink != nil {
            composition.shadow = (CoveragePlane(width: canvas.width, height: canvas.height), shadow.color)
        }
        if let box = style.box {
            var plate = CoveragePlane(width: canvas.width, height: canvas.height)
            plate.fillRoundedRect(layoutBox, radius: box.cornerRadiusPixels * scale)
            composition.plate = (plate, box.color)
        }
        let drawing = TextDrawing(style: style, lines: lines, layout: layout, scale: scale, canvas: canvas,
                                  outlineRadius26Dot6: outlineRadius26Dot6, shadowShift: shadowShift, shadowSigma: shadowSigma,
                                  placed: placed, composition: composition, layoutBox: layoutBox, hasInk: ink != nil)
        let whole = PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        drawing.drawGlyphs(in: whole)
        drawing.composition.shadow?.plane.gaussianBlur(sigma: shadowSigma)
        drawing.image = drawing.composition.image(width: canvas.width, height: canvas.height)
        return drawing
    }

    /// One glyph's bitmaps (from the cache when drawn before) at its place in text coordinates.
    func place(_ glyph: TextLayout.PlacedGlyph, size26Dot6: Int, outlineRadius26Dot6: Int) throws -> TextDrawing.PlacedGlyph {
        let color = faces[glyph.glyph.faceID].isColor ? try colorGlyph(glyph.glyph, size26Dot6: size26Dot6) : nil
        // A colour glyph's silhouette (its alpha) stands in for the fill's coverage in the shadow.
        let fill = try color?.alphaCoverage ?? coverage(of: glyph.glyph, size26Dot6: size26Dot6, outlineRadius26Dot6: 0)
        let outline = outlineRadius26Dot6 > 0
            ? try coverage(of: glyph.glyph, size26Dot6: size26Dot6, outlineRadius26Dot6: outlineRadius26Dot6) : nil
        return TextDrawing.PlacedGlyph(glyph: glyph.glyph, fill: fill, outline: outline, color: color,
                                       penX: glyph.x, baselineY: glyph.baselineY)
    }
}

extension PixelRect {
    /// The smallest rectangle holding both.
    func union(_ other: PixelRect) -> PixelRect {
        let left = min(x, other.x), top = min(y, other.y)
        return PixelRect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }
}
