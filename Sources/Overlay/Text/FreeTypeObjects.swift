import CFreeType

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FreeType's message for an error code ("unknown file format", "invalid argument"…).
func freeTypeMessage(_ error: FT_Error) -> String {
    String(cString: vwm_ft_error_message(error))
}

/// Owns one `FT_Library`. Every face and stroker keeps a reference to it, so it is freed last.
final class FreeTypeLibrary {
    let pointer: FT_Library

    init() throws {
        var library: FT_Library?
        let error = FT_Init_FreeType(&library)
        guard error == 0, let library else {
            throw TextRenderingError.fontEngineFailed(operation: "FT_Init_FreeType", reason: freeTypeMessage(error))
        }
        pointer = library
    }

    deinit { FT_Done_FreeType(pointer) }
}

/// Owns one `FT_Stroker`, used to grow glyph outlines for `TextOutline`.
final class FreeTypeStroker {
    let pointer: FT_Stroker
    /// Held so the library is freed only after the stroker.
    private let library: FreeTypeLibrary
    private var radius26Dot6: Int = -1

    init(library: FreeTypeLibrary) throws {
        var stroker: FT_Stroker?
        let error = FT_Stroker_New(library.pointer, &stroker)
        guard error == 0, let stroker else {
            throw TextRenderingError.fontEngineFailed(operation: "FT_Stroker_New", reason: freeTypeMessage(error))
        }
        self.pointer = stroker
        self.library = library
    }

    deinit { FT_Stroker_Done(pointer) }

    /// Round caps and joins, so the outline is the glyph grown by the same distance everywhere.
    func setRadius(_ radius26Dot6: Int) {
        guard radius26Dot6 != self.radius26Dot6 else { return }
        FT_Stroker_Set(pointer, FT_Fixed(radius26Dot6), FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0)
        self.radius26Dot6 = radius26Dot6
    }
}

/// Owns one `FT_Glyph` copied out of a face's glyph slot. Stroking and rendering replace the
/// glyph object; FreeType frees the old one only on success, so `pointer` is always owned.
final class FreeTypeGlyph {
    private(set) var pointer: FT_Glyph

    init(copying slot: FT_GlyphSlot) throws(FreeTypeCallError) {
        var glyph: FT_Glyph?
        let error = FT_Get_Glyph(slot, &glyph)
        guard error == 0, let glyph else { throw FreeTypeCallError(operation: "FT_Get_Glyph", code: error) }
        pointer = glyph
    }

    deinit { FT_Done_Glyph(pointer) }

    /// Replaces the outline by its outside border: the glyph grown by the stroker's radius.
    func growOutline(with stroker: FreeTypeStroker) throws(FreeTypeCallError) {
        var glyph: FT_Glyph? = pointer
        let error = FT_Glyph_StrokeBorder(&glyph, stroker.pointer, 0, 1)
        guard error == 0, let glyph else { throw FreeTypeCallError(operation: "FT_Glyph_StrokeBorder", code: error) }
        pointer = glyph
    }

    /// Renders the outline anti-aliased and copies the 8-bit coverage out.
    func coverage() throws(FreeTypeCallError) -> GlyphCoverage {
        var glyph: FT_Glyph? = pointer
        let error = FT_Glyph_To_Bitmap(&glyph, FT_RENDER_MODE_NORMAL, nil, 1)
        guard error == 0, let glyph else { throw FreeTypeCallError(operation: "FT_Glyph_To_Bitmap", code: error) }
        pointer = glyph
        let bitmapGlyph = UnsafeMutableRawPointer(glyph).assumingMemoryBound(to: FT_BitmapGlyphRec.self)
        let bitmap = bitmapGlyph.pointee.bitmap
        let width = Int(bitmap.width), height = Int(bitmap.rows)
        guard width > 0, height > 0, let buffer = bitmap.buffer else { return .empty }
        guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) else {
            throw FreeTypeCallError(operation: "FT_Glyph_To_Bitmap (unexpected pixel mode \(bitmap.pixel_mode))", code: 0)
        }
        let pitch = Int(bitmap.pitch)
        // A negative pitch means the rows are stored bottom-up, starting at the last row.
        let firstRow = pitch >= 0 ? buffer : buffer + (height - 1) * -pitch
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height) { out, count in
            for row in 0..<height {
                let source = firstRow + row * pitch
                for column in 0..<width { out[row * width + column] = source[column] }
            }
            count = width * height
        }
        return GlyphCoverage(width: width, height: height, left: Int(bitmapGlyph.pointee.left),
                             top: Int(bitmapGlyph.pointee.top), pixels: pixels)
    }
}

