import Animation
import Foundation
import Overlay

/// A watermark config file, parsed and checked but not yet bound to variables or a frame.
///
/// Everything a user can get wrong is reported here, once, with the JSON path; binding
/// variables (`layerSpecs(variables:images:)`) can then only fail on a missing variable value
/// or an image that cannot be loaded.
public struct WatermarkConfig: Sendable {
    /// The config file's path, which errors name.
    public let file: String
    /// The layers, in drawing order.
    public let layers: [LayerTemplate]
    /// A TPStreams player config (one of its layers uses `textSize`, `imageUrl`, `width` or
    /// `height`): laid out as that SDK lays it out, with earlier entries drawn on top.
    public let isTPStreams: Bool
    /// The key that row-dependent mark paths derive from (`--key-file`); nil: paths are seeded by
    /// their text alone, which anyone who knows the text can compute.
    public private(set) var pathKey: KeyedDerivation?

    init(file: String, layers: [LayerTemplate], isTPStreams: Bool) {
        self.file = file
        self.layers = layers
        self.isTPStreams = isTPStreams
    }

    /// The same config with random paths derived from `key` (nil: from their text, as without a key).
    public func keyed(with key: KeyedDerivation?) -> WatermarkConfig {
        var config = self
        config.pathKey = key
        return config
    }

    /// The layers whose path differs from row to row of a table with these columns.
    public func layersWithRowDependentPaths(columns: [String]) -> [LayerTemplate] {
        let columns = Set(columns)
        return layers.filter { $0.hasRowDependentPath(columns: columns) }
    }

    /// The variant layer, if the config has one (at most one: see `parse`).
    public var variantLayer: LayerTemplate? { layers.first { $0.variants != nil } }

    /// The same config with its variant layer alone (its index, and so its keyed path, kept): what
    /// a lecture's shared variant renders draw, for nobody in particular (its `student`, which names
    /// a row and draws nothing, left out). Nil without a variant layer.
    public var withVariantLayerAlone: WatermarkConfig? {
        guard var layer = variantLayer else { return nil }
        layer.variants?.student = nil
        var config = WatermarkConfig(file: file, layers: [layer], isTPStreams: isTPStreams)
        config.pathKey = pathKey
        return config
    }

    /// Which layer covers which where they overlap.
    public var stacking: Compositor.Stacking { isTPStreams ? .earlierOnTop : .laterOnTop }

    /// Every placeholder name any layer uses.
    public var variableNames: Set<String> {
        Set(layers.flatMap { layer -> [String] in
            if case .text(let t) = layer.content { return t.variableNames }
            return []
        })
    }

    /// Reads and checks the config at `path`: a regular file or a pipe (`-c <(generate)`), at
    /// most `ConfigLimits.maximumBytes`, refused by its size before any of it is read.
    public static func load(path: String, warn: @escaping WarningHandler) throws -> WatermarkConfig {
        let bytes: [UInt8]
        do {
            bytes = try BoundedRead.contents(of: path, accepting: .regularFilesAndPipes, maximumBytes: ConfigLimits.maximumBytes)
        } catch .tooLarge(let size) {
            throw ConfigLimits.tooLarge(file: path, bytes: size)
        } catch {
            throw error.inputError(file: path, what: "the config file")
        }
        let base = (path as NSString).deletingLastPathComponent
        return try parse(Data(bytes), file: path, baseDirectory: base.isEmpty ? "." : base, warn: warn)
    }

    /// Parses config JSON. Relative image paths are resolved against `baseDirectory`. Malformed
    /// JSON is reported at its line and column, a key given twice at its path, and the limits
    /// (`ConfigLimits`) are checked before any layer is read.
    public static func parse(_ data: Data, file: String, baseDirectory: String, warn: @escaping WarningHandler) throws -> WatermarkConfig {
        guard data.count <= ConfigLimits.maximumBytes else { throw ConfigLimits.tooLarge(file: file, bytes: data.count) }
        let root: JSONValue
        do {
            root = try StrictJSONParser.parse(Array(data))
        } catch {
            switch error.kind {
            case .syntax: throw ConfigError(file: file, path: "$", problem: error.description)
            case .duplicateKey(let path): throw ConfigError(file: file, path: path, problem: error.description)
            }
        }
        let top = try JSONField(value: root, path: "", file: file).object(allowedKeys: ["watermarks"])
        guard let list = top["watermarks"] else { throw ConfigError(file: file, path: "watermarks", problem: "missing (the config needs a \"watermarks\" array)") }
        let entries = try list.array()
        guard entries.count <= ConfigLimits.maximumLayers else {
            throw ConfigError(file: file, path: "watermarks", problem: "has \(entries.count) layers; a config may have at most \(ConfigLimits.maximumLayers)")
        }
        let isTPStreams = entries.contains { entry in
            guard case .object(let fields) = entry.value else { return false }
            return !LayerFields.tpStreamsFields.isDisjoint(with: fields.keys)
        }
        let layers = try entries.enumerated().map { index, field in
            try LayerTemplate(field, index: index, baseDirectory: baseDirectory, isTPStreams: isTPStreams, warn: warn)
        }
        // One code per lecture: a second variant layer would need a second codeword per student.
        let variantLayers = layers.filter { $0.variants != nil }
        if variantLayers.count > 1 {
            throw ConfigError(file: file, path: variantLayers[1].path + ".variants",
                              problem: "a config may have one variant layer (\(variantLayers[0].path) is one already)")
        }
        let config = WatermarkConfig(file: file, layers: layers, isTPStreams: isTPStreams)
        // The text as written (placeholders empty) must fit already.
        try config.checkTextLengths(variables: [:])
        return config
    }

    /// Refuses a text layer whose text, with `variables` filled in, is longer than a mark can
    /// be; `BatchPlan` asks this for every row before the first is encoded.
    public func checkTextLengths(variables: [String: String]) throws {
        for layer in layers where !layer.isExcluded(by: variables) {
            guard case .text(let template) = layer.content else { continue }
            let count = template.render(variables).unicodeScalars.count
            guard count <= ConfigLimits.maximumTextCharacters else {
                throw ConfigError(file: file, path: layer.path + ".text",
                                  problem: "is \(count) characters\(variables.isEmpty ? "" : " with these values"); a mark's text may be at most \(ConfigLimits.maximumTextCharacters)")
            }
        }
    }
}

/// The stated limits of a config, checked before any work. A watermark config is a few
/// kilobytes and a handful of layers; these leave ample room while refusing, at once, a file
/// that would have a job spend minutes and gigabytes preparing 400,000 layers.
public enum ConfigLimits {
    /// Bytes of JSON (1 MB).
    public static let maximumBytes = 1 << 20
    /// Layers in "watermarks".
    public static let maximumLayers = 256
    /// Characters of one layer's text after its placeholders are filled in: the text engine's own limit.
    public static var maximumTextCharacters: Int { TextLimits.maximumScalarCount }

    static func tooLarge(file: String, bytes: Int) -> ConfigError {
        ConfigError(file: file, path: "$", problem: "is \(bytes) bytes or more; a config may be at most \(maximumBytes) bytes (1 MB)")
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
