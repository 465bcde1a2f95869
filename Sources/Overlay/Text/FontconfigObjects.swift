import CFontconfig

/// A font file fontconfig chose: the path and face index to open, and the family names it lists.
struct FontconfigMatch: Equatable {
    var path: String
    var index: Int
    var families: [String]
}

/// Owns one fontconfig configuration (`FcConfig`), loaded with the system's fonts.
///
/// A private configuration rather than fontconfig's process-wide one, so a `FontLibrary` does
/// not share mutable state with other threads.
final class FontconfigConfiguration {
    let pointer: OpaquePointer

    init() throws {
        // Fontconfig that cannot open its files (at the descriptor limit) or allocate (at the
        // address-space limit) says so on stdio's stderr, if at all, and returns nothing or knows
        // no fonts; a job would then blame the font. It has let go of what it held when it
        // returns: if the descriptors or the address space it needs while loading are not free
        // now, that was why.
        guard let config = FcInitLoadConfigAndFonts() else {
            if let shortage = Self.shortage() { throw shortage }
            throw TextRenderingError.fontEngineFailed(operation: "FcInitLoadConfigAndFonts",
                                                      reason: "fontconfig could not load its configuration")
        }
        pointer = config
        if FcConfigGetFonts(config, FcSetSystem).map({ $0.pointee.nfont == 0 }) ?? true, let shortage = Self.shortage() {
            throw shortage
        }
    }

    /// Descriptors fontconfig may hold open at once while loading (measured: 3).
    static let descriptorsWhileLoading = 6
    /// Address space fontconfig may take while loading: its configuration parsed, its caches
    /// mapped, and malloc's arenas around them (glibc reserves a thread's arena 64 MB at a time).
    /// Measured with `stamp` under `ulimit -v`: at 270 MB the load failed, and 64 MB could not be
    /// mapped afterwards; without a limit it always can, so a broken installation is still told
    /// apart.
    static let addressSpaceWhileLoading = 64 << 20

    /// What the system ran out of, if a failed load is explained by it.
    static func shortage() -> TextRenderingError? {
        let operation = "loading fontconfig's configuration"
        if !SystemShortage.descriptorsAvailable(descriptorsWhileLoading) { return .systemResources(.fileDescriptors, operation: operation) }
        if !SystemShortage.addressSpaceAvailable(addressSpaceWhileLoading) { return .systemResources(.memory, operation: operation) }
        return nil
    }

    deinit { FcConfigDestroy(pointer) }

    /// fontconfig's best scalable font for `query`. Fontconfig always answers with some font
    /// when any is installed, so callers compare the families to see whether it is the one asked for.
    func bestMatch(_ query: FontconfigPattern) -> FontconfigMatch? {
        FcConfigSubstitute(pointer, query.pointer, FcMatchPattern)
        FcDefaultSubstitute(query.pointer)
        var result = FcResultMatch
        guard let matched = FcFontMatch(pointer, query.pointer, &result) else { return nil }
        let match = FontconfigPattern(owning: matched)
        guard let path = match.string(FC_FILE) else { return nil }
        return FontconfigMatch(path: path, index: match.integer(FC_INDEX) ?? 0, families: match.strings(FC_FAMILY))
    }

    /// Every installed font, closest to `family` first: the candidates for missing glyphs.
    func fontsSorted(closestTo family: String) throws -> FontconfigFontSet? {
        let pattern = try FontconfigPattern(family: family, config: self)
        var result = FcResultMatch
        guard let set = FcFontSort(pointer, pattern.pointer, 0, nil, &result) else { return nil }
        return FontconfigFontSet(owning: set)
    }
}

/// Owns one `FcPattern`.
final class FontconfigPattern {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    /// A query for a scalable font of `family`, with the configuration's substitutions applied.
    convenience init(family: String, config: FontconfigConfiguration) throws {
        try self.init(family: family, properties: nil, weight: nil, slant: nil)
        FcConfigSubstitute(config.pointer, pointer, FcMatchPattern)
        FcDefaultSubstitute(pointer)
    }

