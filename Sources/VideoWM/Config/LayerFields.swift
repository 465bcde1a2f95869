import Animation
import Foundation
import Overlay

/// Every field of a config layer, in one table: its key, the layer kinds it applies to, its
/// range and default, where its value goes in `LayerTemplate`, and its line in
/// `videowm help config`. Parsing, validation messages and the reference all come from here.
///
/// To add a field: add its property to `LayerTemplate` (with the type the marks need), one
/// entry below (most fields fit one of `ConfigField`'s shapes: `number`, `clampedNumber`,
/// `milliseconds`, `color`, `object`…; others give their own `read`), a rule in `rules` if it
/// constrains another field, and a row in docs/reference/config.md's field table. Fields are read in the
/// order listed, after every default is set, so a later field overrides an earlier one.
enum LayerFields {
    /// TPStreams sizes are points on a player whose short side is this many points.
    static let referenceShortSidePoints = 360.0
    /// The TPStreams SDK keeps marks this many points from the player's edges
    /// (`WatermarkOverlayView.inset`).
    static let tpStreamsInsetPoints = 16.0
    /// The fields whose presence makes a config a TPStreams player config.
    static let tpStreamsFields: Set<String> = ["textSize", "imageUrl", "width", "height"]
    /// The fields of videowm's own layout that a TPStreams config, laid out as the SDK, cannot use.
    static let standardLayoutFields = ["size", "inset", "maxWidth"]
    /// Fields of animations and visibility measured in milliseconds go up to a day.
    static let dayInMilliseconds = 0.0...86_400_000

