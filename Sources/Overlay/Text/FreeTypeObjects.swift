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
