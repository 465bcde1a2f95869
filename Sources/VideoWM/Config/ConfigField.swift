import Animation
import Foundation
import Overlay

/// The two kinds of layer a config holds; some fields apply to one kind only, and some
/// defaults differ between them.
public enum LayerKind: String, Sendable, CaseIterable {
    /// A text layer (`text`) or an image layer (`image`).
    case text, image
}

/// A value that may differ between text and image layers (`opacity`: 0.3 for text, 1 for images).
struct PerKind<Value> {
    var text: Value
    var image: Value

    init(text: Value, image: Value) {
        self.text = text
        self.image = image
    }

    /// The same value for both kinds.
    init(_ value: Value) { self.init(text: value, image: value) }

    subscript(kind: LayerKind) -> Value { kind == .text ? text : image }
}

/// What a field's reader may need besides its JSON value.
struct FieldContext {
    /// The kind of the layer being read.
    let kind: LayerKind
    /// The config file's folder, against which relative paths are resolved.
    let baseDirectory: String
    let warn: WarningHandler
}

/// One key of a JSON object in the config: which layers may have it, how its value is read,
/// checked and stored into `Target`, its default, and its entry in `videowm help config`.
///
/// Parsing, the error messages (which name the field's JSON path) and the reference text
/// all come from these declarations (`LayerFields.all`), so a new field is one declaration.
struct ConfigField<Target> {
    let key: String
    /// The layer kinds that may have the field; on another kind it is an error.
    let kinds: Set<LayerKind>
    /// What the field means, for the reference ("cap height of text; longer side of an image").
    let summary: String
    /// The accepted values and the default, for the reference ("0…1; default 0.3 (text), 1 (image)").
    let values: String
    /// Sub-fields, for the reference (an object field's own fields).
    let subfields: [(key: String, summary: String, values: String)]
    /// Said when the field is used on a layer kind it does not apply to, after "applies to … layers only".
    let misuseHint: String?
    /// For a field that must be given: what to say when it is missing ("\"pingPong\" or \"random\"").
    let requiredHint: String?
    /// Stores the default for a layer of this kind, before any field is read.
    let setDefault: (inout Target, LayerKind) -> Void
    /// Reads the field's value (present in the JSON) into the target.
    let read: (JSONField, inout Target, FieldContext) throws -> Void

    init(_ key: String, kinds: Set<LayerKind> = Set(LayerKind.allCases), summary: String, values: String,
         subfields: [(key: String, summary: String, values: String)] = [], misuseHint: String? = nil, requiredHint: String? = nil,
         setDefault: @escaping (inout Target, LayerKind) -> Void = { _, _ in },
         read: @escaping (JSONField, inout Target, FieldContext) throws -> Void) {
        self.key = key
        self.kinds = kinds
        self.summary = summary
        self.values = values
        self.subfields = subfields
        self.misuseHint = misuseHint
        self.requiredHint = requiredHint
        self.setDefault = setDefault
        self.read = read
    }
}

/// Reads a JSON object through a list of field declarations: unknown keys and fields of the
/// wrong layer kind are errors, every default is set, then each field present is read in
/// the list's order (so a later field overrides an earlier one: `size` wins over TPStreams'
/// `textSize`, `x` over `anchor`). Returns the fields present, by key.
@discardableResult
func readObject<Target>(_ json: JSONField, fields: [ConfigField<Target>], into target: inout Target,
                        kind: LayerKind, baseDirectory: String, warn: @escaping WarningHandler) throws -> [String: JSONField] {
    let present = try json.object(allowedKeys: Set(fields.map(\.key)))
    for field in fields where present[field.key] == nil {
        if let hint = field.requiredHint {
            throw ConfigError(file: json.file, path: json.path.isEmpty ? field.key : "\(json.path).\(field.key)", problem: "missing (\(hint))")
        }
    }
    for field in fields {
        guard let value = present[field.key], !field.kinds.contains(kind) else { continue }
        let other = field.kinds.count == 1 ? field.kinds.first.map(\.rawValue) ?? "other" : "other"
        throw value.fail("applies to \(other) layers only" + (field.misuseHint.map { " (\($0))" } ?? ""))
    }
    for field in fields { field.setDefault(&target, kind) }
    let context = FieldContext(kind: kind, baseDirectory: baseDirectory, warn: warn)
    for field in fields {
        if let value = present[field.key] { try field.read(value, &target, context) }
    }
    return present
}

// MARK: - Declarations for the common shapes of value

extension ConfigField {
    /// A number in `range`; a value outside is an error.
    static func number(_ key: String, _ target: WritableKeyPath<Target, Double>, in range: ClosedRange<Double>,
                       default value: PerKind<Double>, kinds: Set<LayerKind> = Set(LayerKind.allCases),
                       unit: String = "", _ summary: String) -> Self {
        ConfigField(key, kinds: kinds, summary: summary, values: describe(range) + unit + "; " + describeDefault(value, kinds: kinds, format),
                    setDefault: { $0[keyPath: target] = value[$1] },
                    read: { json, t, _ in t[keyPath: target] = try json.number(in: range) })
    }

    /// A number in `range` stored where nil, the default, has a meaning of its own (`described`).
    static func optionalNumber(_ key: String, _ target: WritableKeyPath<Target, Double?>, in range: ClosedRange<Double>,
                               default described: String, kinds: Set<LayerKind> = Set(LayerKind.allCases), _ summary: String) -> Self {
        ConfigField(key, kinds: kinds, summary: summary, values: describe(range) + "; default " + described,
                    setDefault: { t, _ in t[keyPath: target] = nil },
                    read: { json, t, _ in t[keyPath: target] = try json.number(in: range) })
    }