    static var all: [ConfigField<LayerTemplate>] { [
        // Content: exactly one of text and image (checked before anything else; it decides the kind).
        ConfigField("text", kinds: [.text], summary: "the text; {name} placeholders from --var or the CSV, {timecode} {pts} per frame, {date} {time} of the job's start, {{ and }} literal braces; shaped and reordered for every script, emoji in colour",
                    values: "a string", read: { json, layer, _ in layer.content = .text(try textTemplate(json)) }),
        ConfigField("imageUrl", kinds: [.image], summary: "TPStreams' name for \"image\"", values: "a string",
                    read: { json, layer, context in layer.content = .image(try imageSource(json, baseDirectory: context.baseDirectory)) }),
        ConfigField("image", kinds: [.image], summary: "a logo: a path (relative to the config) or an http(s) URL; PNG, JPEG, WebP or GIF; animated GIF, APNG and WebP play",
                    values: "a string", read: { json, layer, context in layer.content = .image(try imageSource(json, baseDirectory: context.baseDirectory)) }),
        ConfigField("animate", kinds: [.image], summary: "whether an animated logo plays, looped by presentation time (false: its first frame)",
                    values: "true or false; default true", setDefault: { layer, _ in layer.animate = true },
                    read: { json, layer, _ in layer.animate = try json.bool() }),

        // Size: our fraction of the short side, or TPStreams points (a TPStreams config is laid out as the SDK: see applyTPStreamsLayout).
        .number("textSize", \.textSizePoints, in: 1...1000, default: PerKind(14), kinds: [.text], unit: " points",
                "TPStreams: the font size (em), on a player 360 points high"),
        .clampedNumber("width", \.boxWidthPoints, in: 0...10000, default: PerKind(48), kinds: [.image], unit: " points",
                       "TPStreams: the width of the box the image is fitted into (aspect kept, centred)"),
        .clampedNumber("height", \.boxHeightPoints, in: 0...10000, default: PerKind(48), kinds: [.image], unit: " points",
                       "TPStreams: the height of that box"),
        .number("size", \.sizeFraction, in: 0.001...1, default: PerKind(text: 0.04, image: 0.16),
                "text: cap height; image: its longer side; a fraction of the frame's short side"),

        ConfigField("font", kinds: [.text], summary: "a fontconfig pattern (\"DejaVu Serif:bold\", \"Noto Sans:italic\", \"Noto Sans:weight=600\") or a font file (relative to the config); a family not installed falls back to \(FontLibrary.defaultFamily) with a warning",
                    values: "default \(FontLibrary.defaultFamily)", setDefault: { layer, _ in layer.font = .family(FontLibrary.defaultFamily) },
                    read: { json, layer, context in layer.font = try font(json, baseDirectory: context.baseDirectory) }),
        ConfigField("weight", kinds: [.text], summary: "the font's weight, over the pattern's (CSS scale: 400 regular, 700 bold)",
                    values: "100…900 or " + FontWeight.knownNames.joined(separator: ", ") + "; default the pattern's",
                    read: { json, layer, _ in layer.font.weight = try weight(json) }),
        ConfigField("style", kinds: [.text], summary: "upright or slanted letters, over the pattern's",
                    values: FontStyle.allCases.map(\.rawValue).joined(separator: ", ") + "; default the pattern's",
                    read: { json, layer, _ in layer.font.style = try choice(json, among: FontStyle.allCases) }),
        .color("color", \.color, default: .white, "the text's colour (an image keeps its own)"),
        .clampedNumber("opacity", \.opacity, in: 0...1, default: PerKind(text: 0.3, image: 1),
                       "multiplies the colour's and the image's own alpha"),

        // Position: anchor is a shorthand for x and y, which override it.
        ConfigField("anchor", summary: "a shorthand for x and y of 0, 50 or 100",
                    values: anchorNames.joined(separator: " "), read: { json, layer, _ in
                        (layer.xPercent, layer.yPercent) = try anchor(json)
                    }),
        .clampedNumber("x", \.xPercent, in: 0...100, default: PerKind(text: 0, image: 92), unit: " percent",
                       "left = inset + (W − w − 2·inset)·x/100, so the mark stays whole inside the frame"),
        .clampedNumber("y", \.yPercent, in: 0...100, default: PerKind(text: 0, image: 88), unit: " percent", "likewise from the top"),
        .number("inset", \.insetFraction, in: 0...0.45, default: PerKind(0.03), "the margin kept free at the frame's edges"),
        .number("maxWidth", \.maxWidthFraction, in: 0.01...1, default: PerKind(0.9), kinds: [.text],
                "text wider than this fraction of the frame's width is shrunk to fit (long text wraps first, see maxLines)"),
        ConfigField("maxLines", kinds: [.text],
                    summary: "lines a long text may wrap onto (at spaces; in an e-mail after @ and .) before it shrinks below the legible size, max(0.025 of the short side, 9 px)",
                    values: "1…10; default 2", setDefault: { layer, _ in layer.maxLines = 2 },
                    read: { json, layer, _ in layer.maxLines = try wholeNumber(json, in: 1...10) }),
        ConfigField("align", kinds: [.text], summary: "how the lines of a wrapped or multi-line text line up",
                    values: TextAlignment.allCases.map(\.rawValue).joined(separator: ", ") + "; default center",
                    setDefault: { layer, _ in layer.alignment = .center },
                    read: { json, layer, _ in layer.alignment = try choice(json, among: TextAlignment.allCases) }),

        .object("outline", \.outline, kinds: [.text], initial: LayerSpec.Outline(widthFraction: 0, color: .black), fields: [
            .number("width", \.widthFraction, in: 0...0.1, default: PerKind(0.003), "the band's width"),
            .color("color", \.color, default: .black, "its colour"),
        ], "a band of colour around every glyph"),
        .object("shadow", \.shadow, kinds: [.text],
                initial: LayerSpec.Shadow(offsetXFraction: 0, offsetYFraction: 0, blurFraction: 0, color: .black), fields: [
            .number("x", \.offsetXFraction, in: -0.2...0.2, default: PerKind(0.002), "offset to the right"),
            .number("y", \.offsetYFraction, in: -0.2...0.2, default: PerKind(0.002), "offset downwards"),
            .number("blur", \.blurFraction, in: 0...0.1, default: PerKind(0.004), "blur radius"),
            .color("color", \.color, default: RGBAColor(argb: 0x9900_0000), "its colour"),
        ], "a drop shadow"),
        .object("box", \.box, kinds: [.text], initial: LayerSpec.Box(color: .black, paddingFraction: 0, radiusFraction: 0), fields: [
            .color("color", \.color, default: RGBAColor(argb: 0x9900_0000), "its colour"),
            .number("padding", \.paddingFraction, in: 0...0.2, default: PerKind(0.01), "space around the text"),
            .number("radius", \.radiusFraction, in: 0...0.2, default: PerKind(0), "corner radius"),
        ], "a plate behind the text"),
        .object("tile", \.tile, initial: TilePattern(angleDegrees: 0, spacingFraction: 0), fields: [
            .number("angle", \.angleDegrees, in: -360...360, default: PerKind(-30), unit: " degrees", "the rows' angle"),
            .optionalNumber("spacing", \.spacingFraction, in: 0...1,
                            default: "dense (no square a tenth of the short side wide left clean)",
                            "the gap between marks, drawn as given; a warning gives any clean square wider than 0.1"),
        ], "the mark repeated over the whole frame, rows offset like bricks"),

        .object("animation", \.animation, initial: LayerTemplate.AnimationSpec(kind: .pingPong, durationMilliseconds: 0, seed: nil, easeMilliseconds: 0),
                fields: [
                    ConfigField("type", summary: "pingPong: x sweeps 0→100→0; random: jumps to a new spot every duration",
                                values: "\"pingPong\" or \"random\"", requiredHint: "\"pingPong\" or \"random\"",
                                read: { json, animation, _ in animation.kind = try animationKind(json) }),
                    ConfigField("duration", summary: "one sweep, or the time at each spot",
                                values: "ms, at least \(LayerTimeline.minimumDurationMilliseconds) (smaller values clamped with a warning); default \(LayerTimeline.defaultDurationMilliseconds)",
                                setDefault: { animation, _ in animation.durationMilliseconds = LayerTimeline.defaultDurationMilliseconds },
                                read: { json, animation, context in animation.durationMilliseconds = try duration(json, warn: context.warn) }),
                    ConfigField("seed", summary: "random only: the path's seed", values: "a string or a number; default the layer's rendered text",
                                read: { json, animation, _ in animation.seed = try seed(json) }),
                    .milliseconds("ease", \.easeMilliseconds, in: dayInMilliseconds, default: 0, "random only: time spent gliding between spots"),
                ], "movement over time", check: checkAnimation),

        variantsField,

        .optionalSeconds("start", \.visibility.start, in: 0...1e7, default: "the first frame", "when the layer first shows"),
        .optionalSeconds("end", \.visibility.end, in: 0...1e7, default: "the last frame", "when it stops showing"),
        .optionalMilliseconds("interval", \.visibility.intervalMilliseconds, in: 1...86_400_000, "shown for this long, then hidden for skip, repeating"),
        .milliseconds("skip", \.visibility.skipMilliseconds, in: dayInMilliseconds, default: 0, "hidden between intervals"),
        .milliseconds("fade", \.visibility.fadeMilliseconds, in: dayInMilliseconds, default: 0, "fade in and out at every appearance"),
        .number("hdrWhite", \.hdrWhiteNits, in: 1...10000, default: PerKind(GraphicsWhiteMapping.defaultWhiteNits), unit: " cd/m²",
                "on PQ and HLG video and stills, the luminance the marks' white is placed at (BT.2408's graphics white)"),
        ConfigField("unless", summary: "leave the layer out when a variable has one of these values", values: "{\"plan\": [\"premium\", \"pro\"]}",
                    setDefault: { layer, _ in layer.unless = [:] }, read: { json, layer, _ in layer.unless = try unless(json) }),
    ] }

