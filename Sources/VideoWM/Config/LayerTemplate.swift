import Animation
import Overlay

/// One layer of a config, read and checked, with its text still a template. Its fields, their
/// ranges and defaults are declared in `LayerFields`.
public struct LayerTemplate: Sendable {
    public enum Content: Sendable {
        case text(TextTemplate)
        /// A local path (resolved against the config's folder) or an http(s) URL.
        case image(String)
    }

    public enum AnimationKind: String, Sendable { case pingPong, random }

    /// A variant layer's `variants` object (docs/design/variant-marks.md §2): `count` phases of the tile,
    /// one per period of `periodSeconds`, chosen per student by a code keyed to `lecture` and
    /// `student`.
    public struct VariantSpec: Sendable {
        public var count: Int
        public var periodSeconds: Double
        /// The lecture's name in the key derivation; nil: the input's file name.
        public var lecture: String?
        /// Names the student in the key derivation; nil: every variable of the row.
        public var student: TextTemplate?
    }

    public struct AnimationSpec: Sendable {
        public var kind: AnimationKind
        public var durationMilliseconds: Int64
        /// An explicit seed; nil means "the layer's rendered text".
        public var seed: UInt64?
        public var easeMilliseconds: Int64
    }

    /// The layer's position in the config's list.
    public let index: Int
    /// Its JSON path (`watermarks[2]`), which errors about it name.
    public let path: String
    public var content: Content
    public var sizeFraction: Double = 0
    public var font: FontSpec = .family(FontLibrary.defaultFamily)
    public var color: RGBAColor = .white
    public var opacity: Double = 0
    public var xPercent: Double = 0
    public var yPercent: Double = 0
    public var insetFraction: Double = 0
    public var maxWidthFraction: Double = 0
    /// Lines a long text may wrap onto before it shrinks below the legible size.
    public var maxLines: Int = 2
    public var alignment: TextAlignment = .center
    public var outline: LayerSpec.Outline?
    public var shadow: LayerSpec.Shadow?
    public var box: LayerSpec.Box?
    public var tile: TilePattern?
    public var animation: AnimationSpec?
    /// Its variants, when this is a variant layer.
    public var variants: VariantSpec?
    public var visibility = Visibility.always
    /// Variable name → values for which the layer is left out (`"unless": {"plan": ["premium"]}`).
    public var unless: [String: Set<String>] = [:]
    /// On PQ and HLG frames, the luminance (cd/m²) the marks' white is placed at.
    public var hdrWhiteNits: Double = 0
    /// Whether an animated logo plays (false: its first frame only).
    public var animate = true
    /// TPStreams' sizes in points on the 360-point reference short side: a text's `textSize`
    /// (its em) and an image's `width`×`height` box. Used when the config is a TPStreams config.
    public var textSizePoints: Double = 0
    public var boxWidthPoints: Double = 0
    public var boxHeightPoints: Double = 0
    /// Whose rules lay the layer out: videowm's, or the TPStreams SDK's in a TPStreams config.
    public var convention = LayerSpec.LayoutConvention.standard
    /// An image fitted into a box (TPStreams' width and height) rather than sized by its longer side.
    public var imageBox: LayerSpec.ImageBox?

    /// Reads the layer at `json` (the config's `watermarks[index]`). The values above are
    /// placeholders until `LayerFields` sets each field's default and reads what is given.
    ///
    /// In a TPStreams config (`isTPStreams`, see `WatermarkConfig`) the layer is then laid out
    /// as that player's SDK lays it out (`LayerFields.applyTPStreamsLayout`).
    init(_ json: JSONField, index: Int, baseDirectory: String, isTPStreams: Bool = false, warn: @escaping WarningHandler) throws {
        self.index = index
        path = json.path
        let kind = try LayerFields.kind(of: json)
        content = .image("")  // the content field sets it
        let present = try readObject(json, fields: LayerFields.all, into: &self, kind: kind, baseDirectory: baseDirectory, warn: warn)
        try LayerFields.checkRules(self, present: present)
        if isTPStreams { try LayerFields.applyTPStreamsLayout(&self, present: present) }
    }

    /// Whether the layer's mark takes a path of its own for each row: a `random` animation with
    /// no fixed `seed`, on a text that names one of `columns` (a CSV column, which differs by row).
    public func hasRowDependentPath(columns: Set<String>) -> Bool {
        guard let animation, animation.kind == .random, animation.seed == nil, case .text(let text) = content else { return false }
        return !columns.isDisjoint(with: text.variableNames)
    }

    public var kind: LayerKind {
        if case .text = content { return .text }
        return .image
    }

    /// Whether `unless` leaves this layer out for these variables.
    public func isExcluded(by variables: [String: String]) -> Bool {
        unless.contains { name, values in variables[name].map(values.contains) ?? false }
    }

    /// The timeline of this layer once its text is known. A random path's seed is the config's
    /// `seed`, else the rendered text; with a key, it is derived from the key and that seed or
    /// text (and the layer's index), so nobody without the key can compute it.
    func timeline(renderedText: String, pathKey: KeyedDerivation? = nil) throws(CryptoError) -> LayerTimeline {
        let motion: Motion
        switch animation {
        case nil:
            motion = .still
        case let a? where a.kind == .pingPong:
            motion = .pingPong(durationMilliseconds: a.durationMilliseconds)
        case let a?:
            let seed: UInt64
            switch (a.seed, pathKey) {
            case (let given?, nil): seed = given
            case (nil, nil): seed = RandomSeed.from(text: renderedText)
            case (let given?, let key?): seed = try key.markPathSeed(layerIndex: index, configSeed: given)
            case (nil, let key?): seed = try key.markPathSeed(layerIndex: index, text: renderedText)
            }
            motion = .random(durationMilliseconds: a.durationMilliseconds, seed: seed, easeMilliseconds: a.easeMilliseconds)
        }
        return LayerTimeline(xPercent: xPercent, yPercent: yPercent, motion: motion, visibility: visibility)
    }
}
