/// Loads fonts and rasterises text marks (see `render(_:)`).
///
/// Owns the FreeType library, every face it opened (the chosen fonts and the fallbacks found
/// for missing characters) and a glyph cache keyed by face, glyph, size and outline width, so a
/// job rendering the same text for many frame sizes, or many students' e-mails, rasterises
/// each glyph once. Family names are resolved through fontconfig (`FcFontMatch`).
///
/// Not thread-safe by design: FreeType faces and the caches change while rendering, so each
/// job or thread uses its own instance, and the type is deliberately not `Sendable`. Creating
/// one is cheap; fontconfig's configuration is loaded on the first family lookup (a few ms).
public final class FontLibrary {
    /// The sans-serif the set-up installs (fonts-dejavu-core); the config's default font.
    public static let defaultFamily = "DejaVu Sans"

    let freeType: FreeTypeLibrary
    let stroker: FreeTypeStroker
    private var fontconfig: FontconfigConfiguration?
    /// Every face opened so far; a face's `id` is its index here.
    private(set) var faces: [FontFace] = []
    private var faceIDsByFile: [FontFileKey: Int] = [:]
    private var unusableFallbackFiles: Set<FontFileKey> = []
    var resolvedFonts: [FontSpec: ResolvedFont] = [:]
    private var fallbackCandidates: [Int: FontconfigFontSet?] = [:]
    private var fallbackChoices: [FallbackKey: Int?] = [:]
    private var glyphCache: [GlyphKey: GlyphCoverage] = [:]
    private var colorGlyphCache: [GlyphKey: ColorGlyph] = [:]
    private var glyphCacheBytes = 0
    /// How many glyph bitmaps have been made (not found in the cache): per-frame text should add few.
    private(set) var glyphsRasterized = 0

    /// Bitmaps beyond this are dropped and re-rasterised on demand (results are identical either way).
    private static let glyphCacheByteLimit = 64 << 20

    public init() throws {
        freeType = try FreeTypeLibrary()
        stroker = try FreeTypeStroker(library: freeType)
    }

    private struct FontFileKey: Hashable {
        var path: String
        var index: Int
    }

    struct ResolvedFont {
        var faceID: Int
        var warning: String?
    }

    private struct FallbackKey: Hashable {
        var primaryFaceID: Int
        var scalars: [UInt32]
        var color: Bool?
    }

    private struct GlyphKey: Hashable {
        var faceID: Int
        var glyph: UInt32
        var size26Dot6: Int
        var outlineRadius26Dot6: Int
    }

    func fontconfigConfiguration() throws -> FontconfigConfiguration {
        if let fontconfig { return fontconfig }
        let configuration = try FontconfigConfiguration()
        fontconfig = configuration
        return configuration
    }

    /// The face (cached) in a file; throws `fontUnreadable` naming the file.
    func face(path: String, index: Int) throws -> FontFace {
        let key = FontFileKey(path: path, index: index)
        if let id = faceIDsByFile[key] { return faces[id] }
        let face = try FontFace(library: freeType, path: path, index: index, id: faces.count)
        faces.append(face)
        faceIDsByFile[key] = face.id
        return face
    }

    /// A face other than `primary` that has a glyph for `scalar`, or nil when none is installed;
    /// `color` limits the search to colour fonts (true) or to the others (false).
    ///
    /// The choice depends only on `primary` and `scalar` (the first font in fontconfig's order
    /// for the primary's family that covers it), never on what was rendered before, so a
    /// thumbnail and a video frame get the same glyphs.
    func fallbackFace(for scalar: Unicode.Scalar, primary: FontFace, color: Bool?) -> FontFace? {
        fallbackFace(covering: [scalar], primary: primary, color: color)
    }

    /// The first fallback face (as above) that has glyphs for all of `scalars`.
    func fallbackFace(covering scalars: [Unicode.Scalar], primary: FontFace, color: Bool? = false) -> FontFace? {
        let key = FallbackKey(primaryFaceID: primary.id, scalars: scalars.map(\.value), color: color)
        if let cached = fallbackChoices[key] { return cached.map { faces[$0] } }
        var chosen: Int?
        if let candidates = fallbackCandidateFonts(for: primary) {
            _ = candidates.firstFont(covering: scalars, color: color) { path, index in
                let file = FontFileKey(path: path, index: index)
                guard faceIDsByFile[file] != primary.id, !unusableFallbackFiles.contains(file) else { return false }
                // A broken system font must not fail the render: it is skipped like one without the glyph.
                guard let candidate = try? face(path: path, index: index) else {
                    unusableFallbackFiles.insert(file)
                    return false
                }
                guard scalars.allSatisfy({ candidate.glyphIndex(for: $0) != 0 }) else { return false }
                chosen = candidate.id
                return true
            }
        }
        fallbackChoices[key] = chosen
        return chosen.map { faces[$0] }
    }

    private func fallbackCandidateFonts(for primary: FontFace) -> FontconfigFontSet? {
        if let cached = fallbackCandidates[primary.id] { return cached }
        // Without fontconfig there is simply no fallback: the missing glyphs become boxes.
        let set = try? fontconfigConfiguration().fontsSorted(closestTo: primary.familyName)
        fallbackCandidates[primary.id] = .some(set)
        return set
    }

    /// The anti-aliased coverage of one glyph, rasterised once per face, glyph, size and outline radius.
    func coverage(of glyph: GlyphReference, size26Dot6: Int, outlineRadius26Dot6: Int) throws -> GlyphCoverage {
        let key = GlyphKey(faceID: glyph.faceID, glyph: glyph.glyph, size26Dot6: size26Dot6,
                           outlineRadius26Dot6: outlineRadius26Dot6)
        if let cached = glyphCache[key] { return cached }
        let face = faces[glyph.faceID]
        let coverage: GlyphCoverage
        if face.isColor {
            // A colour glyph has no outline to stroke: its silhouette grows instead (and it has no fill coverage).
            coverage = outlineRadius26Dot6 > 0
                ? try colorGlyph(glyph, size26Dot6: size26Dot6).alphaCoverage.dilated(radius26Dot6: outlineRadius26Dot6) : .empty
        } else {
            coverage = try face.rasterize(glyph: glyph.glyph, size26Dot6: size26Dot6,
                                          outlineRadius26Dot6: outlineRadius26Dot6, stroker: stroker)
        }
        makeRoom(for: coverage.pixels.count)
        glyphsRasterized += 1
        glyphCache[key] = coverage
        return coverage
    }

    /// A colour glyph (emoji) scaled to an em of `size26Dot6`, rasterised once per face, glyph and size.
    func colorGlyph(_ glyph: GlyphReference, size26Dot6: Int) throws -> ColorGlyph {
        let key = GlyphKey(faceID: glyph.faceID, glyph: glyph.glyph, size26Dot6: size26Dot6, outlineRadius26Dot6: 0)
        if let cached = colorGlyphCache[key] { return cached }
        let color = try faces[glyph.faceID].rasterizeColor(glyph: glyph.glyph, size26Dot6: size26Dot6)
        makeRoom(for: color.image.pixels.count)
        glyphsRasterized += 1
        colorGlyphCache[key] = color
        return color
    }

    private func makeRoom(for bytes: Int) {
        if glyphCacheBytes + bytes > FontLibrary.glyphCacheByteLimit {
            glyphCache.removeAll(keepingCapacity: true)
            colorGlyphCache.removeAll(keepingCapacity: true)
            glyphCacheBytes = 0
        }
        glyphCacheBytes += bytes + 64
    }
}

/// One glyph of one face.
struct GlyphReference: Hashable {
    var faceID: Int
    var glyph: UInt32
}
