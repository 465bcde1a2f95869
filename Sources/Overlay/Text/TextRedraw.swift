/// A rendered text with everything needed to draw a different text of the same shape again
/// cheaply: the planes of its sublayers and where each glyph sits.
///
/// A timed layer's text (a timecode) changes a few glyphs per frame while the rest stay put.
/// When the new text shapes to glyphs with the same advances, offsets and faces (digits of one
/// font are all as wide), everything in the layout is where it was except some glyph bitmaps:
/// `FontLibrary.glyphChanges` finds those glyphs, `replaceGlyphs` takes them and says which
/// rectangle of the image they change, and `paint` clears and redraws only that rectangle, so the
/// compositor converts only that part of the mark again (or puts back the pixels it kept from
/// the last time the same glyphs painted there: `RedrawnRegions`).
///
/// Only what lies inside the rectangle last painted is read when painting again (the planes are
/// cleared and redrawn there), so a rectangle whose mark pixels were put back from elsewhere may
/// leave the planes and `image` behind there without changing any later redraw.
final class TextDrawing {
    struct PlacedGlyph {
        var glyph: GlyphReference
        var fill: GlyphCoverage
        var outline: GlyphCoverage?
        var color: ColorGlyph?
        var penX: Int
        var baselineY: Int

        /// Where its fill and outline ink lie, in text coordinates (nil: no ink).
        var inkRect: PixelRect? {
            var rect: PixelRect?
            for coverage in [fill, outline] {
                guard let coverage, coverage.width > 0 else { continue }
                let one = coverage.rect(penX: penX, baselineY: baselineY)
                rect = rect.map { $0.union(one) } ?? one
            }
            return rect
        }
    }

    /// A glyph where it is drawn: what decides the pixels it paints in a drawing.
    struct GlyphPlacement: Hashable {
        var glyph: GlyphReference
        var penX: Int
        var baselineY: Int
    }

    let style: TextStyle
    private(set) var lines: [[LineGlyph]]
    let layout: TextLayout
    let scale: Double
    /// The image's rectangle in text coordinates.
    let canvas: PixelRect
    let outlineRadius26Dot6: Int
    let shadowShift: (x: Int, y: Int)
    let shadowSigma: Double
    private(set) var placed: [PlacedGlyph]
    var composition: TextComposition
    /// In image coordinates.
    let layoutBox: PixelRect
    let hasInk: Bool
    var image = PremultipliedRGBAImage(width: 0, height: 0)
    /// The text as first drawn (its sprite, warnings and line count); redraws change `image` only,
    /// and let go of the first sprite's pixels.
    var rendered = RenderedText(sprite: Sprite(image: PremultipliedRGBAImage(width: 0, height: 0), layoutBox: PixelRect(x: 0, y: 0, width: 0, height: 0)), warnings: [])

    var sprite: Sprite { Sprite(image: image, layoutBox: layoutBox) }

    init(style: TextStyle, lines: [[LineGlyph]], layout: TextLayout, scale: Double, canvas: PixelRect, outlineRadius26Dot6: Int,
         shadowShift: (x: Int, y: Int), shadowSigma: Double, placed: [PlacedGlyph], composition: TextComposition,
         layoutBox: PixelRect, hasInk: Bool) {
        self.style = style
        self.lines = lines
        self.layout = layout
        self.scale = scale
        self.canvas = canvas
        self.outlineRadius26Dot6 = outlineRadius26Dot6
        self.shadowShift = shadowShift
        self.shadowSigma = shadowSigma
        self.placed = placed
        self.composition = composition
        self.layoutBox = layoutBox
        self.hasInk = hasInk
    }

    /// The image rectangle a glyph paints: fill and outline where it is, and the shadow's copy.
    private func paintedRect(_ glyph: PlacedGlyph) -> PixelRect? {
        guard let ink = glyph.inkRect else { return nil }
        let local = PixelRect(x: ink.x - canvas.x, y: ink.y - canvas.y, width: ink.width, height: ink.height)
        guard composition.shadow != nil else { return local }
        return local.union(PixelRect(x: local.x + shadowShift.x, y: local.y + shadowShift.y, width: local.width, height: local.height))
    }

    /// Colour ramps of the sublayers, made on the first redraw.
    private lazy var ramps = composition.ramps()

    /// Composes the planes into the image within `rect`.
    func compose(_ rect: PixelRect) {
        composition.compose(into: &image, rect: rect, ramps: ramps)
    }

    /// Draws the image again within `rect` (image coordinates) from the glyphs placed now.
    func paint(_ rect: PixelRect) {
        // `rendered` keeps the text as first drawn; holding this image too would make every
        // compose below copy it whole before changing the rectangle.
        rendered.sprite.image = PremultipliedRGBAImage(width: 0, height: 0)
        composition.clear(rect)
        drawGlyphs(in: rect)
        compose(rect)
    }

