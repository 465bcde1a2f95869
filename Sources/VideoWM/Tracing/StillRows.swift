import Animation
import LeakTrace
import Overlay

/// The rows of a still's trace as the still can show them: for each row, the footprints of its
/// layers whose text or place depends on the row (placed on the original's display by the
/// compositor that marked its copy), so that where each would be at any instant, and what it
/// says, can be asked without drawing anything.
struct StillRows {
    struct Layer {
        var spec: LayerSpec
        var footprint: MarkFootprint
        /// Its path depends on the row (a keyed `random` animation).
        var traced: Bool
        /// Its text depends on the row; nil for an image or a text every row shares.
        var text: String?
    }

    /// Per row, its row-dependent layers.
    let rows: [[Layer]]
    /// The traced layers' look: the grey levels (0…255, full range) of their text, outline and
    /// shadow, and their opacity.
    let marks: MarkColors
    /// The first traced layer's cap height, in display pixels (the height of a line of its text).
    let lineHeight: Double

    /// Binds every row as batch does (`rows.variables`, under `config`'s key) and places the
    /// layers that depend on it; `traced` names the layers whose paths do.
    init(config: WatermarkConfig, rows traceRows: TraceRows, traced: [TracedLayer], original: VideoStreamDescription) throws {
        let images = ImageCache()
        let specs = try traceRows.variables.map { try config.layerSpecs(variables: $0, images: images) }
        let tracedKeys = Set(traced.map(\.key))
        // Text layers whose text differs between rows, by their key.
        var textsByKey: [String: Set<String>] = [:]
        for row in specs {
            for (index, spec) in row.enumerated() {
                if case .text(let text) = spec.content { textsByKey[TracedLayers.key(of: spec, index: index), default: []].insert(text) }
            }
        }
        let rowTextKeys = Set(textsByKey.filter { $0.value.count > 1 }.keys)
        let fonts = try TextEngineError.fontLibrary()
        rows = try specs.map { row in
            let keyed = row.enumerated().map { (key: TracedLayers.key(of: $1, index: $0), spec: $1) }
                .filter { tracedKeys.contains($0.key) || rowTextKeys.contains($0.key) }
            let compositor = Compositor(layers: keyed.map(\.spec), fonts: fonts, warn: { _ in })
            let footprints = try LayerError.rethrowing {
                try compositor.footprints(storedWidth: original.width, storedHeight: original.height, rotation: original.rotation,
                                          pixelAspect: original.pixelAspect)
            }
            return zip(keyed, footprints).map { layer, footprint in
                var text: String?
                if rowTextKeys.contains(layer.key), case .text(let value) = layer.spec.content { text = value }
                return Layer(spec: layer.spec, footprint: footprint, traced: tracedKeys.contains(layer.key), text: text)
            }
        }
        let look = self.rows.lazy.flatMap { $0 }.first { $0.traced }
        let color = look?.spec.color ?? RGBAColor(red: 255, green: 255, blue: 255)
        let colors = [color] + [look?.spec.outline?.color, look?.spec.shadow?.color].compactMap { $0 }
        marks = MarkColors(levels: colors.map { Float(0.2126 * Double($0.red) + 0.7152 * Double($0.green) + 0.0722 * Double($0.blue)) },
                           opacity: Float((look?.spec.opacity ?? 0.5) * Double(color.alpha) / 255))
        lineHeight = Double(look?.footprint.layoutBox.height ?? 20)
    }

    /// Each row's marks at `times` (seconds on the original's clock), for `StillEvidence`.
    func marks(at times: [Double]) -> [StillRowMarks] {
        let instants = times.map { PresentationTime(milliseconds: Int64(($0 * 1000).rounded())) }
        return rows.map { row in
            var traced: [StillRowMarks.Traced] = []
            var texts: [StillRowMarks.Text] = []
            for layer in row where !layer.footprint.isEmpty {
                var rects: [PlaneRect] = []
                for instant in instants {
                    let state = layer.spec.timeline.state(at: instant)
                    guard state.isVisible else { continue }
                    let r = layer.footprint.displayRect(xPercent: state.xPercent, yPercent: state.yPercent)
                    let rect = PlaneRect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height))
                    if !rects.contains(rect) { rects.append(rect) }
                }
                if layer.traced { traced.append(StillRowMarks.Traced(footprint: layer.footprint, rects: rects)) }
                if let text = layer.text {
                    texts.append(StillRowMarks.Text(text: OCRCanonicalText.of(text), rects: rects, footprint: layer.traced ? layer.footprint : nil))
                }
            }
            return StillRowMarks(traced: traced, texts: texts)
        }
    }

    /// The traced layer's footprint of median width over the rows: what a mark in the still
    /// looks like in size, whoever drew it.
    var typicalFootprint: MarkFootprint? {
        let footprints = rows.compactMap { $0.first { $0.traced }?.footprint }.sorted { $0.width < $1.width }
        return footprints.isEmpty ? nil : footprints[footprints.count / 2]
    }

    /// Every character the rows' texts hold, the only ones OCR is allowed to read.
    var characters: String {
        var set = Set<Character>()
        for row in rows { for layer in row { if let text = layer.text { set.formUnion(text) } } }
        set.remove(" ")
        return String(set.sorted())
    }

    /// What tells the rows' texts apart.
    var distinctiveness: TextDistinctiveness {
        TextDistinctiveness(texts: rows.flatMap { $0.compactMap(\.text) }.map(OCRCanonicalText.of))
    }
}
