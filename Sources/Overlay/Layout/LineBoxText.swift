import CFreeType

/// Text laid out as UIKit lays out a `UILabel`, for TPStreams configs: sized by its em and
/// placed by its line box.
///
/// Built on `render(_:)`, whose sprite is placed by its cap-height box (the top of the first
/// line's capitals to the last baseline, the first baseline at the rounded cap height below
/// that top). The line box reaches from the first baseline up by the font's ascender to the
/// last baseline down by its descender (hhea metrics, as `UIFont.ascender`/`descender`), each
/// edge rounded once. Shrinking to the width is done here, by choosing the cap height, so
/// the cap height the sprite was drawn at is known exactly.
extension FontLibrary {
    /// The cap height, in pixels, of the primary face of `font` at an em size of `emPixels`.
    func capHeightPixels(font: FontSpec, emPixels: Double) throws -> Double {
        let face = try primaryFace(for: font).face
        return emPixels * Double(face.capHeightUnits) / Double(face.unitsPerEm)
    }

    /// Renders `style` at most `maxWidthPixels` wide (its own `maxWidthPixels` is not used),
    /// with the sprite's layout box set to the text's line box. With a `box` (plate), the plate
    /// stays what placement aligns.
    func renderPlacedByLineBox(_ style: TextStyle, maxWidthPixels: Double?) throws -> RenderedText {
        var style = style
        style.maxWidthPixels = nil
        var rendered = try render(style)
        if let maxWidthPixels {
            // Widths are linear in the size up to rounding, so this settles in a step or two.
            for _ in 0..<40 where Double(rendered.sprite.layoutBox.width) > maxWidthPixels && style.capHeightPixels > 1 {
                let next = max(1, style.capHeightPixels * min(maxWidthPixels / Double(rendered.sprite.layoutBox.width), 0.999))
                style.capHeightPixels = next
                rendered = try render(style)
            }
        }
        guard style.box == nil else { return rendered }
        let face = try primaryFace(for: style.font).face
        let cap = max(1, style.capHeightPixels)
        let emPixels = cap * Double(face.unitsPerEm) / Double(face.capHeightUnits)
        let ascender = Double(face.ascenderUnits) * emPixels / Double(face.unitsPerEm)
        let descender = Double(face.descenderUnits) * emPixels / Double(face.unitsPerEm)
        let capBox = rendered.sprite.layoutBox
        let firstBaseline = capBox.y + max(1, Int(cap.rounded()))
        let top = Int((Double(firstBaseline) - ascender).rounded())
        let bottom = Int((Double(capBox.maxY) + descender).rounded())
        rendered.sprite.layoutBox = PixelRect(x: capBox.x, y: top, width: capBox.width, height: bottom - top)
        return rendered
    }
}

extension FontFace {
    /// The hhea ascender in font units (FreeType's `ascender`), what `UIFont.ascender` reports.
    var ascenderUnits: Int { Int(pointer.pointee.ascender) }
}
