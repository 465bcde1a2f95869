import Overlay

/// Runs `body` (a compositor's `prepare` or `composite`) and turns a layer that cannot be
/// prepared into a `VideoWMError` naming the config file and the field at fault.
///
/// Every place that prepares or composites marks goes through here, so a bad font or text
/// gives the same message and exit status whether it is found when the config loads, on
/// the first video frame or on a still.
func mapOverlayErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as LayerPreparationError {
        throw VideoWMError(layerFailure: failure)
    }
}

extension VideoWMError {
    /// The user-facing error for a layer the compositor could not prepare.
    ///
    /// Text that is empty, too long or too large to draw is a config error (64) at the
    /// layer's `.text` or `.size`; a font file that does not exist is missing input (66), one
    /// that exists but is not a usable font is unreadable input (65), both at `.font`.
    init(layerFailure failure: LayerPreparationError) {
        func place(_ field: String?) -> String {
            guard let origin = failure.origin else { return "watermark layer \(failure.layerIndex + 1)" + (field.map { " \($0)" } ?? "") }
            return "\(origin.file): \(origin.path)" + (field.map { ".\($0)" } ?? "")
        }
        guard let problem = failure.underlying as? TextRenderingError else {
            self.init(.dataError, "\(place(nil)): \(failure.underlying)")
            return
        }
        let status: ExitStatus, field: String
        switch problem {
        case .textEmpty, .textTooLong:
            (status, field) = (.usage, "text")
        case .sizeOutOfRange, .renderedTooLarge:
            (status, field) = (.usage, "size")
        case .invalidLength(let name, _):
            (status, field) = (.usage, Self.configField(forTextLength: name))
        case .fontUnreadable(_, let reason):
            (status, field) = (reason == "no such file" ? .noInput : .dataError, "font")
        case .fontNotFound:
            (status, field) = (.noInput, "font")
        case .fontEngineFailed:
            (status, field) = (.dataError, "font")
        }
        self.init(status, "\(place(field)): \(problem)")
    }

    /// The config field behind one of `TextRenderingError.invalidLength`'s field names.
    private static func configField(forTextLength name: String) -> String {
        switch name {
        case "outline width": "outline.width"
        case "shadow x offset": "shadow.x"
        case "shadow y offset": "shadow.y"
        case "shadow blur": "shadow.blur"
        case "box padding": "box.padding"
        case "box corner radius": "box.radius"
        case "maxWidth": "maxWidth"
        default: "size"
        }
    }
}
