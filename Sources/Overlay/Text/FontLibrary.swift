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
    private var resolvedFamilies: [String: ResolvedFamily] = [:]
    private var fallbackCandidates: [Int: FontconfigFontSet?] = [:]
    private var fallbackChoices: [FallbackKey: Int?] = [:]
    private var glyphCache: [GlyphKey: GlyphCoverage] = [:]
    private var glyphCacheBytes = 0

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

    private struct ResolvedFamily {
        var faceID: Int
        var warning: String?
    }

    private struct FallbackKey: Hashable {
        var primaryFaceID: Int
        var scalar: UInt32
    }

    private struct GlyphKey: Hashable {
        var faceID: Int
        var glyph: UInt32
        var size26Dot6: Int
        var outlineRadius26Dot6: Int
    }

    private func fontconfigConfiguration() throws -> FontconfigConfiguration {
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

    /// The face `spec` names, and a warning when fontconfig substituted another family.
    func primaryFace(for spec: FontSpec) throws -> (face: FontFace, warning: String?) {
        switch spec {
        case .file(let path):
            return (try face(path: path, index: 0), nil)
        case .family(let family):
            if let resolved = resolvedFamilies[family] { return (faces[resolved.faceID], resolved.warning) }
            guard let match = try fontconfigConfiguration().bestMatch(family: family) else {
                throw TextRenderingError.fontNotFound(family: family)
            }
            let chosen = try face(path: match.path, index: match.index)
            var warning: String?
            if !FontLibrary.isGenericFamily(family) && !match.families.contains(where: { FontLibrary.sameFamily($0, family) }) {
                warning = "font family '\(family)' not found; using '\(match.families.first ?? chosen.familyName)'"
            }
            resolvedFamilies[family] = ResolvedFamily(faceID: chosen.id, warning: warning)
            return (chosen, warning)
        }
    }

    /// fontconfig's own comparison ignores case and spaces ("dejavusans" finds DejaVu Sans).
    private static func sameFamily(_ a: String, _ b: String) -> Bool {
        func key(_ s: String) -> String { s.lowercased().filter { $0 != " " } }
        return key(a) == key(b)
    }

    /// CSS/fontconfig generic names are satisfied by whatever the system maps them to.
    private static func isGenericFamily(_ family: String) -> Bool {
        ["sans-serif", "sans", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy", "emoji", "math"]
            .contains(family.lowercased())
    }

    /// A face other than `primary` that has a glyph for `scalar`, or nil when none is installed.
    ///
    /// The choice depends only on `primary` and `scalar` (the first font in fontconfig's order
    /// for the primary's family that covers it), never on what was rendered before, so a
    /// thumbnail and a video frame get the same glyphs.
    func fallbackFace(for scalar: Unicode.Scalar, primary: FontFace) -> FontFace? {
        let key = FallbackKey(primaryFaceID: primary.id, scalar: scalar.value)
        if let cached = fallbackChoices[key] { return cached.map { faces[$0] } }
        var chosen: Int?
        if let candidates = fallbackCandidateFonts(for: primary) {
            _ = candidates.firstFont(covering: scalar) { path, index in
                let file = FontFileKey(path: path, index: index)
                guard faceIDsByFile[file] != primary.id, !unusableFallbackFiles.contains(file) else { return false }
                // A broken system font must not fail the render: it is skipped like one without the glyph.
                guard let candidate = try? face(path: path, index: index) else {
                    unusableFallbackFiles.insert(file)
                    return false
                }
                guard candidate.glyphIndex(for: scalar) != 0 else { return false }
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
        let coverage = try faces[glyph.faceID].rasterize(glyph: glyph.glyph, size26Dot6: size26Dot6,
                                                         outlineRadius26Dot6: outlineRadius26Dot6, stroker: stroker)
        if glyphCacheBytes + coverage.pixels.count > FontLibrary.glyphCacheByteLimit {
            glyphCache.removeAll(keepingCapacity: true)
            glyphCacheBytes = 0
        }
        glyphCache[key] = coverage
        glyphCacheBytes += coverage.pixels.count + 64
        return coverage
    }
}

/// One glyph of one face.
struct GlyphReference: Hashable {
    var faceID: Int
    var glyph: UInt32
}
