import CFontconfig
import CFreeType

/// A font pattern split into the family (taken as typed) and its fontconfig properties.
struct FontPattern: Equatable {
    var family: String
    /// ":bold:italic" style, each element a fontconfig constant or a known object.
    var properties: String?
    /// Elements fontconfig would silently ignore ("bolt"), left out and reported.
    var unknown: [String]

    /// Splits "DejaVu Serif:bold:slant=italic". No family (":bold") means the default family.
    init(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let family = parts[0].trimmingSpaces
        self.family = family.isEmpty ? FontLibrary.defaultFamily : family
        var known: [String] = []
        unknown = []
        for element in parts.dropFirst().map(\.trimmingSpaces) where !element.isEmpty {
            var element = element
            let isKnown: Bool
            if let equals = element.firstIndex(of: "=") {
                let object = String(element[..<equals]).trimmingSpaces.lowercased()
                let value = String(element[element.index(after: equals)...]).trimmingSpaces
                // Numeric weights are on the CSS/OpenType scale users know (600 semibold), not fontconfig's own.
                if object == "weight", let number = Double(value), (1...1000).contains(number) {
                    element = "weight=\(Int(FcWeightFromOpenTypeDouble(number).rounded()))"
                }
                isKnown = FontPattern.selectingObjects.contains(object) && FontPattern.parses(":" + element)
            } else {
                isKnown = FcNameGetConstant(Array(element.utf8) + [0]) != nil
            }
            if isKnown { known.append(element) } else { unknown.append(element) }
        }
        properties = known.isEmpty ? nil : ":" + known.joined(separator: ":")
    }

    /// The fontconfig properties that choose among installed fonts (others, such as size or
    /// hinting, mean nothing here).
    static let selectingObjects: Set<String> = [
        "style", "slant", "weight", "width", "spacing", "lang", "foundry", "fullname", "postscriptname", "fontformat",
    ]

    private static func parses(_ properties: String) -> Bool {
        guard let pattern = FcNameParse(Array(properties.utf8) + [0]) else { return false }
        FcPatternDestroy(pattern)
        return true
    }
}

