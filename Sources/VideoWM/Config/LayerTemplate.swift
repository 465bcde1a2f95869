import Animation
import Overlay

/// One layer of a config, read and checked, with its text still a template. Its fields, their
/// ranges and defaults are declared in `LayerFields`.
public struct LayerTemplate: Sendable {
    /// What the layer shows.
    public enum Content: Sendable {
        /// Text, with its placeholders not yet filled in.
        case text(TextTemplate)
        /// A local path (resolved against the config's folder) or an http(s) URL.
        case image(String)
    }

    /// `pingPong` sweeps x from 0 to 100 and back; `random` jumps to a new spot every duration.
    public enum AnimationKind: String, Sendable { case pingPong, random }

    /// A variant layer's `variants` object (docs/design/variant-marks.md §2): `count` phases of the tile,
    /// one per period of `periodSeconds`, chosen per student by a code keyed to `lecture` and
    /// `student`.
    public struct VariantSpec: Sendable {
        /// q: how many variants (phases of the tile), 2…8.
        public var count: Int
        /// Seconds each variant shows before the next period's.
        public var periodSeconds: Double
        /// The lecture's name in the key derivation; nil: the input's file name.
        public var lecture: String?
        /// Names the student in the key derivation; nil: every variable of the row.
        public var student: TextTemplate?
    }

    /// A layer's `animation` object.
    public struct AnimationSpec: Sendable {
        /// How the mark moves.
        public var kind: AnimationKind
        /// One sweep, or the time at each spot.
        public var durationMilliseconds: Int64
        /// An explicit seed; nil means "the layer's rendered text".
        public var seed: UInt64?
        /// `random` only: the time spent gliding between spots.
        public var easeMilliseconds: Int64
    }

    /// The layer's position in the config's list.
    public let index: Int
    /// Its JSON path (`watermarks[2]`), which errors about it name.
    public let path: String
    /// The text or image the layer shows.
    public var content: Content
    /// Text: cap height; image: its longer side; as a fraction of the frame's short side.
    public var sizeFraction: Double = 0
    /// The font: a fontconfig family (with weight and style) or a font file.
    public var font: FontSpec = .family(FontLibrary.defaultFamily)
    /// The text's colour.
    public var color: RGBAColor = .white
    /// 0…1, multiplying the colour's and the image's own alpha.
    public var opacity: Double = 0
    /// Horizontal place, 0 (left) to 100 (right), inside the inset.
    public var xPercent: Double = 0
    /// Vertical place, 0 (top) to 100 (bottom), inside the inset.
    public var yPercent: Double = 0
    /// The margin kept free at the frame's edges, a fraction of its short side.
    public var insetFraction: Double = 0
    /// Text wider than this fraction of the frame's width wraps, then shrinks.
    public var maxWidthFraction: Double = 0
    /// Lines a long text may wrap onto before it shrinks below the legible size.
    public var maxLines: Int = 2
    /// How the lines of a wrapped or multi-line text line up.
    public var alignment: TextAlignment = .center
    /// A band of colour around every glyph, if any.
    public var outline: LayerSpec.Outline?
    /// A drop shadow, if any.
    public var shadow: LayerSpec.Shadow?
    /// A plate behind the text, if any.
    public var box: LayerSpec.Box?
    /// The mark repeated over the whole frame, if tiled.
    public var tile: TilePattern?
    /// How the mark moves over time; nil for a still mark.
    public var animation: AnimationSpec?
    /// Its variants, when this is a variant layer.
    public var variants: VariantSpec?
    /// When the layer shows: `start`/`end`, `interval`/`skip` and `fade`.
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
    /// TPStreams: the width of the box an image is fitted into, in points.
    public var boxWidthPoints: Double = 0
    /// TPStreams: the height of that box, in points.
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

    /// Text or image, from the content.
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
