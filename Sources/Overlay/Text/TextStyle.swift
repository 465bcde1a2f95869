/// Where a text layer's font comes from, and the weight and style asked for.
public struct FontSpec: Hashable, Sendable {
    public enum Source: Hashable, Sendable {
        /// A fontconfig-style pattern resolved through fontconfig: a family name, optionally
        /// followed by properties, e.g. "DejaVu Sans", "sans-serif", "DejaVu Serif:bold",
        /// "Noto Sans:italic", "Noto Sans:weight=600". The family part is taken as typed
        /// (a "-" or "," in it is part of the name).
        case pattern(String)
        /// A TrueType/OpenType file read directly (the first face of a collection); weight and
        /// style do not apply.
        case file(String)
    }

    public var source: Source
    /// Overrides a weight given in the pattern.
    public var weight: FontWeight?
    /// Overrides a slant given in the pattern.
    public var style: FontStyle?

    public init(source: Source, weight: FontWeight? = nil, style: FontStyle? = nil) {
        self.source = source
        self.weight = weight
        self.style = style
    }

    public static func family(_ pattern: String, weight: FontWeight? = nil, style: FontStyle? = nil) -> FontSpec {
        FontSpec(source: .pattern(pattern), weight: weight, style: style)
    }

    public static func file(_ path: String) -> FontSpec { FontSpec(source: .file(path)) }
}

/// A font weight on the OpenType/CSS scale: 100 thin … 400 regular … 700 bold … 900 black.
public struct FontWeight: Hashable, Sendable {
    public let value: Int

    /// `value` must be 1…1000; nil otherwise.
    public init?(_ value: Int) {
        guard (1...1000).contains(value) else { return nil }
        self.value = value
    }

    private init(known value: Int) { self.value = value }

    /// The CSS keywords and their usual synonyms ("bold", "semibold", "light"…), or nil.
    public init?(name: String) {
        let key = name.lowercased().filter { $0 != "-" && $0 != " " && $0 != "_" }
        guard let value = FontWeight.names[key] else { return nil }
        self.value = value
    }

    public static let regular = FontWeight(known: 400)
    public static let bold = FontWeight(known: 700)

    /// The accepted names, lightest first (for help texts and error messages).
    public static let knownNames = ["thin", "extralight", "light", "regular", "medium", "semibold", "bold", "extrabold", "black"]

    private static let names: [String: Int] = [
        "thin": 100, "hairline": 100, "extralight": 200, "ultralight": 200, "light": 300,
        "normal": 400, "regular": 400, "book": 400, "medium": 500, "semibold": 600, "demibold": 600,
        "bold": 700, "extrabold": 800, "ultrabold": 800, "black": 900, "heavy": 900,
    ]
}

/// Upright or slanted letters.
public enum FontStyle: String, Hashable, Sendable, CaseIterable {
    case normal, italic, oblique
}

/// How the lines of a multi-line text line up with each other.
public enum TextAlignment: String, Hashable, Sendable, CaseIterable {
    case left, center, right
}

/// A band of `color` around every glyph, drawn under the fill.
public struct TextOutline: Equatable, Sendable {
    /// How far the outline reaches beyond the glyph's edge, so the ink grows by twice this.
    public var widthPixels: Double
    public var color: RGBAColor

    public init(widthPixels: Double, color: RGBAColor) {
        self.widthPixels = widthPixels
        self.color = color
    }
}

/// A blurred copy of the text (and its outline) drawn under it.
public struct TextShadow: Equatable, Sendable {
    public var offsetXPixels: Double
    public var offsetYPixels: Double
    /// Blur radius as in CSS `text-shadow`: the Gaussian's standard deviation is half of it; 0 is a hard shadow.
    public var blurPixels: Double
    public var color: RGBAColor

    public init(offsetXPixels: Double, offsetYPixels: Double, blurPixels: Double = 0, color: RGBAColor) {
        self.offsetXPixels = offsetXPixels
        self.offsetYPixels = offsetYPixels
        self.blurPixels = blurPixels
        self.color = color
    }
}