extension FontSpec {
    /// Why `pattern` is not entirely understood ("unknown font property 'bolt'…"), or nil: for a
    /// config reader that wants to refuse what rendering would only warn about.
    public static func problem(inPattern pattern: String) -> String? {
        let unknown = FontPattern(parsing: pattern).unknown
        guard !unknown.isEmpty else { return nil }
        let list = unknown.map { "'\($0)'" }.joined(separator: ", ")
        return "unknown font propert\(unknown.count == 1 ? "y" : "ies") \(list) (known: bold, light, italic, condensed, weight=600, slant=italic, style=…, as in fontconfig)"
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

extension FontLibrary {
    /// The face `spec` names, and a warning when fontconfig substituted another family, or a
    /// face of another weight or slant than the one asked for.
    func primaryFace(for spec: FontSpec) throws -> (face: FontFace, warning: String?) {
        switch spec.source {
        case .file(let path):
            return (try face(path: path, index: 0), nil)
        case .pattern(let text):
            if let resolved = resolvedFonts[spec] { return (faces[resolved.faceID], resolved.warning) }
            let pattern = FontPattern(parsing: text)
            let slant: Int32? = spec.style.map {
                switch $0 {
                case .normal: Int32(FC_SLANT_ROMAN)
                case .italic: Int32(FC_SLANT_ITALIC)
                case .oblique: Int32(FC_SLANT_OBLIQUE)
                }
            }
            let query = try FontconfigPattern(family: pattern.family, properties: pattern.properties,
                                              weight: spec.weight?.value, slant: slant)
            // What was asked for, before fontconfig's defaults fill in "regular" and "roman".
            let askedWeight = FontconfigPattern.integer(in: query.pointer, FC_WEIGHT).map { Int(FcWeightToOpenTypeDouble(Double($0)).rounded()) }
            let askedSlant = FontconfigPattern.integer(in: query.pointer, FC_SLANT)
            guard var match = try fontconfigConfiguration().bestMatch(query) else {
                throw TextRenderingError.fontNotFound(family: pattern.family)
            }
            var warnings: [String] = []
            if let problem = FontSpec.problem(inPattern: text) { warnings.append("font '\(text)': \(problem); ignored") }
            let family = pattern.family
            let found = FontLibrary.isGenericFamily(family) || match.families.contains(where: { FontLibrary.sameFamily($0, family) })
            if !found {
                // A misspelt family gets the config's default font (in the weight and style asked
                // for), not whatever fontconfig ranks first: a typo must not change the look.
                let fallback = try FontconfigPattern(family: FontLibrary.defaultFamily, properties: pattern.properties,
                                                     weight: spec.weight?.value, slant: slant)
                if let defaultMatch = try fontconfigConfiguration().bestMatch(fallback) { match = defaultMatch }
            }
            let chosen = try face(path: match.path, index: match.index)
            if !found {
                warnings.append("font family '\(family)' not found; using '\(match.families.first ?? chosen.familyName)'")
            } else if let problem = FontLibrary.styleMismatch(chosen, weight: askedWeight, slant: askedSlant) {
                warnings.append("font '\(FontLibrary.describe(spec))' has no \(problem) face; using '\(chosen.familyName) \(chosen.styleName)'")
            }
            let warning = warnings.isEmpty ? nil : warnings.joined(separator: "; ")
            resolvedFonts[spec] = ResolvedFont(faceID: chosen.id, warning: warning)
            return (chosen, warning)
        }
    }

    /// What the chosen face lacks of the request ("italic", "weight 900"), or nil when it matches.
    /// Fontconfig may pick a regular face for an italic request (and ask for a synthetic slant we
    /// do not draw), so the face's own flags and OS/2 weight are what counts.
    private static func styleMismatch(_ face: FontFace, weight: Int?, slant: Int?) -> String? {
        if let slant, (slant != Int(FC_SLANT_ROMAN)) != face.isItalic {
            return slant == Int(FC_SLANT_ROMAN) ? "upright" : (slant == Int(FC_SLANT_OBLIQUE) ? "oblique" : "italic")
        }
        // Neighbouring weights (semibold for bold) are what CSS matching gives too.
        if let weight, let actual = face.weightClass, abs(actual - weight) > 100 { return "weight \(weight)" }
        return nil
    }

    private static func describe(_ spec: FontSpec) -> String {
        guard case .pattern(let text) = spec.source else { return "" }
        var parts = [text]
        if let weight = spec.weight { parts.append("weight \(weight.value)") }
        if let style = spec.style { parts.append(style.rawValue) }
        return parts.joined(separator: ", ")
    }

    /// fontconfig's own comparison ignores case and spaces ("dejavusans" finds DejaVu Sans).
    static func sameFamily(_ a: String, _ b: String) -> Bool {
        func key(_ s: String) -> String { s.lowercased().filter { $0 != " " } }
        return key(a) == key(b)
    }

    /// CSS/fontconfig generic names are satisfied by whatever the system maps them to.
    static func isGenericFamily(_ family: String) -> Bool {
        ["sans-serif", "sans", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy", "emoji", "math"]
            .contains(family.lowercased())
    }
}

extension FontFace {
    /// Italic or oblique by the font's own flags.
    var isItalic: Bool { pointer.pointee.style_flags & FT_Long(FT_STYLE_FLAG_ITALIC) != 0 }

    /// The OS/2 weight class (400 regular, 700 bold), when the font has one.
    var weightClass: Int? {
        guard let table = FT_Get_Sfnt_Table(pointer, FT_SFNT_OS2) else { return nil }
        let weight = Int(table.assumingMemoryBound(to: TT_OS2.self).pointee.usWeightClass)
        return (1...1000).contains(weight) ? weight : nil
    }

    /// "Bold", "Italic", "Book"… as the font names its style.
    var styleName: String { pointer.pointee.style_name.map { String(cString: $0) } ?? "" }
}
