import Overlay

/// A watermark layer that cannot be drawn: its text, font or size, or its image. Names the
/// config file and the JSON path of the field at fault (`watermarks[0].font`), or the
/// layer's position when it did not come from a config.
public struct LayerError: Error, Sendable, CustomStringConvertible {
    /// What could not be drawn.
    public enum Cause: Sendable {
        /// The text engine refused the layer's text, size or font.
        case text(TextRenderingError)
        /// The layer's image could not be loaded (an `InputError` or `MediaError`).
        case image(any Error)
        /// Anything else the compositor reported, in its words.
        case other(String)
    }

    /// The layer's position in the compositor, 0 for the first.
    public var layerIndex: Int
    /// Where the layer came from (a config file and JSON path), when it came from a config.
    public var origin: LayerSpec.Origin?
    /// The field at fault, as a key path below the layer ("font", "outline.width").
    public var field: String?
    /// What could not be drawn, and why.
    public var cause: Cause

    /// A layer that cannot be drawn.
    public init(layerIndex: Int, origin: LayerSpec.Origin?, field: String?, cause: Cause) {
        self.layerIndex = layerIndex
        self.origin = origin
        self.field = field
        self.cause = cause
    }

    /// The error for a layer the compositor could not prepare, with the field the problem is in.
    public init(_ failure: LayerPreparationError) {
        guard let problem = failure.underlying as? TextRenderingError else {
            self.init(layerIndex: failure.layerIndex, origin: failure.origin, field: nil, cause: .other("\(failure.underlying)"))
            return
        }
        self.init(layerIndex: failure.layerIndex, origin: failure.origin, field: Self.field(of: problem), cause: .text(problem))
    }

    /// Runs `body` (a compositor's `prepare` or `composite`) and turns a layer that cannot be
    /// prepared into a `LayerError`. Every place that prepares or composites marks goes
    /// through here, so a bad font or text gives the same error whether it is found when the
    /// config loads, on the first video frame or on a still.
    public static func rethrowing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as LayerPreparationError {
            // Memory or descriptors that ran out are the system's failure, said as such: no layer is at fault.
            if case .systemResources(let shortage, let operation) = failure.underlying as? TextRenderingError {
                throw ResourceError(shortage == .memory ? .memory : .fileDescriptors, operation)
            }
            throw LayerError(failure)
        }
    }

    /// The config key below the layer that a text problem is about.
    static func field(of problem: TextRenderingError) -> String {
        switch problem {
        case .textEmpty, .textTooLong: "text"
        case .sizeOutOfRange, .renderedTooLarge: "size"
        case .fontNotFound, .fontFileMissing, .fontUnreadable, .fontEngineFailed, .systemResources: "font"
        case .invalidLength(let length, _):
            switch length {
            case .outlineWidth: "outline.width"
            case .shadowOffsetX: "shadow.x"
            case .shadowOffsetY: "shadow.y"
            case .shadowBlur: "shadow.blur"
            case .boxPadding: "box.padding"
            case .boxCornerRadius: "box.radius"
            case .maxWidth: "maxWidth"
            }
        }
    }

    public var description: String {
        let place: String
        if let origin {
            place = "\(origin.file): \(origin.path)" + (field.map { ".\($0)" } ?? "")
        } else {
            place = "watermark layer \(layerIndex + 1)" + (field.map { " \($0)" } ?? "")
        }
        switch cause {
        case .text(let problem): return "\(place): \(problem)"
        case .image(let underlying): return "\(place): \(underlying)"
        case .other(let text): return "\(place): \(text)"
        }
    }
}

/// FreeType or fontconfig could not start, so no text can be drawn at all.
public struct TextEngineError: Error, Sendable, CustomStringConvertible {
    /// What the text engine reported.
    public var underlying: TextRenderingError

    /// The text engine's failure, as a library error.
    public init(_ underlying: TextRenderingError) { self.underlying = underlying }

    /// A font library, or this error.
    static func fontLibrary() throws -> FontLibrary {
        do {
            return try FontLibrary()
        } catch let error as TextRenderingError {
            throw TextEngineError(error)
        }
    }

    public var description: String { "cannot start FreeType: \(underlying)" }
}