    /// Rules between fields, checked once every field is read; `present` holds the fields given.
    static func checkRules(_ layer: LayerTemplate, present: [String: JSONField]) throws {
        if let start = layer.visibility.start, let end = layer.visibility.end, end <= start {
            throw (present["end"] ?? present["start"])?.fail("must be after \"start\"")
                ?? ConfigError(file: "", path: "end", problem: "must be after \"start\"")
        }
        if let skip = present["skip"], layer.visibility.intervalMilliseconds == nil {
            throw skip.fail("needs \"interval\" (ms shown before each skip)")
        }
        if case .file = layer.font.source, let field = present["weight"] ?? present["style"] {
            throw field.fail("applies to a font family; a font file is one face (name another file, or a family)")
        }
        if layer.tile != nil, let animation = present["animation"] {
            throw animation.fail("a tiled layer covers the whole frame and cannot move")
        }
        if let variants = present["variants"] { try checkVariantLayer(layer, variants: variants, present: present) }
    }

    /// The layer's kind from its content fields: exactly one of "text" and "image" (or TPStreams' "imageUrl").
    static func kind(of json: JSONField) throws -> LayerKind {
        let present = try json.object(allowedKeys: Set(all.map(\.key)))
        switch (present["text"] != nil, present["image"] != nil || present["imageUrl"] != nil) {
        case (true, false): return .text
        case (false, true): return .image
        case (false, false): throw json.fail("a layer needs \"text\" or \"image\"")
        case (true, true): throw json.fail("a layer has either \"text\" or \"image\", not both")
        }
    }

