/// Colours the coverage planes and composes them, bottom to top: plate, shadow, then the text
/// (fill, colour glyphs, plus the part of the outline outside both), each "over" what lies below.
struct TextComposition {
    var fill: CoveragePlane
    var fillColor: RGBAColor
    var outline: (plane: CoveragePlane, color: RGBAColor)?
    var shadow: (plane: CoveragePlane, color: RGBAColor)?
    var plate: (plane: CoveragePlane, color: RGBAColor)?
    /// Colour glyphs (emoji), premultiplied RGBA the size of the planes; drawn at the fill's
    /// level with their own colours, made as translucent as the fill colour.
    var colorGlyphs: [UInt8]?

    init(fill: CoveragePlane, fillColor: RGBAColor) {
        self.fill = fill
        self.fillColor = fillColor
    }

    /// Draws a colour glyph with its pen at (`x`, baseline `y`), "over" colour glyphs already there.
    mutating func drawColor(_ glyph: ColorGlyph, penX x: Int, baselineY y: Int, clip: PixelRect? = nil) {
        let width = fill.width, height = fill.height
        var target = glyph.rect(penX: x, baselineY: y).intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        if let clip { target = target.intersection(clip) }
        guard !target.isEmpty else { return }
        // Taken out while it changes, so the plane has one owner and is not copied.
        var colors = colorGlyphs ?? [UInt8](repeating: 0, count: width * height * 4)
        colorGlyphs = nil
        defer { colorGlyphs = colors }
        let sourceX = target.x - (x + glyph.left), sourceY = target.y - (y - glyph.top)
        glyph.image.pixels.withUnsafeBufferPointer { source in
            colors.withUnsafeMutableBufferPointer { plane in
                for row in 0..<target.height {
                    for column in 0..<target.width {
                        let s = ((sourceY + row) * glyph.image.width + sourceX + column) * 4
                        let d = ((target.y + row) * width + target.x + column) * 4
                        let alpha = UInt32(source[s + 3])
                        guard alpha != 0 else { continue }
                        let keep = 255 - alpha
                        for c in 0..<4 {
                            plane[d + c] = UInt8(min(255, UInt32(source[s + c]) + UInt32(divideBy255(UInt32(plane[d + c]) * keep))))
                        }
                    }
                }
            }
        }
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

    /// Two premultiplied pixels that share a pixel's area side by side, added channel by channel
    /// and kept valid (no channel above 255 or above the alpha) where rounding makes them overlap.
    @inline(__always)
    private static func sideBySide(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let alpha = min(255, (a >> 24) + (b >> 24))
        var result = alpha << 24
        for shift in stride(from: 0 as UInt32, through: 16, by: 8) {
            result |= min(alpha, (a >> shift & 0xFF) + (b >> shift & 0xFF)) << shift
        }
        return result
    }

    func image(width: Int, height: Int) -> PremultipliedRGBAImage {
        var image = PremultipliedRGBAImage(width: width, height: height)
        compose(into: &image, rect: PixelRect(x: 0, y: 0, width: width, height: height), ramps: ramps())
        return image
    }

    /// The four sublayers' colour ramps (see `ramp`), made once for a drawing that is composed again.
    struct Ramps {
        var fill, outline, shadow, plate: [UInt32]
    }

    func ramps() -> Ramps {
        Ramps(fill: Self.ramp(fillColor), outline: Self.ramp(outline?.color ?? .clear),
              shadow: Self.ramp(shadow?.color ?? .clear), plate: Self.ramp(plate?.color ?? .clear))
    }

    /// Clears the glyph planes (fill, outline, shadow, colour) in `rect`; the plate stays.
    mutating func clear(_ rect: PixelRect) {
        fill.clear(rect)
        outline?.plane.clear(rect)
        shadow?.plane.clear(rect)
        guard var colors = colorGlyphs else { return }
        let area = rect.intersection(PixelRect(x: 0, y: 0, width: fill.width, height: fill.height))
        guard !area.isEmpty else { return }
        colorGlyphs = nil  // one owner while it changes: the plane is not copied
        for row in area.y..<area.maxY {
            let start = (row * fill.width + area.x) * 4
            colors.replaceSubrange(start..<(start + area.width * 4), with: repeatElement(0, count: area.width * 4))
        }
        colorGlyphs = colors
    }

    /// Composes the planes into `image` (the planes' size) within `rect`, replacing what was there.
    func compose(into image: inout PremultipliedRGBAImage, rect: PixelRect, ramps: Ramps) {
        let width = image.width
        let area = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: image.height))
        guard !area.isEmpty else { return }
        let fillRamp = ramps.fill, outlineRamp = ramps.outline, shadowRamp = ramps.shadow, plateRamp = ramps.plate
        let none: [UInt8] = []
        let hasOutline = outline != nil, hasShadow = shadow != nil, hasPlate = plate != nil, hasColor = colorGlyphs != nil
        let colorAlpha = UInt32(fillColor.alpha)
        image.pixels.withUnsafeMutableBufferPointer { out in
            fill.values.withUnsafeBufferPointer { fillCoverage in
            (outline?.plane.values ?? none).withUnsafeBufferPointer { outlineCoverage in
            (shadow?.plane.values ?? none).withUnsafeBufferPointer { shadowCoverage in
            (plate?.plane.values ?? none).withUnsafeBufferPointer { plateCoverage in
            (colorGlyphs ?? none).withUnsafeBufferPointer { colorPixels in
                for row in area.y..<area.maxY {
                for i in (row * width + area.x)..<(row * width + area.maxX) {
                    var pixel: UInt32 = hasPlate ? plateRamp[Int(plateCoverage[i])] : 0
                    if hasShadow, shadowCoverage[i] != 0 {
                        pixel = TextComposition.over(shadowRamp[Int(shadowCoverage[i])], pixel)
                    }
                    let fillAmount = fillCoverage[i]
                    // Area covered by letters of either kind; the outline paints only the rest.
                    var inkAmount = fillAmount
                    var colorPixel: UInt32 = 0
                    if hasColor, colorPixels[i * 4 + 3] != 0 {
                        inkAmount = max(inkAmount, colorPixels[i * 4 + 3])
                        for c in 0..<4 {
                            let value = colorAlpha == 255 ? UInt32(colorPixels[i * 4 + c])
                                                           : UInt32(divideBy255(UInt32(colorPixels[i * 4 + c]) * colorAlpha))
                            colorPixel |= value << (8 * UInt32(c))
                        }
                    }
                    let outlineAmount = hasOutline ? outlineCoverage[i] : 0
                    // The outline paints only the area the fill leaves: coverages add up to at most
                    // 255, so the packed channels add without carrying into each other.
                    let ring = outlineAmount > inkAmount ? outlineAmount - inkAmount : 0
                    if fillAmount != 0 || ring != 0 || colorPixel != 0 {
                        var text = fillRamp[Int(fillAmount)] + outlineRamp[Int(ring)]
                        if colorPixel != 0 { text = TextComposition.sideBySide(text, colorPixel) }
                        pixel = TextComposition.over(text, pixel)
                    }
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
        }
    }
}
