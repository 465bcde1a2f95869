import CHarfBuzz

/// One glyph as HarfBuzz placed it, in the font's design units (size independent, unhinted),
/// so a shaped line can be laid out at several sizes without shaping again.
struct ShapedGlyph: Equatable {
    var glyph: UInt32
    /// Index of the first scalar of this glyph's cluster in the paragraph.
    var cluster: Int
    var xAdvance: Int
    var xOffset: Int
    var yOffset: Int
}

/// Owns one `hb_font_t` made from a font file, at a scale of one unit per design unit.
///
/// Made from the file rather than from FreeType's face so shaping never depends on the size the
/// FreeType face happens to be set to: advances, kerning (GPOS or `kern`) and mark positions come
/// from the font's tables exactly.
final class HarfBuzzFont {
    let pointer: OpaquePointer
    /// The face's units per em (also for bitmap-only colour fonts, whose FreeType face reports 0).
    let unitsPerEm: Int

    init(path: String, index: Int) throws {
        guard let blob = hb_blob_create_from_file_or_fail(path) else {
            throw TextRenderingError.fontUnreadable(path: path, reason: "HarfBuzz cannot read the file")
        }
        defer { hb_blob_destroy(blob) }
        guard let face = hb_face_create(blob, UInt32(index)) else {
            throw TextRenderingError.fontUnreadable(path: path, reason: "HarfBuzz cannot open face \(index)")
        }
        defer { hb_face_destroy(face) }
        guard let font = hb_font_create(face), hb_face_get_glyph_count(face) > 0 else {
            throw TextRenderingError.fontUnreadable(path: path, reason: "HarfBuzz finds no glyphs in face \(index)")
        }
        // hb_font_create's default scale is the face's units per em: positions come out in design units.
        pointer = font
        unitsPerEm = Int(hb_face_get_upem(face))
    }

    deinit { hb_font_destroy(pointer) }

    /// Shapes `range` of a paragraph with `direction` and `script`, with the rest of the
    /// paragraph as context (so Arabic joins across a change of font, for example).
    /// Right-to-left glyphs come out in visual order, left to right, as HarfBuzz gives them.
    func shape(paragraph: [UInt32], range: Range<Int>, rightToLeft: Bool, script: UInt32) -> [ShapedGlyph] {
        guard let buffer = hb_buffer_create() else { return [] }
        defer { hb_buffer_destroy(buffer) }
        hb_buffer_add_utf32(buffer, paragraph, Int32(paragraph.count), UInt32(range.lowerBound), Int32(range.count))
        hb_buffer_set_direction(buffer, rightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_script(buffer, hb_script_t(rawValue: script))
        // No language is set (not even the process locale's), so the same text shapes alike on every machine.
        hb_shape(pointer, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        return (0..<Int(count)).map { i in
            ShapedGlyph(glyph: infos[i].codepoint, cluster: Int(infos[i].cluster),
                        xAdvance: Int(positions[i].x_advance), xOffset: Int(positions[i].x_offset),
                        yOffset: Int(positions[i].y_offset))
        }
    }
}

/// Unicode script properties from HarfBuzz's built-in tables.
enum ScriptProperty {
    static let common = HB_SCRIPT_COMMON.rawValue
    static let inherited = HB_SCRIPT_INHERITED.rawValue
    static let unknown = HB_SCRIPT_UNKNOWN.rawValue

    static func script(of scalar: Unicode.Scalar) -> UInt32 {
        hb_unicode_script(hb_unicode_funcs_get_default(), scalar.value).rawValue
    }

    /// Common and Inherited characters (spaces, punctuation, digits, combining marks) take the
    /// script of the text around them.
    static func isNeutral(_ script: UInt32) -> Bool {
        script == common || script == inherited || script == unknown
    }
}
