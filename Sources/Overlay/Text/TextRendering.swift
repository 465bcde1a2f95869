extension FontLibrary {
    /// Rasterises `style` into a premultiplied sprite.
    ///
    /// The sprite's `layoutBox` runs from the left to the right edge of the widest line's
    /// advance box and from the top of the first line's capitals to the last line's baseline
    /// (one line: exactly the rounded cap height); with a `box` it is the plate's rectangle.
    /// The image holds all ink, so descenders, outline, shadow and plate may reach outside
    /// the layout box; the layout box always lies inside the image.
    ///
    /// Sublayers, bottom to top: plate, shadow, outline, fill, joined with premultiplied
    /// "source over". The outline is the glyphs grown by its width, and only its part outside
    /// the glyphs is painted (fill and outline share each edge pixel by area), so there is no
    /// seam between them and a translucent fill does not show the outline through it.
    ///
    /// Missing glyphs come from a fallback font when one is installed; otherwise the font's
    /// .notdef box is drawn and one warning lists them. The same style gives the same bytes.
    public func render(_ style: TextStyle) throws -> RenderedText {
        let text = try TextLines(style.text)
        let capHeight = try FontLibrary.validatedCapHeight(style.capHeightPixels)
        try FontLibrary.validate(style)
        var warnings: [String] = []
        let (primary, fontWarning) = try primaryFace(for: style.font)
        if let fontWarning { warnings.append(fontWarning) }

        let glyphs = glyphLines(for: text, primary: primary)
        if !glyphs.missing.isEmpty {
            warnings.append(FontLibrary.missingGlyphsWarning(glyphs.missing, font: primary.familyName))
        }

        func layout(scale: Double) throws -> TextLayout {
            try self.layout(glyphs, primary: primary, capHeightPixels: max(1, capHeight * scale),
                            boxPaddingPixels: style.box.map { $0.paddingPixels * scale })
        }
        var scale = 1.0
        var textLayout = try layout(scale: scale)
        if let maxWidth = style.maxWidthPixels, Double(textLayout.layoutBox.width) > maxWidth {
            // Widths are linear in the size up to rounding, so this settles in a step or two.
            for _ in 0..<40 where Double(textLayout.layoutBox.width) > maxWidth {
                let next = max(scale * min(maxWidth / Double(textLayout.layoutBox.width), 0.999), 1 / capHeight)
                if next >= scale { break }
                scale = next
                textLayout = try layout(scale: scale)
            }
            if Double(textLayout.layoutBox.width) > maxWidth {
                warnings.append("text is \(textLayout.layoutBox.width) px wide even at a cap height of 1 px, wider than maxWidth (\(Int(maxWidth)) px)")
            }
        }
        let box = textLayout.layoutBox
        if box.width > TextLimits.maximumImageSide || box.height > TextLimits.maximumImageSide
            || box.width * box.height > TextLimits.maximumImagePixels {
            throw TextRenderingError.renderedTooLarge(width: box.width, height: box.height)
        }

        let (sprite, hasInk) = try rasterize(textLayout, style: style, scale: scale)
        if !hasInk && style.box == nil {
            warnings.append("text has no visible characters (only spaces or invisible marks); nothing is drawn")
        }
        return RenderedText(sprite: sprite, warnings: warnings)
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

    /// Rasterises the glyphs of `layout` and composes the sublayers; also tells whether any glyph left ink.
    private func rasterize(_ layout: TextLayout, style: TextStyle, scale: Double) throws -> (Sprite, Bool) {
        let outlineRadius26Dot6 = style.outline.map { Int(($0.widthPixels * scale * 64).rounded()) } ?? 0
        struct PlacedGlyph {
            var fill: GlyphCoverage
            var outline: GlyphCoverage?
            var penX: Int
            var baselineY: Int
        }
        var placed: [PlacedGlyph] = []
        var ink: PixelRect?
        for line in layout.lines {
            for (glyph, penX) in line.glyphs {
                let fill = try coverage(of: glyph, size26Dot6: layout.size26Dot6, outlineRadius26Dot6: 0)
                let outline = outlineRadius26Dot6 > 0
                    ? try coverage(of: glyph, size26Dot6: layout.size26Dot6, outlineRadius26Dot6: outlineRadius26Dot6) : nil
                for coverage in [fill, outline] {
                    guard let coverage, coverage.width > 0 else { continue }
                    ink = union(ink, coverage.rect(penX: penX, baselineY: line.baselineY))
                }
                placed.append(PlacedGlyph(fill: fill, outline: outline, penX: penX, baselineY: line.baselineY))
            }
        }

        var canvas = layout.layoutBox
        var shadowShift = (x: 0, y: 0), shadowSigma = 0.0
        if let ink {
            canvas = union(canvas, ink)
            if let shadow = style.shadow {
                shadowShift = (Int((shadow.offsetXPixels * scale).rounded()), Int((shadow.offsetYPixels * scale).rounded()))
                shadowSigma = shadow.blurPixels * scale / 2
                let spread = CoveragePlane.blurExtent(sigma: shadowSigma)
                canvas = union(canvas, PixelRect(x: ink.x + shadowShift.x - spread, y: ink.y + shadowShift.y - spread,
                                                 width: ink.width + 2 * spread, height: ink.height + 2 * spread))
            }
        }
        guard canvas.width <= TextLimits.maximumImageSide, canvas.height <= TextLimits.maximumImageSide,
              canvas.width * canvas.height <= TextLimits.maximumImagePixels else {
            throw TextRenderingError.renderedTooLarge(width: canvas.width, height: canvas.height)
        }
        // Text coordinates to image coordinates.
        let dx = -canvas.x, dy = -canvas.y

        var layoutBox = layout.layoutBox
        layoutBox.x += dx
        layoutBox.y += dy
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
        for glyph in placed {
            let penX = glyph.penX + dx, baselineY = glyph.baselineY + dy
            composition.fill.drawMax(glyph.fill, penX: penX, baselineY: baselineY)
            // The shadow is cast by everything the text paints: fill and outline.
            composition.shadow?.plane.drawMax(glyph.fill, penX: penX + shadowShift.x, baselineY: baselineY + shadowShift.y)
            if let coverage = glyph.outline {
                composition.outline?.plane.drawMax(coverage, penX: penX, baselineY: baselineY)
                composition.shadow?.plane.drawMax(coverage, penX: penX + shadowShift.x, baselineY: baselineY + shadowShift.y)
            }
        }
        composition.shadow?.plane.gaussianBlur(sigma: shadowSigma)
        let image = composition.image(width: canvas.width, height: canvas.height)
        return (Sprite(image: image, layoutBox: layoutBox), ink != nil)
    }

    private func union(_ a: PixelRect?, _ b: PixelRect) -> PixelRect {
        guard let a else { return b }
        let left = min(a.x, b.x), top = min(a.y, b.y)
        return PixelRect(x: left, y: top, width: max(a.maxX, b.maxX) - left, height: max(a.maxY, b.maxY) - top)
    }
}

/// Colours the coverage planes and composes them, bottom to top: plate, shadow, then the text
/// (fill plus the part of the outline outside the fill), each "over" what lies below.
struct TextComposition {
    var fill: CoveragePlane
    var fillColor: RGBAColor
    var outline: (plane: CoveragePlane, color: RGBAColor)?
    var shadow: (plane: CoveragePlane, color: RGBAColor)?
    var plate: (plane: CoveragePlane, color: RGBAColor)?

    init(fill: CoveragePlane, fillColor: RGBAColor) {
        self.fill = fill
        self.fillColor = fillColor
    }

    /// Premultiplied RGBA for each coverage 0…255 of one colour: a pixel costs a table lookup.
    private static func ramp(_ color: RGBAColor) -> [UInt32] {
        (0...255).map { coverage -> UInt32 in
            let alpha = UInt32(divideBy255(UInt32(color.alpha) * UInt32(coverage)))
            let red = UInt32(divideBy255(UInt32(color.red) * alpha))
            let green = UInt32(divideBy255(UInt32(color.green) * alpha))
            let blue = UInt32(divideBy255(UInt32(color.blue) * alpha))
            return red | green << 8 | blue << 16 | alpha << 24
        }
    }

    /// `source` over `destination`, both premultiplied and packed as in `ramp`.
    @inline(__always)
    private static func over(_ source: UInt32, _ destination: UInt32) -> UInt32 {
        let sourceAlpha = source >> 24
        if sourceAlpha == 255 || destination == 0 { return source }
        let keep = 255 - sourceAlpha
        var result: UInt32 = 0
        for shift in stride(from: 0 as UInt32, through: 24, by: 8) {
            let channel = (source >> shift & 0xFF) + UInt32(divideBy255((destination >> shift & 0xFF) * keep))
            result |= channel << shift
        }
        return result
    }

    func image(width: Int, height: Int) -> PremultipliedRGBAImage {
        let count = width * height
        let fillRamp = TextComposition.ramp(fillColor)
        let outlineRamp = TextComposition.ramp(outline?.color ?? .clear)
        let shadowRamp = TextComposition.ramp(shadow?.color ?? .clear)
        let plateRamp = TextComposition.ramp(plate?.color ?? .clear)
        let none: [UInt8] = []
        let hasOutline = outline != nil, hasShadow = shadow != nil, hasPlate = plate != nil
        var pixels = [UInt8](repeating: 0, count: count * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            fill.values.withUnsafeBufferPointer { fillCoverage in
            (outline?.plane.values ?? none).withUnsafeBufferPointer { outlineCoverage in
            (shadow?.plane.values ?? none).withUnsafeBufferPointer { shadowCoverage in
            (plate?.plane.values ?? none).withUnsafeBufferPointer { plateCoverage in
                for i in 0..<count {
                    var pixel: UInt32 = hasPlate ? plateRamp[Int(plateCoverage[i])] : 0
                    if hasShadow, shadowCoverage[i] != 0 {
                        pixel = TextComposition.over(shadowRamp[Int(shadowCoverage[i])], pixel)
                    }
                    let fillAmount = fillCoverage[i]
                    let outlineAmount = hasOutline ? outlineCoverage[i] : 0
                    // The outline paints only the area the fill leaves: coverages add up to at most
                    // 255, so the packed channels add without carrying into each other.
                    let ring = outlineAmount > fillAmount ? outlineAmount - fillAmount : 0
                    if fillAmount != 0 || ring != 0 {
                        pixel = TextComposition.over(fillRamp[Int(fillAmount)] + outlineRamp[Int(ring)], pixel)
                    }
                    if pixel != 0 {
                        out[i * 4] = UInt8(truncatingIfNeeded: pixel)
                        out[i * 4 + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                        out[i * 4 + 2] = UInt8(truncatingIfNeeded: pixel >> 16)
                        out[i * 4 + 3] = UInt8(truncatingIfNeeded: pixel >> 24)
                    }
                }
            }
            }
            }
            }
        }
        return PremultipliedRGBAImage(width: width, height: height, pixels: pixels)
    }
}