    // MARK: - Readers of the fields that need more than a range

    static func textTemplate(_ json: JSONField) throws -> TextTemplate {
        let source = try json.string()
        guard !source.isEmpty else { throw json.fail("is empty") }
        do {
            return try TextTemplate(parsing: source)
        } catch {
            throw json.fail(error.problem)
        }
    }

    /// A URL or absolute path as given; a relative path resolved against the config's folder.
    private static func imageSource(_ json: JSONField, baseDirectory: String) throws -> String {
        let source = try json.string()
        guard !source.isEmpty else { throw json.fail("is empty") }
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") || source.hasPrefix("/") { return source }
        return (baseDirectory as NSString).appendingPathComponent(source)
    }

    /// Lays a layer of a TPStreams config out as the SDK does (testpress iOSPlayerSDK,
    /// `WatermarkOverlayView`): a 16-point inset, text sized by `textSize` (default 14) as a
    /// font size and placed by its line box, an image fitted into its `width`×`height` box
    /// (default 48×48), all in points on the 360-point reference short side. videowm's own
    /// sizing fields would contradict that layout, so they are refused rather than mixed in.
    static func applyTPStreamsLayout(_ layer: inout LayerTemplate, present: [String: JSONField]) throws {
        for key in standardLayoutFields {
            guard let field = present[key] else { continue }
            throw field.fail("does not apply to a TPStreams config, which is laid out as the player SDK lays it out (text: \"textSize\" in points; images: \"width\" and \"height\")")
        }
        layer.convention = .tpStreams
        layer.insetFraction = tpStreamsInsetPoints / referenceShortSidePoints
        switch layer.kind {
        case .text:
            layer.sizeFraction = layer.textSizePoints / referenceShortSidePoints
        case .image:
            layer.imageBox = LayerSpec.ImageBox(widthFraction: layer.boxWidthPoints / referenceShortSidePoints,
                                                heightFraction: layer.boxHeightPoints / referenceShortSidePoints)
        }
    }

    /// A file when the name looks like a path or a font file, else a fontconfig pattern.
    private static func font(_ json: JSONField, baseDirectory: String) throws -> FontSpec {
        let name = try json.string()
        guard !name.isEmpty else { throw json.fail("is empty") }
        guard name.contains("/") || name.lowercased().hasSuffix(".ttf") || name.lowercased().hasSuffix(".otf") else {
            // fontconfig itself ignores what it does not know ("DejaVu Serif:bolt"): refuse it here.
            if let problem = FontSpec.problem(inPattern: name) { throw json.fail(problem) }
            return .family(name)
        }
        return .file(name.hasPrefix("/") ? name : (baseDirectory as NSString).appendingPathComponent(name))
    }