    /// The glyphs whose painting reaches `rect` widened by `reach` pixels on every side, in
    /// drawing order: with the drawing's style, they decide every pixel of the image there.
    func glyphs(paintingNear rect: PixelRect, reach: Int) -> [GlyphPlacement] {
        let near = PixelRect(x: rect.x - reach, y: rect.y - reach, width: rect.width + 2 * reach, height: rect.height + 2 * reach)
        return placed.compactMap { glyph in
            guard let painted = paintedRect(glyph), !painted.intersection(near).isEmpty else { return nil }
            return GlyphPlacement(glyph: glyph.glyph, penX: glyph.penX, baselineY: glyph.baselineY)
        }
    }

    /// Draws every glyph's coverage into the planes, clipped to `clip` (image coordinates).
    /// The planes must be clear there.
    func drawGlyphs(in clip: PixelRect) {
        for glyph in placed {
            guard let painted = paintedRect(glyph), !painted.intersection(clip).isEmpty else { continue }
            let penX = glyph.penX - canvas.x, baselineY = glyph.baselineY - canvas.y
            if let color = glyph.color {
                composition.drawColor(color, penX: penX, baselineY: baselineY, clip: clip)
            } else {
                composition.fill.drawMax(glyph.fill, penX: penX, baselineY: baselineY, clip: clip)
            }
            // The shadow is cast by everything the text paints: fill and outline.
            composition.shadow?.plane.drawMax(glyph.fill, penX: penX + shadowShift.x, baselineY: baselineY + shadowShift.y, clip: clip)
            if let coverage = glyph.outline {
                composition.outline?.plane.drawMax(coverage, penX: penX, baselineY: baselineY, clip: clip)
                composition.shadow?.plane.drawMax(coverage, penX: penX + shadowShift.x, baselineY: baselineY + shadowShift.y, clip: clip)
            }
        }
    }

    /// Takes the glyphs of a new text of the same shape; returns the image rectangle they change
    /// (empty when none does), not yet painted.
    func replaceGlyphs(_ changes: GlyphChanges) -> PixelRect {
        var dirty: PixelRect?
        for (index, glyph) in changes.changed {
            for rect in [paintedRect(placed[index]), paintedRect(glyph)].compactMap({ $0 }) { dirty = dirty.map { $0.union(rect) } ?? rect }
            placed[index] = glyph
        }
        lines = changes.lines
        return dirty?.intersection(PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height))
            ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
    }

    /// Whether a glyph's painting stays inside the image (a new digit may reach further than the old one).
    func fits(_ glyph: PlacedGlyph) -> Bool {
        let bounds = PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        return paintedRect(glyph).map { $0.intersection(bounds) == $0 } ?? true
    }
}

/// What drawing a new text of the same shape changes in a `TextDrawing`: its shaped lines, and
/// the glyphs that differ (by index in the drawing's glyphs, placed where the old ones were).
struct GlyphChanges {
    var lines: [[LineGlyph]]
    var changed: [(index: Int, glyph: TextDrawing.PlacedGlyph)]
}

extension FontLibrary {
    /// The glyphs `text` changes in `drawing` when it has the same shape, placed and rasterised
    /// (from the glyph cache after their first use). Returns nil when the fast path does not
    /// apply: the new text's glyphs are placed differently, reach outside the image, need a
    /// fallback the old text did not, or the shadow is blurred (a blur spreads every change);
    /// then a full `draw` is needed. Painting the changes (`TextDrawing.paint`) gives the same
    /// image a full `draw` of the new text gives.
    func glyphChanges(_ drawing: TextDrawing, text: String) throws -> GlyphChanges? {
        guard drawing.shadowSigma == 0 || drawing.composition.shadow == nil else { return nil }
        var style = drawing.style
        style.text = text
        guard let lines = try? TextLines(text) else { return nil }
        let capHeight = max(1, style.capHeightPixels)
        let (primary, _) = try primaryFace(for: style.font)
        var missing: [Unicode.Scalar] = []
        let paragraphs = lines.lines.map { itemize($0, primary: primary, missing: &missing) }
        guard missing.isEmpty else { return nil }
        let shaped = shapedLines(paragraphs, style: style, capHeight: capHeight, primary: primary)
        let old = drawing.lines
        guard shaped.count == old.count, zip(shaped, old).allSatisfy({ $0.count == $1.count }) else { return nil }
        var changed: [(index: Int, glyph: TextDrawing.PlacedGlyph)] = []
        var index = 0
        for (new, previous) in zip(shaped.joined(), old.joined()) {
            defer { index += 1 }
            guard new.faceID == previous.faceID, new.shaped.xAdvance == previous.shaped.xAdvance,
                  new.shaped.xOffset == previous.shaped.xOffset, new.shaped.yOffset == previous.shaped.yOffset else { return nil }
            guard new.shaped.glyph != previous.shaped.glyph else { continue }
            var position = drawing.layout.glyphs[index]
            position.glyph = GlyphReference(faceID: new.faceID, glyph: new.shaped.glyph)
            let glyph = try place(position, size26Dot6: drawing.layout.size26Dot6, outlineRadius26Dot6: drawing.outlineRadius26Dot6)
            guard drawing.fits(glyph) else { return nil }
            changed.append((index, glyph))
        }
        return GlyphChanges(lines: shaped, changed: changed)
    }
}
