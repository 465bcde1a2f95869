import CFreeType

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one `FT_Face` opened from a font file (for rasterising) and the HarfBuzz font of the
/// same file (for shaping), with the design metrics layout needs.
///
/// Two kinds of face are accepted: scalable outline fonts, and colour bitmap fonts (CBDT/sbix,
/// such as Noto Color Emoji) whose largest fixed strike is scaled to the size asked for.
/// Metrics are kept in font units (size independent) so a layout can be tried at several sizes
/// without touching FreeType; only rasterising sets the face's size.
final class FontFace {
    enum Kind: Equatable {
        case outline
        /// Colour bitmaps drawn at `strikePixelsPerEm` and resampled to the em size asked for.
        case colorBitmap(strikeIndex: Int32, strikePixelsPerEm: Double)
    }

    let pointer: FT_Face
    let shaper: HarfBuzzFont
    /// Held so the library is freed only after its faces.
    private let library: FreeTypeLibrary
    /// Position in `FontLibrary`'s list of faces; part of glyph cache keys.
    let id: Int
    let path: String
    let familyName: String
    let kind: Kind
    let unitsPerEm: Int
    /// Height of "H" (or OS/2 sCapHeight, or 0.7 em) in font units: converts cap height to em size.
    let capHeightUnits: Int
    /// Depth below the baseline that descenders reach (hhea descender, positive).
    let descenderUnits: Int
    /// The designer's baseline-to-baseline distance (hhea ascender − descender + line gap).
    let lineHeightUnits: Int
    private var currentSize26Dot6 = 0

    var isColor: Bool { kind != .outline }

    /// Opens face `index` of the file at `path`; every failure is `fontFileMissing` or `fontUnreadable` naming it.
    init(library: FreeTypeLibrary, path: String, index: Int, id: Int) throws {
        if let problem = FontFace.fileProblem(path) { throw problem }
        var face: FT_Face?
        let error = FT_New_Face(library.pointer, path, FT_Long(index), &face)
        guard error == 0, let face else {
            throw FontFace.shortage(error, opening: path) ?? TextRenderingError.fontUnreadable(path: path, reason: freeTypeMessage(error))
        }
        let kind: Kind, capHeight: Int, shaper: HarfBuzzFont
        do {
            kind = try FontFace.kind(of: face)
            shaper = try HarfBuzzFont(path: path, index: index)
            let unitsPerEm = kind == .outline ? Int(face.pointee.units_per_EM) : shaper.unitsPerEm
            capHeight = try FontFace.validate(face, kind: kind, unitsPerEm: unitsPerEm)
        } catch let error as FreeTypeCallError {
            FT_Done_Face(face)
            throw FontFace.shortage(error.code, opening: path) ?? TextRenderingError.fontUnreadable(path: path, reason: error.message)
        } catch TextRenderingError.fontUnreadable(let failing, let reason) where failing == path {
            // HarfBuzz opens and maps the file again: at the descriptor or address-space limit it cannot.
            FT_Done_Face(face)
            throw FontFace.shortage(0x01, opening: path) ?? TextRenderingError.fontUnreadable(path: failing, reason: reason)
        } catch {
            FT_Done_Face(face)
            throw error
        }
        self.pointer = face
        self.shaper = shaper
        self.library = library
        self.id = id
        self.path = path
        self.kind = kind
        let record = face.pointee
        self.familyName = record.family_name.map { String(cString: $0) } ?? path
        self.unitsPerEm = kind == .outline ? Int(record.units_per_EM) : shaper.unitsPerEm
        self.capHeightUnits = capHeight
        self.descenderUnits = max(0, -Int(record.descender))
        self.lineHeightUnits = Int(record.height)
    }

    deinit { FT_Done_Face(pointer) }

    /// The system's shortage behind a FreeType failure to open or read `path` (its own
    /// out-of-memory code, or a file it could not open at the descriptor limit); nil when the
    /// font itself is at fault.
    static func shortage(_ error: FT_Error, opening path: String) -> TextRenderingError? {
        // FreeType's codes (fterrdef.h): Out_Of_Memory 0x40, Cannot_Open_Resource 0x01, Cannot_Open_Stream 0x51.
        // FreeType maps the whole file: without the address space, it says "unknown file format".
        if error == 0x40 || !SystemShortage.addressSpaceAvailable() {
            return .systemResources(.memory, operation: "opening the font file \(path)")
        }
        if error == 0x01 || error == 0x51,
           !SystemShortage.descriptorsAvailable() {
            return .systemResources(.fileDescriptors, operation: "opening the font file \(path)")
        }
        return nil
    }

