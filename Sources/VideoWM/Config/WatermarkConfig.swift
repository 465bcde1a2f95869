import Animation
import Foundation
import Overlay

/// A watermark config file, parsed and checked but not yet bound to variables or a frame.
///
/// Everything a user can get wrong is reported here, once, with the JSON path; binding
/// variables (`layerSpecs(variables:images:)`) can then only fail on a missing variable value
/// or an image that cannot be loaded.
public struct WatermarkConfig: Sendable {
    public let file: String
    public let layers: [LayerTemplate]
    /// A TPStreams player config (one of its layers uses `textSize`, `imageUrl`, `width` or
    /// `height`): laid out as that SDK lays it out, with earlier entries drawn on top.
    public let isTPStreams: Bool

    /// Which layer covers which where they overlap.
    public var stacking: Compositor.Stacking { isTPStreams ? .earlierOnTop : .laterOnTop }

    /// Every placeholder name any layer uses.
    public var variableNames: Set<String> {
        Set(layers.flatMap { layer -> [String] in
            if case .text(let t) = layer.content { return t.variableNames }
            return []
        })
    }

    /// Reads and checks the config at `path`.
    public static func load(path: String, warn: @escaping WarningHandler) throws -> WatermarkConfig {
        guard FileManager.default.fileExists(atPath: path) else { throw InputError.missing(path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, problem: .unreadable(what: "the config file"))
        }
        let base = (path as NSString).deletingLastPathComponent
        return try parse(data, file: path, baseDirectory: base.isEmpty ? "." : base, warn: warn)
    }

    /// Parses config JSON. Relative image paths are resolved against `baseDirectory`.
    public static func parse(_ data: Data, file: String, baseDirectory: String, warn: @escaping WarningHandler) throws -> WatermarkConfig {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigError(file: file, path: "$", problem: "not valid JSON (\(Self.describe(decodingError: error)))")
        }
        let top = try JSONField(value: root, path: "", file: file).object(allowedKeys: ["watermarks"])
        guard let list = top["watermarks"] else { throw ConfigError(file: file, path: "watermarks", problem: "missing (the config needs a \"watermarks\" array)") }
        let entries = try list.array()
        let isTPStreams = entries.contains { entry in
            guard case .object(let fields) = entry.value else { return false }
            return !LayerFields.tpStreamsFields.isDisjoint(with: fields.keys)
        }
        let layers = try entries.enumerated().map { index, field in
            try LayerTemplate(field, index: index, baseDirectory: baseDirectory, isTPStreams: isTPStreams, warn: warn)
        }
        return WatermarkConfig(file: file, layers: layers, isTPStreams: isTPStreams)
    }

    private static func describe(decodingError error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

extension WatermarkConfig {
    /// `videowm help config`: every layer field with its values and default, from `LayerFields`.
    public static var fieldReference: String {
        var lines = ["Config fields (one object per layer in \"watermarks\"; layers draw in order):"]
        func add(_ name: String, _ text: String, indent: Int) {
            let column = 16
            let label = String(repeating: " ", count: indent) + name
            let words = text.split(separator: " ")
            var line = label.count < column ? label.padding(toLength: column, withPad: " ", startingAt: 0) : label + " "
            var lineHasWords = false
            for word in words {
                if lineHasWords && line.count + word.count + 1 > 92 {
                    lines.append(line)
                    line = String(repeating: " ", count: column)
                    lineHasWords = false
                }
                line += (lineHasWords ? " " : "") + word
                lineHasWords = true
            }
            lines.append(line)
        }
        for field in LayerFields.all {
            let only = field.kinds.count == 1 ? " (\(field.kinds.first!.rawValue) layers)" : ""
            add(field.key, "\(field.summary)\(only): \(field.values)", indent: 2)
            for sub in field.subfields {
                add(".\(sub.key)", "\(sub.summary): \(sub.values)", indent: 4)
            }
        }
        lines.append("Lengths are fractions of the frame's short side, so one config looks alike on every size.")
        lines.append("A config using textSize, imageUrl, width or height is a TPStreams player config, laid out as")
        lines.append("that SDK lays it out: points on a 360-point short side, a 16-point inset, text by its line box,")
        lines.append("earlier layers on top; size, inset and maxWidth do not apply there.")
        return lines.joined(separator: "\n") + "\n\n"
    }
}
