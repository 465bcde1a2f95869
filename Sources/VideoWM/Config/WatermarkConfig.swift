import Animation
import Foundation
import Overlay

/// A watermark config file, parsed and checked but not yet bound to variables or a frame.
///
/// Everything a user can get wrong is reported here, once, with the JSON path; binding
/// variables (`layers(for:)`) can then only fail on a missing variable value.
public struct WatermarkConfig: Sendable {
    public let file: String
    public let layers: [LayerTemplate]

    /// Every placeholder name any layer uses.
    public var variableNames: Set<String> {
        Set(layers.flatMap { layer -> [String] in
            if case .text(let t) = layer.content { return t.variableNames }
            return []
        })
    }

    /// Reads and checks the config at `path`.
    public static func load(path: String, warn: WarningHandler) throws -> WatermarkConfig {
        guard FileManager.default.fileExists(atPath: path) else { throw InputError.missing(path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, problem: .unreadable(what: "the config file"))
        }
        let base = (path as NSString).deletingLastPathComponent
        return try parse(data, file: path, baseDirectory: base.isEmpty ? "." : base, warn: warn)
    }

    /// Parses config JSON. Relative image paths are resolved against `baseDirectory`.
    public static func parse(_ data: Data, file: String, baseDirectory: String, warn: WarningHandler) throws -> WatermarkConfig {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigError(file: file, path: "$", problem: "not valid JSON (\(Self.describe(decodingError: error)))")
        }
        let top = try JSONField(value: root, path: "", file: file).object(allowedKeys: ["watermarks"])
        guard let list = top["watermarks"] else { throw ConfigError(file: file, path: "watermarks", problem: "missing (the config needs a \"watermarks\" array)") }
        let layers = try list.array().enumerated().map { index, field in
            try LayerTemplate(field, index: index, baseDirectory: baseDirectory, warn: warn)
        }
        return WatermarkConfig(file: file, layers: layers)
    }

    private static func describe(decodingError error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// One layer of a config, with its text still a template.
public struct LayerTemplate: Sendable {
    public enum Content: Sendable {
        case text(TextTemplate)
        /// A local path (resolved against the config's folder) or an http(s) URL.
        case image(String)
    }

    public enum AnimationKind: String, Sendable { case pingPong, random }

    public struct AnimationSpec: Sendable {
        public var kind: AnimationKind
        public var durationMilliseconds: Int64
        /// An explicit seed; nil means "the layer's rendered text".
        public var seed: UInt64?
        public var easeMilliseconds: Int64
    }

    public let index: Int
    public let path: String
    public var content: Content
    public var sizeFraction: Double
    public var font: FontSpec
    public var color: RGBAColor
    public var opacity: Double
    public var xPercent: Double
    public var yPercent: Double
    public var insetFraction: Double
    public var maxWidthFraction: Double
    public var outline: LayerSpec.Outline?
    public var shadow: LayerSpec.Shadow?
    public var box: LayerSpec.Box?
    public var tile: TilePattern?
    public var animation: AnimationSpec?
    public var visibility: Visibility
    /// Variable name → values for which the layer is left out (`"unless": {"plan": ["premium"]}`).
    public var unless: [String: Set<String>]

    static let knownFields: Set<String> = [
        "text", "image", "size", "font", "color", "opacity", "x", "y", "anchor", "inset", "maxWidth",
        "outline", "shadow", "box", "tile", "animation", "start", "end", "interval", "skip", "fade", "unless",
        // TPStreams player config compatibility.
        "textSize", "imageUrl", "width", "height",
    ]

    /// TPStreams sizes are points on a player whose short side is this many points.
    static let referenceShortSidePoints = 360.0
    /// A sans-serif's capitals are about this fraction of its point size (DejaVu Sans: 0.729).
    static let capHeightPerPoint = 0.72

    init(_ field: JSONField, index: Int, baseDirectory: String, warn: WarningHandler) throws {
        let file = field.file
        let f = try field.object(allowedKeys: Self.knownFields)
        self.index = index
        self.path = field.path
        func clamped(_ key: String, _ range: ClosedRange<Double>) throws -> Double? {
            guard let v = f[key] else { return nil }
            let d = try v.number()
            if range.contains(d) { return d }
            let c = min(max(d, range.lowerBound), range.upperBound)
            warn("\(file): \(v.path): \(format(d)) is outside \(format(range.lowerBound))…\(format(range.upperBound)); using \(format(c))")
            return c
        }

        // Content: exactly one of text and image.
        let textField = f["text"], imageField = f["image"] ?? f["imageUrl"]
        switch (textField, imageField) {
        case (let t?, nil):
            let source = try t.string()
            guard !source.isEmpty else { throw t.fail("is empty") }
            do {
                content = .text(try TextTemplate(parsing: source))
            } catch {
                throw t.fail(error.problem)
            }
        case (nil, let i?):
            let source = try i.string()
            guard !source.isEmpty else { throw i.fail("is empty") }
            let lower = source.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") || source.hasPrefix("/") {
                content = .image(source)
            } else {
                content = .image((baseDirectory as NSString).appendingPathComponent(source))
            }
        case (nil, nil):
            throw field.fail("a layer needs \"text\" or \"image\"")
        case (_?, _?):
            throw field.fail("a layer has either \"text\" or \"image\", not both")
        }
        let isText: Bool
        if case .text = content { isText = true } else { isText = false }

        // Size: our fraction, or TPStreams points.
        if let s = f["size"] {
            sizeFraction = try s.number(in: 0.001...1)
        } else if isText, let points = f["textSize"] {
            sizeFraction = try points.number(in: 1...1000) * Self.capHeightPerPoint / Self.referenceShortSidePoints
        } else if !isText, f["width"] != nil || f["height"] != nil {
            let w = try f["width"]?.number(in: 1...10000) ?? 0
            let h = try f["height"]?.number(in: 1...10000) ?? 0
            sizeFraction = min(1, max(w, h) / Self.referenceShortSidePoints)
        } else {
            sizeFraction = isText ? 0.04 : 0.16
        }
        for key in ["textSize"] where !isText && f[key] != nil { throw f[key]!.fail("applies to text layers only") }
        for key in ["width", "height"] where isText && f[key] != nil { throw f[key]!.fail("applies to image layers only (text uses \"size\")") }

        if let fontField = f["font"] {
            let name = try fontField.string()
            guard !name.isEmpty else { throw fontField.fail("is empty") }
            if name.contains("/") || name.lowercased().hasSuffix(".ttf") || name.lowercased().hasSuffix(".otf") {
                let resolved = name.hasPrefix("/") ? name : (baseDirectory as NSString).appendingPathComponent(name)
                font = .file(resolved)
            } else {
                font = .family(name)
            }
        } else {
            font = .family(FontLibrary.defaultFamily)
        }
        color = try f["color"].map { try Self.color($0) } ?? .white
        opacity = try clamped("opacity", 0...1) ?? (isText ? 0.3 : 1.0)

        var x = isText ? 0.0 : 92.0, y = isText ? 0.0 : 88.0
        if let anchorField = f["anchor"] {
            let name = try anchorField.string()
            guard let a = Self.anchors[name] else {
                throw anchorField.fail("unknown anchor '\(name)' (one of: \(Self.anchorNames.joined(separator: ", ")))")
            }
            (x, y) = a
        }
        xPercent = try clamped("x", 0...100) ?? x
        yPercent = try clamped("y", 0...100) ?? y
        insetFraction = try f["inset"]?.number(in: 0...0.45) ?? 0.03
        maxWidthFraction = try f["maxWidth"]?.number(in: 0.01...1) ?? 0.9

        if let o = f["outline"] {
            let g = try o.object(allowedKeys: ["width", "color"])
            outline = LayerSpec.Outline(widthFraction: try g["width"]?.number(in: 0...0.1) ?? 0.003,
                                        color: try g["color"].map { try Self.color($0) } ?? .black)
        }
        if let s = f["shadow"] {
            let g = try s.object(allowedKeys: ["x", "y", "blur", "color"])
            shadow = LayerSpec.Shadow(offsetXFraction: try g["x"]?.number(in: -0.2...0.2) ?? 0.002,
                                      offsetYFraction: try g["y"]?.number(in: -0.2...0.2) ?? 0.002,
                                      blurFraction: try g["blur"]?.number(in: 0...0.1) ?? 0.004,
                                      color: try g["color"].map { try Self.color($0) } ?? RGBAColor(argb: 0x99000000))
        }
        if let b = f["box"] {
            let g = try b.object(allowedKeys: ["color", "padding", "radius"])
            box = LayerSpec.Box(color: try g["color"].map { try Self.color($0) } ?? RGBAColor(argb: 0x99000000),
                                paddingFraction: try g["padding"]?.number(in: 0...0.2) ?? 0.01,
                                radiusFraction: try g["radius"]?.number(in: 0...0.2) ?? 0)
        }
        if !isText {
            for key in ["outline", "shadow", "box", "font", "maxWidth"] where f[key] != nil {
                throw f[key]!.fail("applies to text layers only")
            }
        }
        if let t = f["tile"] {
            let g = try t.object(allowedKeys: ["angle", "spacing"])
            tile = TilePattern(angleDegrees: try g["angle"]?.number(in: -360...360) ?? -30,
                               spacingFraction: try g["spacing"]?.number(in: 0...1) ?? 0.12)
        }

        if let a = f["animation"] {
            let g = try a.object(allowedKeys: ["type", "duration", "seed", "ease"])
            guard let typeField = g["type"] else { throw ConfigError(file: file, path: a.path + ".type", problem: "missing (\"pingPong\" or \"random\")") }
            let typeName = try typeField.string()
            guard let kind = AnimationKind(rawValue: typeName) else {
                throw typeField.fail("unknown animation '\(typeName)' (\"pingPong\" or \"random\")")
            }
            var duration = Int64((try g["duration"]?.number(in: 0...86_400_000) ?? 10_000).rounded())
            if duration < LayerTimeline.minimumDurationMilliseconds {
                warn("\(file): \(a.path).duration: \(duration) ms is below the minimum; using \(LayerTimeline.minimumDurationMilliseconds) ms")
                duration = LayerTimeline.minimumDurationMilliseconds
            }
            var seed: UInt64?
            if let s = g["seed"] {
                if case .string(let text) = s.value { seed = RandomSeed.from(text: text) }
                else { seed = UInt64(truncatingIfNeeded: Int64(try s.number(in: -9e15...9e15))) }
            }
            let ease = Int64((try g["ease"]?.number(in: 0...86_400_000) ?? 0).rounded())
            if kind == .pingPong, g["ease"] != nil || g["seed"] != nil {
                throw a.fail("\"seed\" and \"ease\" apply to \"random\" animations only")
            }
            if tile != nil { throw a.fail("a tiled layer covers the whole frame and cannot move") }
            animation = AnimationSpec(kind: kind, durationMilliseconds: duration, seed: seed, easeMilliseconds: min(ease, duration))
        }

        let start = try f["start"].map { try PresentationTime(seconds: $0.number(in: 0...1e7)) }
        let end = try f["end"].map { try PresentationTime(seconds: $0.number(in: 0...1e7)) }
        if let start, let end, end <= start { throw f["end"]!.fail("must be after \"start\"") }
        let interval = try f["interval"].map { Int64(try $0.number(in: 1...86_400_000).rounded()) }
        let skip = Int64((try f["skip"]?.number(in: 0...86_400_000) ?? 0).rounded())
        if f["skip"] != nil && interval == nil { throw f["skip"]!.fail("needs \"interval\" (ms shown before each skip)") }
        let fade = Int64((try f["fade"]?.number(in: 0...86_400_000) ?? 0).rounded())
        visibility = Visibility(start: start, end: end, intervalMilliseconds: interval, skipMilliseconds: skip, fadeMilliseconds: fade)

        var unless: [String: Set<String>] = [:]
        if let u = f["unless"] {
            guard case .object(let dict) = u.value else { throw u.fail("expected an object such as {\"plan\": [\"premium\"]}") }
            for (name, values) in dict {
                let child = JSONField(value: values, path: "\(u.path).\(name)", file: file)
                unless[name] = Set(try child.strings())
            }
        }
        self.unless = unless
    }

    static let anchorNames = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"]
    static let anchors: [String: (Double, Double)] = [
        "top-left": (0, 0), "top": (50, 0), "top-right": (100, 0),
        "left": (0, 50), "center": (50, 50), "right": (100, 50),
        "bottom-left": (0, 100), "bottom": (50, 100), "bottom-right": (100, 100),
    ]

    static func color(_ field: JSONField) throws -> RGBAColor {
        switch field.value {
        case .string(let s):
            if let c = RGBAColor(hex: s) { return c }
            throw field.fail("'\(s)' is not a colour (use #RGB, #RRGGBB, #AARRGGBB or an ARGB integer)")
        case .number:
            let n = try field.number(in: 0...4_294_967_295)
            guard n == n.rounded() else { throw field.fail("an ARGB colour integer must be whole") }
            return RGBAColor(argb: UInt32(n))
        default:
            throw field.fail("expected a colour (#RGB, #RRGGBB, #AARRGGBB or an ARGB integer)")
        }
    }

    /// Whether `unless` leaves this layer out for these variables.
    public func isExcluded(by variables: [String: String]) -> Bool {
        unless.contains { name, values in variables[name].map(values.contains) ?? false }
    }

    /// The timeline of this layer once its text is known (the default random seed is the text).
    func timeline(renderedText: String) -> LayerTimeline {
        let motion: Motion
        switch animation {
        case nil:
            motion = .still
        case let a? where a.kind == .pingPong:
            motion = .pingPong(durationMilliseconds: a.durationMilliseconds)
        case let a?:
            motion = .random(durationMilliseconds: a.durationMilliseconds, seed: a.seed ?? RandomSeed.from(text: renderedText),
                             easeMilliseconds: a.easeMilliseconds)
        }
        return LayerTimeline(xPercent: xPercent, yPercent: yPercent, motion: motion, visibility: visibility)
    }
}