/// A plate with rounded corners behind the text.
public struct TextBox: Equatable, Sendable {
    public var color: RGBAColor
    /// Room between the text's layout box and the plate's edge on every side.
    public var paddingPixels: Double
    public var cornerRadiusPixels: Double

    public init(color: RGBAColor, paddingPixels: Double, cornerRadiusPixels: Double = 0) {
        self.color = color
        self.paddingPixels = paddingPixels
        self.cornerRadiusPixels = cornerRadiusPixels
    }
}

/// Everything that decides how a text mark looks, in pixels of the frame it is drawn for.
///
/// The text is drawn as typed, shaped by HarfBuzz (ligatures, Arabic joining, Indic conjuncts,
/// mark positioning, GPOS kerning) and put in reading order by the Unicode bidi algorithm
/// (FriBidi): Hebrew and Arabic read right to left, and a Latin e-mail inside them keeps its
/// left-to-right order. Documented exceptions:
/// - `"\n"` (and U+2028/U+2029) start a new line; lines are placed by `alignment`.
/// - Other control characters (Unicode category Cc, e.g. `"\r"`, `"\t"`, U+0007) are dropped.
/// - Default-ignorable code points (zero-width joiner, variation selectors…) that no font maps
///   are drawn as nothing rather than as a box.
///
/// Fonts: each character comes from the requested font when it has it, else from the first
/// installed font (fontconfig's order for that family) that does, chosen for a whole stretch of
/// one script where one font covers it; spaces, punctuation and marks stay with the letters
/// around them. Characters with emoji presentation (😀, or ☺ followed by U+FE0F) come from a
/// colour font (Noto Color Emoji) when one is installed; its bitmaps are scaled to the em size.
public struct TextStyle: Equatable, Sendable {
    public var text: String
    public var font: FontSpec
    /// Height of the capitals (that of "H"), in pixels; below 1 is drawn at 1.
    public var capHeightPixels: Double
    /// Straight alpha; layer opacity is applied by the caller, not here. Colour glyphs keep their
    /// own colours but take this alpha.
    public var color: RGBAColor
    /// When the layout box would be wider than this, everything (text, outline, shadow, box)
    /// shrinks by one factor until it fits (after wrapping, see `maxLines`).
    public var maxWidthPixels: Double?
    /// The smallest cap height the text is shrunk to before it wraps instead; nil never wraps.
    public var minimumLegibleCapHeightPixels: Double?
    /// How many lines the text may take when it wraps (lines the text itself breaks always count
    /// and are always kept).
    public var maxLines: Int
    public var alignment: TextAlignment
    public var outline: TextOutline?
    public var shadow: TextShadow?
    public var box: TextBox?

    public init(text: String, font: FontSpec = .family(FontLibrary.defaultFamily), capHeightPixels: Double,
                color: RGBAColor = .white, maxWidthPixels: Double? = nil, minimumLegibleCapHeightPixels: Double? = nil,
                maxLines: Int = 2, alignment: TextAlignment = .center, outline: TextOutline? = nil,
                shadow: TextShadow? = nil, box: TextBox? = nil) {
        self.text = text
        self.font = font
        self.capHeightPixels = capHeightPixels
        self.color = color
        self.maxWidthPixels = maxWidthPixels
        self.minimumLegibleCapHeightPixels = minimumLegibleCapHeightPixels
        self.maxLines = maxLines
        self.alignment = alignment
        self.outline = outline
        self.shadow = shadow
        self.box = box
    }
}

/// A rasterised text mark and anything the user should hear about it (a substituted font,
/// glyphs drawn as boxes, text shrunk past legibility).
public struct RenderedText: Sendable {
    public var sprite: Sprite
    public var warnings: [String]
    /// How many lines were drawn (after wrapping).
    public var lineCount: Int
    /// The cap height drawn, after any shrinking to fit `maxWidthPixels`.
    public var capHeightPixels: Double

    public init(sprite: Sprite, warnings: [String], lineCount: Int = 1, capHeightPixels: Double = 0) {
        self.sprite = sprite
        self.warnings = warnings
        self.lineCount = lineCount
        self.capHeightPixels = capHeightPixels
    }
}
