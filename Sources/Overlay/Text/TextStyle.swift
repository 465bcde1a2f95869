/// Where a text layer's font comes from.
public enum FontSpec: Equatable, Sendable {
    /// A family name resolved through fontconfig, e.g. "DejaVu Sans" or "sans-serif".
    case family(String)
    /// A TrueType/OpenType file read directly (the first face of a collection).
    case file(String)
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
/// The text is drawn exactly as typed, with these documented exceptions:
/// - `"\n"` (and U+2028/U+2029) start a new line; lines are centred on the widest one.
/// - Other control characters (Unicode category Cc, e.g. `"\r"`, `"\t"`, U+0007) are dropped.
/// - Default-ignorable code points (zero-width joiner, variation selectors…) that no font maps
///   are drawn as nothing rather than as a box.
///
/// Limitations: glyphs are placed one code point at a time with kerning but without shaping
/// (no ligatures, no Arabic joining forms, no Indic reordering) and without bidi reordering, so
/// Arabic and Hebrew come out in typed (logical) order, left to right. Colour-bitmap emoji
/// fonts are not used; an emoji is drawn from an outline font that has it, or as a box.
public struct TextStyle: Equatable, Sendable {
    public var text: String
    public var font: FontSpec
    /// Height of the capital letters (that of "H"), in pixels; below 1 is drawn at 1.
    public var capHeightPixels: Double
    /// Straight alpha; layer opacity is applied by the caller, not here.
    public var color: RGBAColor
    /// When the layout box would be wider than this, everything (text, outline, shadow, box)
    /// shrinks by one factor until it fits.
    public var maxWidthPixels: Double?
    public var outline: TextOutline?
    public var shadow: TextShadow?
    public var box: TextBox?

    public init(text: String, font: FontSpec = .family(FontLibrary.defaultFamily), capHeightPixels: Double,
                color: RGBAColor = .white, maxWidthPixels: Double? = nil, outline: TextOutline? = nil,
                shadow: TextShadow? = nil, box: TextBox? = nil) {
        self.text = text
        self.font = font
        self.capHeightPixels = capHeightPixels
        self.color = color
        self.maxWidthPixels = maxWidthPixels
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

    public init(sprite: Sprite, warnings: [String]) {
        self.sprite = sprite
        self.warnings = warnings
    }
}