    /// Why `path` cannot be opened at all; nil when it is a readable file.
    private static func fileProblem(_ path: String) -> TextRenderingError? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .fontFileMissing(path: path) }
            return .fontUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { return .fontUnreadable(path: path, reason: "is a directory") }
        if access(path, R_OK) != 0 { return .fontUnreadable(path: path, reason: String(cString: strerror(errno))) }
        return nil
    }

    private static func kind(of face: FT_Face) throws(FreeTypeCallError) -> Kind {
        if vwm_ft_is_scalable(face) != 0 && face.pointee.units_per_EM > 0 { return .outline }
        // Other bitmap-only fonts come in fixed sizes of one colour: nothing to draw at a cap height.
        guard vwm_ft_has_color(face) != 0, face.pointee.num_fixed_sizes > 0, let sizes = face.pointee.available_sizes else {
            throw FreeTypeCallError(operation: "not a scalable outline font", code: 0)
        }
        // The largest strike, so resampling only ever shrinks (or barely grows) the bitmaps.
        var best: Int32 = 0
        for i in 0..<face.pointee.num_fixed_sizes where sizes[Int(i)].y_ppem > sizes[Int(best)].y_ppem { best = i }
        let ppem = Double(sizes[Int(best)].y_ppem) / 64
        guard ppem >= 1 else { throw FreeTypeCallError(operation: "colour font with an empty strike", code: 0) }
        return .colorBitmap(strikeIndex: best, strikePixelsPerEm: ppem)
    }

    /// Checks that the face's glyphs can be read and returns its cap height in font units.
    private static func validate(_ face: FT_Face, kind: Kind, unitsPerEm: Int) throws(FreeTypeCallError) -> Int {
        guard unitsPerEm > 0 else { throw FreeTypeCallError(operation: "font has no units per em", code: 0) }
        // A truncated file can open fine and fail only when glyph data is read: load the
        // placeholder glyph now so such a file is refused up front, naming its path.
        if case .colorBitmap(let strike, _) = kind {
            let error = FT_Select_Size(face, strike)
            guard error == 0 else { throw FreeTypeCallError(operation: "FT_Select_Size", code: error) }
            try load(face, glyph: 0, flags: Int32(FT_LOAD_COLOR))
            return max(1, unitsPerEm * 7 / 10)
        }
        let capHeight = try measureCapHeight(face)
        try load(face, glyph: 0, flags: Int32(FT_LOAD_NO_SCALE))
        return capHeight
    }

    private static func load(_ face: FT_Face, glyph: UInt32, flags: Int32) throws(FreeTypeCallError) {
        let error = FT_Load_Glyph(face, glyph, flags)
        guard error == 0 else { throw FreeTypeCallError(operation: "FT_Load_Glyph (glyph \(glyph))", code: error) }
    }

    private static func measureCapHeight(_ face: FT_Face) throws(FreeTypeCallError) -> Int {
        let upem = Int(face.pointee.units_per_EM)
        let h = FT_Get_Char_Index(face, 0x48)
        if h != 0 {
            try load(face, glyph: h, flags: Int32(FT_LOAD_NO_SCALE))
            let top = Int(face.pointee.glyph.pointee.metrics.horiBearingY)
            // A cap height outside 0.1…2 em is a broken font, not a design: fall through to the estimates.
            if top >= upem / 10 && top <= 2 * upem { return top }
        }
        if let table = FT_Get_Sfnt_Table(face, FT_SFNT_OS2) {
            let os2 = table.assumingMemoryBound(to: TT_OS2.self).pointee
            let capHeight = Int(os2.sCapHeight)
            if os2.version >= 2 && capHeight >= upem / 10 && capHeight <= 2 * upem { return capHeight }
        }
        // A font with neither (symbols, a script without capitals): 0.7 em is typical of Latin fonts.
        return max(1, upem * 7 / 10)
    }

    func glyphIndex(for scalar: Unicode.Scalar) -> UInt32 {
        UInt32(FT_Get_Char_Index(pointer, FT_ULong(scalar.value)))
    }

    /// Renders one outline glyph at an em size of `size26Dot6`/64 pixels, grown by
    /// `outlineRadius26Dot6` when positive. A glyph that is not an outline comes out empty.
    func rasterize(glyph: UInt32, size26Dot6: Int, outlineRadius26Dot6: Int, stroker: FreeTypeStroker) throws -> GlyphCoverage {
        guard kind == .outline else { return .empty }
        do throws(FreeTypeCallError) {
            if size26Dot6 != currentSize26Dot6 {
                let error = FT_Set_Char_Size(pointer, 0, FT_F26Dot6(size26Dot6), 72, 72)
                guard error == 0 else { throw FreeTypeCallError(operation: "FT_Set_Char_Size", code: error) }
                currentSize26Dot6 = size26Dot6
            }
            // Light hinting snaps horizontal stems (baseline, x-height, cap height) to whole pixels
            // for crisp small text but leaves widths alone, so spacing still follows the unhinted advances.
            try FontFace.load(pointer, glyph: glyph, flags: Int32(FT_LOAD_NO_BITMAP) | vwm_ft_load_target_light())
            guard let slot = pointer.pointee.glyph else { throw FreeTypeCallError(operation: "face has no glyph slot", code: 0) }
            guard slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else { return .empty }
            if slot.pointee.outline.n_points == 0 { return .empty }
            let copy = try FreeTypeGlyph(copying: slot)
            if outlineRadius26Dot6 > 0 {
                stroker.setRadius(outlineRadius26Dot6)
                try copy.growOutline(with: stroker)
            }
            return try copy.coverage()
        } catch {
            throw TextRenderingError.fontUnreadable(path: path, reason: error.message)
        }
    }

    /// Renders one colour glyph: the strike's bitmap resampled so its em is `size26Dot6`/64 pixels.
    func rasterizeColor(glyph: UInt32, size26Dot6: Int) throws -> ColorGlyph {
        guard case .colorBitmap(let strike, let strikePixelsPerEm) = kind else { return .empty }
        do throws(FreeTypeCallError) {
            if currentSize26Dot6 != -1 {
                let error = FT_Select_Size(pointer, strike)
                guard error == 0 else { throw FreeTypeCallError(operation: "FT_Select_Size", code: error) }
                currentSize26Dot6 = -1
            }
            try FontFace.load(pointer, glyph: glyph, flags: Int32(FT_LOAD_COLOR))
            guard let slot = pointer.pointee.glyph else { throw FreeTypeCallError(operation: "face has no glyph slot", code: 0) }
            let bitmap = slot.pointee.bitmap
            let width = Int(bitmap.width), height = Int(bitmap.rows)
            guard width > 0, height > 0, let buffer = bitmap.buffer else { return .empty }
            guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue) else {
                throw FreeTypeCallError(operation: "FT_Load_Glyph (colour glyph \(glyph) has pixel mode \(bitmap.pixel_mode))", code: 0)
            }
            let pitch = Int(bitmap.pitch)
            let firstRow = pitch >= 0 ? buffer : buffer + (height - 1) * -pitch
            // FreeType's BGRA is premultiplied, like our images; only the channel order differs.
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for row in 0..<height {
                let source = firstRow + row * pitch
                for column in 0..<width {
                    let s = column * 4, d = (row * width + column) * 4
                    pixels[d] = source[s + 2]; pixels[d + 1] = source[s + 1]
                    pixels[d + 2] = source[s]; pixels[d + 3] = source[s + 3]
                }
            }
            let strikeImage = PremultipliedRGBAImage(width: width, height: height, pixels: pixels)
            let scale = Double(size26Dot6) / 64 / strikePixelsPerEm
            let left = Double(slot.pointee.bitmap_left) * scale, top = Double(slot.pointee.bitmap_top) * scale
            let scaledWidth = max(1, Int((Double(width) * scale).rounded()))
            let scaledHeight = max(1, Int((Double(height) * scale).rounded()))
            return ColorGlyph(image: strikeImage.resized(width: scaledWidth, height: scaledHeight),
                              left: Int(left.rounded()), top: Int(top.rounded()))
        } catch {
            throw TextRenderingError.fontUnreadable(path: path, reason: error.message)
        }
    }
}

/// One rasterised colour glyph (premultiplied RGBA), placed like `GlyphCoverage`.
struct ColorGlyph {
    var image: PremultipliedRGBAImage
    var left: Int
    var top: Int

    static let empty = ColorGlyph(image: PremultipliedRGBAImage(width: 0, height: 0), left: 0, top: 0)

    func rect(penX x: Int, baselineY y: Int) -> PixelRect {
        PixelRect(x: x + left, y: y - top, width: image.width, height: image.height)
    }

    /// The glyph's alpha as a coverage, for the outline and the shadow it casts.
    var alphaCoverage: GlyphCoverage {
        let count = image.width * image.height
        let alpha = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            for i in 0..<count { out[i] = image.pixels[i * 4 + 3] }
            initialized = count
        }
        return GlyphCoverage(width: image.width, height: image.height, left: left, top: top, pixels: alpha)
    }
}
