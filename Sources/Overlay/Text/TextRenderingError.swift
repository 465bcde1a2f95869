/// Why a text mark could not be drawn. Each description is one line naming the font, file or
/// field, suitable for the command line's single error line.
public enum TextRenderingError: Error, Equatable, CustomStringConvertible {
    /// No font at all could be found for a family (fontconfig knows no fonts).
    case fontNotFound(family: String)
    /// A font file does not exist.
    case fontFileMissing(path: String)
    /// A font file is not a font, truncated, not scalable or not readable: FreeType's or the
    /// system's message says which.
    case fontUnreadable(path: String, reason: String)
    /// The text is empty, or nothing is left after dropping control characters.
    case textEmpty
    /// The text has more than `TextLimits.maximumScalarCount` Unicode scalars.
    case textTooLong(count: Int)
    /// The cap height is not a number or exceeds `TextLimits.maximumCapHeightPixels`.
    case sizeOutOfRange(pixels: Double)
    /// An outline, shadow, box or maxWidth length that is not finite, negative where that means
    /// nothing, or beyond `TextLimits.maximumImageSide`.
    case invalidLength(field: TextLength, value: Double)
    /// The mark would need an image larger than `TextLimits` allow.
    case renderedTooLarge(width: Int, height: Int)
    /// FreeType or fontconfig could not start (out of memory, broken installation).
    case fontEngineFailed(operation: String, reason: String)
    /// The process ran out of memory or file descriptors while loading fonts (`operation`).
    case systemResources(SystemShortage, operation: String)

    public var description: String {
        switch self {
        case .fontNotFound(let family):
            return "font family '\(family)' not found: fontconfig knows no installed fonts"
        case .fontFileMissing(let path):
            return "font file \(path) cannot be used: no such file"
        case .fontUnreadable(let path, let reason):
            return "font file \(path) cannot be used: \(reason)"
        case .textEmpty:
            return "text is empty (control characters other than line breaks are dropped)"
        case .textTooLong(let count):
            return "text has \(count) characters; at most \(TextLimits.maximumScalarCount) are allowed"
        case .sizeOutOfRange(let pixels):
            return "text cap height \(pixels) px is out of range (a number of pixels up to \(Int(TextLimits.maximumCapHeightPixels)))"
        case .invalidLength(let field, let value):
            return "text \(field.rawValue) of \(value) px is out of range (a finite length up to \(TextLimits.maximumImageSide) px; only shadow offsets may be negative)"
        case .renderedTooLarge(let width, let height):
            return "text would render as a \(width)×\(height) px image, over the limit of \(TextLimits.maximumImageSide) px a side and \(TextLimits.maximumImagePixels / 1_000_000) megapixels; use a smaller size or maxWidth"
        case .fontEngineFailed(let operation, let reason):
            return "\(operation) failed: \(reason)"
        case .systemResources(.memory, let operation):
            return "out of memory \(operation)"
        case .systemResources(.fileDescriptors, let operation):
            return "too many open files \(operation) (see ulimit -n)"
        }
    }
}

/// The lengths of a text style that `invalidLength` can be about, named as messages name them.
public enum TextLength: String, Sendable, CaseIterable {
    case outlineWidth = "outline width"
    case shadowOffsetX = "shadow x offset"
    case shadowOffsetY = "shadow y offset"
    case shadowBlur = "shadow blur"
    case boxPadding = "box padding"
    case boxCornerRadius = "box corner radius"
    case maxWidth = "maxWidth"
}

/// Bounds that keep absurd input from exhausting memory or time.
public enum TextLimits {
    public static let maximumScalarCount = 2000
    public static let maximumCapHeightPixels = 4096.0
    /// The same bounds the image loader applies to logos.
    public static let maximumImageSide = 16384
    public static let maximumImagePixels = 100_000_000
}