    /// A number in `range`; a value outside is clamped to it, with a warning.
    static func clampedNumber(_ key: String, _ target: WritableKeyPath<Target, Double>, in range: ClosedRange<Double>,
                              default value: PerKind<Double>, kinds: Set<LayerKind> = Set(LayerKind.allCases),
                              unit: String = "", _ summary: String) -> Self {
        ConfigField(key, kinds: kinds, summary: summary,
                    values: describe(range) + unit + ", values outside clamped with a warning; " + describeDefault(value, kinds: kinds, format),
                    setDefault: { $0[keyPath: target] = value[$1] },
                    read: { json, t, context in
                        let d = try json.number()
                        let clamped = min(max(d, range.lowerBound), range.upperBound)
                        if clamped != d {
                            context.warn("\(json.file): \(json.path): \(format(d)) is outside \(format(range.lowerBound))…\(format(range.upperBound)); using \(format(clamped))")
                        }
                        t[keyPath: target] = clamped
                    })
    }

    /// Whole milliseconds in `range` (fractions are rounded).
    static func milliseconds(_ key: String, _ target: WritableKeyPath<Target, Int64>, in range: ClosedRange<Double>,
                             default value: Int64, _ summary: String) -> Self {
        ConfigField(key, summary: summary, values: "ms, \(describe(range)); default \(value)",
                    setDefault: { t, _ in t[keyPath: target] = value },
                    read: { json, t, _ in t[keyPath: target] = Int64(try json.number(in: range).rounded()) })
    }

    /// Optional whole milliseconds in `range`: absent means "none".
    static func optionalMilliseconds(_ key: String, _ target: WritableKeyPath<Target, Int64?>, in range: ClosedRange<Double>,
                                     _ summary: String) -> Self {
        ConfigField(key, summary: summary, values: "ms, \(describe(range)); default none",
                    setDefault: { t, _ in t[keyPath: target] = nil },
                    read: { json, t, _ in t[keyPath: target] = Int64(try json.number(in: range).rounded()) })
    }

    /// Optional seconds of presentation time in `range`.
    static func optionalSeconds(_ key: String, _ target: WritableKeyPath<Target, PresentationTime?>, in range: ClosedRange<Double>,
                                default none: String, _ summary: String) -> Self {
        ConfigField(key, summary: summary, values: "seconds, \(describe(range)); default \(none)",
                    setDefault: { t, _ in t[keyPath: target] = nil },
                    read: { json, t, _ in t[keyPath: target] = PresentationTime(seconds: try json.number(in: range)) })
    }

    /// A colour: `#RGB`, `#RRGGBB`, `#AARRGGBB` or an ARGB integer.
    static func color(_ key: String, _ target: WritableKeyPath<Target, RGBAColor>, default value: RGBAColor, _ summary: String) -> Self {
        ConfigField(key, summary: summary, values: "#RGB, #RRGGBB, #AARRGGBB or an ARGB integer; default \(describe(value))",
                    setDefault: { t, _ in t[keyPath: target] = value },
                    read: { json, t, _ in t[keyPath: target] = try json.color() })
    }

    /// An object of its own fields (`"outline": {"width": …, "color": …}`), absent by default;
    /// `initial` holds the sub-fields' values before their defaults are set, `check` the rules
    /// between them.
    static func object<Sub>(_ key: String, _ target: WritableKeyPath<Target, Sub?>, kinds: Set<LayerKind> = Set(LayerKind.allCases),
                            initial: Sub, fields: [ConfigField<Sub>], _ summary: String,
                            check: @escaping (inout Sub, JSONField, [String: JSONField], FieldContext) throws -> Void = { _, _, _, _ in })
        -> Self {
        ConfigField(key, kinds: kinds, summary: summary, values: "an object; default none",
                    subfields: fields.map { (key: $0.key, summary: $0.summary, values: $0.values) },
                    setDefault: { t, _ in t[keyPath: target] = nil },
                    read: { json, t, context in
                        var sub = initial
                        let present = try readObject(json, fields: fields, into: &sub, kind: context.kind,
                                                     baseDirectory: context.baseDirectory, warn: context.warn)
                        try check(&sub, json, present, context)
                        t[keyPath: target] = sub
                    })
    }
}

/// "0…1", "-0.2…0.2".
func describe(_ range: ClosedRange<Double>) -> String { "\(format(range.lowerBound))…\(format(range.upperBound))" }

/// "default 0.3 (text), 1 (image)", or "default 0.03" when both kinds share it.
func describeDefault<Value: Equatable>(_ value: PerKind<Value>, kinds: Set<LayerKind>, _ show: (Value) -> String) -> String {
    if value.text == value.image || kinds.count == 1 {
        return "default " + show(kinds == [.image] ? value.image : value.text)
    }
    return "default \(show(value.text)) (text), \(show(value.image)) (image)"
}

/// "#99000000": a colour as the config writes it.
func describe(_ color: RGBAColor) -> String {
    String(format: "#%02X%02X%02X%02X", color.alpha, color.red, color.green, color.blue)
}

extension JSONField {
    /// A colour: `#RGB`, `#RRGGBB`, `#AARRGGBB` or an ARGB integer.
    func color() throws -> RGBAColor {
        switch value {
        case .string(let s):
            if let c = RGBAColor(hex: s) { return c }
            throw fail("'\(s)' is not a colour (use #RGB, #RRGGBB, #AARRGGBB or an ARGB integer)")
        case .number:
            let n = try number(in: 0...4_294_967_295)
            guard n == n.rounded() else { throw fail("an ARGB colour integer must be whole") }
            return RGBAColor(argb: UInt32(n))
        default:
            throw fail("expected a colour (#RGB, #RRGGBB, #AARRGGBB or an ARGB integer)")
        }
    }
}