    /// A CSS weight (100…900) or its name ("bold", "semibold").
    private static func weight(_ json: JSONField) throws -> FontWeight {
        if case .string(let name) = json.value {
            guard let weight = FontWeight(name: name) else {
                throw json.fail("unknown weight '\(name)' (100…900 or one of: \(FontWeight.knownNames.joined(separator: ", ")))")
            }
            return weight
        }
        guard let weight = FontWeight(try wholeNumber(json, in: 100...900)) else { throw json.fail("must be 100…900") }
        return weight
    }

    /// One of a few names.
    private static func choice<Choice: RawRepresentable<String>>(_ json: JSONField, among choices: [Choice]) throws -> Choice {
        let name = try json.string()
        guard let choice = choices.first(where: { $0.rawValue == name }) else {
            throw json.fail("unknown value '\(name)' (one of: \(choices.map(\.rawValue).joined(separator: ", ")))")
        }
        return choice
    }

    /// A whole number in `range`.
    static func wholeNumber(_ json: JSONField, in range: ClosedRange<Int>) throws -> Int {
        let number = try json.number(in: Double(range.lowerBound)...Double(range.upperBound))
        guard number == number.rounded() else { throw json.fail("must be a whole number") }
        return Int(number)
    }

    static let anchorNames = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"]

    private static func anchor(_ json: JSONField) throws -> (x: Double, y: Double) {
        let name = try json.string()
        guard let index = anchorNames.firstIndex(of: name) else {
            throw json.fail("unknown anchor '\(name)' (one of: \(anchorNames.joined(separator: ", ")))")
        }
        // Row by row: top, middle, bottom; left, centre, right.
        return (Double(index % 3) * 50, Double(index / 3) * 50)
    }

    private static func animationKind(_ json: JSONField) throws -> LayerTemplate.AnimationKind {
        let name = try json.string()
        guard let kind = LayerTemplate.AnimationKind(rawValue: name) else {
            throw json.fail("unknown animation '\(name)' (\"pingPong\" or \"random\")")
        }
        return kind
    }

    private static func duration(_ json: JSONField, warn: WarningHandler) throws -> Int64 {
        let duration = Int64(try json.number(in: dayInMilliseconds).rounded())
        guard duration < LayerTimeline.minimumDurationMilliseconds else { return duration }
        warn("\(json.file): \(json.path): \(duration) ms is below the minimum; using \(LayerTimeline.minimumDurationMilliseconds) ms")
        return LayerTimeline.minimumDurationMilliseconds
    }

    private static func seed(_ json: JSONField) throws -> UInt64 {
        if case .string(let text) = json.value { return RandomSeed.from(text: text) }
        return UInt64(truncatingIfNeeded: Int64(try json.number(in: -9e15...9e15)))
    }

    private static func checkAnimation(_ animation: inout LayerTemplate.AnimationSpec, _ json: JSONField, _ present: [String: JSONField],
                                       _ context: FieldContext) throws {
        if animation.kind == .pingPong, present["ease"] != nil || present["seed"] != nil {
            throw json.fail("\"seed\" and \"ease\" apply to \"random\" animations only")
        }
        animation.easeMilliseconds = min(animation.easeMilliseconds, animation.durationMilliseconds)
    }

    private static func unless(_ json: JSONField) throws -> [String: Set<String>] {
        guard case .object(let values) = json.value else { throw json.fail("expected an object such as {\"plan\": [\"premium\"]}") }
        var unless: [String: Set<String>] = [:]
        for (name, list) in values {
            unless[name] = Set(try JSONField(value: list, path: "\(json.path).\(name)", file: json.file).strings())
        }
        return unless
    }
}