    /// A query for a scalable font of `family` with fontconfig `properties` (":bold:italic",
    /// already checked), then `weight` (OpenType scale) and `slant` (FC_SLANT_*) when given.
    /// Substitutions are not applied yet.
    init(family: String, properties: String?, weight: Int?, slant: Int32?) throws {
        let parsed: OpaquePointer?
        if let properties {
            parsed = FcNameParse(Array(properties.utf8) + [0])
        } else {
            parsed = FcPatternCreate()
        }
        guard let parsed else {
            throw TextRenderingError.fontEngineFailed(operation: "FcNameParse", reason: "cannot parse '\(properties ?? "")'")
        }
        pointer = parsed
        // The name is added as a plain value (not parsed with FcNameParse), so '-' or ',' in it mean nothing.
        FcPatternDel(parsed, FC_FAMILY)
        FcPatternAddString(parsed, FC_FAMILY, Array(family.utf8) + [0])
        if let weight {
            FcPatternDel(parsed, FC_WEIGHT)
            FcPatternAddInteger(parsed, FC_WEIGHT, Int32(FcWeightFromOpenTypeDouble(Double(weight)).rounded()))
        }
        if let slant {
            FcPatternDel(parsed, FC_SLANT)
            FcPatternAddInteger(parsed, FC_SLANT, slant)
        }
        FcPatternDel(parsed, FC_SCALABLE)
        FcPatternAddBool(parsed, FC_SCALABLE, 1)
    }

    deinit { FcPatternDestroy(pointer) }

    func string(_ object: String, at index: Int32 = 0) -> String? {
        FontconfigPattern.string(in: pointer, object, at: index)
    }

    func integer(_ object: String) -> Int? {
        FontconfigPattern.integer(in: pointer, object)
    }

    func strings(_ object: String) -> [String] {
        var values: [String] = []
        while let value = string(object, at: Int32(values.count)) { values.append(value) }
        return values
    }

    /// Readers for patterns owned elsewhere (the members of an `FcFontSet`).
    static func string(in pattern: OpaquePointer, _ object: String, at index: Int32 = 0) -> String? {
        var value: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(pattern, object, index, &value) == FcResultMatch, let value else { return nil }
        return String(cString: value)
    }

    static func integer(in pattern: OpaquePointer, _ object: String) -> Int? {
        var value: Int32 = 0
        guard FcPatternGetInteger(pattern, object, 0, &value) == FcResultMatch else { return nil }
        return Int(value)
    }

    static func bool(in pattern: OpaquePointer, _ object: String) -> Bool? {
        var value: FcBool = 0
        guard FcPatternGetBool(pattern, object, 0, &value) == FcResultMatch else { return nil }
        return value != 0
    }
}

/// Owns one `FcFontSet`: a sorted list of installed fonts, searched for glyphs the chosen font lacks.
final class FontconfigFontSet {
    let pointer: UnsafeMutablePointer<FcFontSet>

    init(owning pointer: UnsafeMutablePointer<FcFontSet>) { self.pointer = pointer }

    deinit { FcFontSetDestroy(pointer) }

    /// The first font, in sorted order, whose character set has every one of `scalars` and that
    /// `accept` takes (the caller opens it and checks the glyphs). Non-scalable fonts are skipped
    /// unless they are colour fonts (emoji bitmaps, scaled when drawn); `color` restricts the
    /// search to colour fonts (true) or to the others (false).
    func firstFont(covering scalars: [Unicode.Scalar], color: Bool? = nil, where accept: (String, Int) -> Bool) -> (path: String, index: Int)? {
        let set = pointer.pointee
        guard let fonts = set.fonts, !scalars.isEmpty else { return nil }
        for i in 0..<Int(set.nfont) {
            guard let font = fonts[i] else { continue }
            var charset: OpaquePointer?
            guard FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) == FcResultMatch, let charset,
                  scalars.allSatisfy({ FcCharSetHasChar(charset, $0.value) != 0 }) else { continue }
            let isColor = FontconfigPattern.bool(in: font, FC_COLOR) == true
            if let color, color != isColor { continue }
            if FontconfigPattern.bool(in: font, FC_SCALABLE) == false && !isColor { continue }
            guard let path = FontconfigPattern.string(in: font, FC_FILE) else { continue }
            let index = FontconfigPattern.integer(in: font, FC_INDEX) ?? 0
            if accept(path, index) { return (path, index) }
        }
        return nil
    }

    func firstFont(covering scalar: Unicode.Scalar, color: Bool? = nil, where accept: (String, Int) -> Bool) -> (path: String, index: Int)? {
        firstFont(covering: [scalar], color: color, where: accept)
    }
}
