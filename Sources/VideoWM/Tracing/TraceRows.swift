import Animation
import LeakTrace
import Overlay

/// The rows of a trace, bound as `batch` binds them: each row's values over the shared
/// `--var` values, every placeholder of the config a column or a `--var`.
struct TraceRows {
    let table: CSVTable
    /// Per row, in CSV order, the variables its copy was marked with.
    let variables: [[String: String]]

    init(config: WatermarkConfig, table: CSVTable, fixedVariables: [String: String]) throws {
        if let clash = fixedVariables.keys.sorted().first(where: table.columns.contains) {
            throw RequestError(subject: "--var \(clash)=…", problem: "repeats a column of \(table.file); give it in one place only")
        }
        let known = Set(table.columns).union(fixedVariables.keys)
        for layer in config.layers {
            guard case .text(let text) = layer.content else { continue }
            for name in text.variableNames where !known.contains(name) {
                throw ConfigError(file: config.file, path: layer.path + ".text",
                                  problem: "unknown placeholder '{\(name)}': \(table.file) has no such column (columns: \(table.columns.joined(separator: ", ")))")
            }
        }
        self.table = table
        variables = table.rows.map { fixedVariables.merging($0.values) { fixed, _ in fixed } }
    }

    /// What the scorer needs of every row: the traced layers (those whose path depends on the
    /// row), their slot schedules and visibility, and each row's traced layer specs with their
    /// footprints on the original's geometry (`place(on:)`).
    struct Marks {
        var traced: [TracedLayer]
        var schedules: [SlotSchedule]
        /// Per schedule, its traced layers' visibility (the same for every row).
        var visibility: [[Visibility]]
        /// Per row, its traced layers.
        var layers: [[LayerSpec]]
        /// Per row, its traced layers' footprints, once placed.
        var footprints: [[MarkFootprint]] = []
    }

    /// Binds every row and picks the layers to trace. Refuses a config that gives every row
    /// the same path, before any video is opened.
    func traceableMarks(config: WatermarkConfig) throws -> Marks {
        let images = ImageCache()
        let specs = try variables.map { try config.layerSpecs(variables: $0, images: images) }
        let (traced, schedules) = TracedLayers.find(in: specs)
        guard !traced.isEmpty else {
            throw ConfigError(file: config.file, path: "watermarks", problem: """
                every row gets the same mark path, so a leak cannot name its row: give a text layer with a \
                {column} placeholder a "random" animation (its seed defaults to the rendered text)
                """)
        }
        let layers = Self.tracedLayers(of: specs, traced: traced)
        let visibility = schedules.indices.map { schedule in
            traced.filter { $0.schedule == schedule }.compactMap { layer in
                layers.lazy.flatMap { $0 }.first { $0.origin?.path == layer.key }?.timeline.visibility
            }
        }
        return Marks(traced: traced, schedules: schedules, visibility: visibility, layers: layers)
    }

    /// Per row, the layers among `specs` that `traced` names.
    static func tracedLayers(of specs: [[LayerSpec]], traced: [TracedLayer]) -> [[LayerSpec]] {
        let keys = Set(traced.map(\.key))
        return specs.map { row in row.enumerated().filter { keys.contains(TracedLayers.key(of: $1, index: $0)) }.map(\.element) }
    }

    /// The same marks with every row's paths bound under `config` instead (the same config with
    /// another key, or none): the layers and their footprints stay, only the paths change.
    func rebinding(_ marks: Marks, config: WatermarkConfig) throws -> Marks {
        let images = ImageCache()
        let specs = try variables.map { try config.layerSpecs(variables: $0, images: images) }
        var rebound = marks
        rebound.layers = Self.tracedLayers(of: specs, traced: marks.traced)
        precondition(zip(rebound.layers, marks.layers).allSatisfy { $0.count == $1.count }, "a key changes paths, not layers")
        return rebound
    }
}

extension TraceRows.Marks {
    /// Places every row's traced marks on a frame like the original's, with the compositor that
    /// marked the copies (text shaped and measured per row).
    mutating func place(on original: VideoStreamDescription) throws {
        let fonts = try TextEngineError.fontLibrary()
        footprints = try layers.map { rowLayers in
            // Warnings about a row's text were given when its copy was made; here they would repeat per row.
            let compositor = Compositor(layers: rowLayers, fonts: fonts, warn: { _ in })
            return try LayerError.rethrowing {
                try compositor.footprints(storedWidth: original.width, storedHeight: original.height, rotation: original.rotation,
                                          pixelAspect: original.pixelAspect)
            }
        }
    }
}