/// A failed FreeType call inside glyph rendering; turned into `fontUnreadable` with the file's path.
struct FreeTypeCallError: Error {
    var operation: String
    var code: FT_Error

    var message: String { code == 0 ? operation : "\(operation): \(freeTypeMessage(code))" }
}

/// Owns one `FT_Face` opened from a font file, with the design metrics layout needs.
///
/// Metrics are kept in font units (size independent) so a layout can be tried at several sizes
/// without touching FreeType; only rasterising sets the face's size.
final class FontFace {
    let pointer: FT_Face
    /// Held so the library is freed only after its faces.
    private let library: FreeTypeLibrary
    /// Position in `FontLibrary`'s list of faces; part of glyph cache keys.
    let id: Int
    let path: String
    let familyName: String
    let unitsPerEm: Int
    let hasKerning: Bool
    /// Height of "H" (or OS/2 sCapHeight, or 0.7 em) in font units: converts cap height to em size.
    let capHeightUnits: Int
    /// Depth below the baseline that descenders reach (hhea descender, positive).
    let descenderUnits: Int
    /// The designer's baseline-to-baseline distance (hhea ascender − descender + line gap).
    let lineHeightUnits: Int
    private var currentSize26Dot6 = 0
    private var advanceUnits: [UInt32: Int] = [:]

    /// Opens face `index` of the file at `path`; every failure is `fontFileMissing` or `fontUnreadable` naming it.
    init(library: FreeTypeLibrary, path: String, index: Int, id: Int) throws {
        if let problem = FontFace.fileProblem(path) { throw problem }
        var face: FT_Face?
        let error = FT_New_Face(library.pointer, path, FT_Long(index), &face)
        guard error == 0, let face else {
            throw TextRenderingError.fontUnreadable(path: path, reason: freeTypeMessage(error))
        }
        let capHeight: Int
        do {
            capHeight = try FontFace.validate(face)
        } catch {
            FT_Done_Face(face)
            throw TextRenderingError.fontUnreadable(path: path, reason: error.message)
        }
        self.pointer = face
        self.library = library
        self.id = id
        self.path = path
        let record = face.pointee
        self.familyName = record.family_name.map { String(cString: $0) } ?? path
        self.unitsPerEm = Int(record.units_per_EM)
        self.hasKerning = vwm_ft_has_kerning(face) != 0
        self.capHeightUnits = capHeight
        self.descenderUnits = max(0, -Int(record.descender))
        self.lineHeightUnits = Int(record.height)
    }

    deinit { FT_Done_Face(pointer) }

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

    /// Checks that the face can be drawn at any size and returns its cap height in font units.
    private static func validate(_ face: FT_Face) throws(FreeTypeCallError) -> Int {
        // Bitmap-only fonts come in fixed sizes and cannot be drawn at a given cap height.
        guard vwm_ft_is_scalable(face) != 0, face.pointee.units_per_EM > 0 else {
            throw FreeTypeCallError(operation: "not a scalable outline font", code: 0)
        }
        let capHeight = try measureCapHeight(face)
        // A truncated file can open fine and fail only when glyph data is read: load the
        // placeholder glyph now so such a file is refused up front, naming its path.
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

    /// Horizontal advance in font units (unhinted, so it scales exactly).
    func advanceUnits(of glyph: UInt32) throws -> Int {
        if let cached = advanceUnits[glyph] { return cached }
        do {
            try FontFace.load(pointer, glyph: glyph, flags: Int32(FT_LOAD_NO_SCALE))
        } catch {
            throw TextRenderingError.fontUnreadable(path: path, reason: error.message)
        }
        let advance = Int(pointer.pointee.glyph.pointee.advance.x)
        advanceUnits[glyph] = advance
        return advance
    }

    /// Kerning between two glyphs of this face in font units (0 when the face has no kern table).
    func kerningUnits(_ left: UInt32, _ right: UInt32) -> Int {
        guard hasKerning else { return 0 }
        var vector = FT_Vector()
        guard FT_Get_Kerning(pointer, left, right, FT_KERNING_UNSCALED.rawValue, &vector) == 0 else { return 0 }
        return Int(vector.x)
    }

    /// Renders one glyph at an em size of `size26Dot6`/64 pixels, grown by `outlineRadius26Dot6`
    /// when positive. A glyph that is not an outline (a colour bitmap) comes out empty.
    func rasterize(glyph: UInt32, size26Dot6: Int, outlineRadius26Dot6: Int, stroker: FreeTypeStroker) throws -> GlyphCoverage {
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
}
