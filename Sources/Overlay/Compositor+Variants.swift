import Animation

/// A variant layer in the compositor: each variant prepared once per geometry, and the layer alone for the
/// lecture's shared renders (`LayerVariants`, `VariantSchedule`). Beside `Compositor`, which it extends.
extension Compositor {
    /// Where a variant other than 0 of a layer is kept once prepared for a geometry.
    struct VariantKey: Hashable {
        var geometry: Geometry
        var layer: Int
        var variant: Int
    }

    /// Layer `index` (a variant layer, prepared as `base` for variant 0) as it shows at `time`:
    /// the variant `variantSchedule` picks, its tile at that variant's phase. Each variant is
    /// drawn once per geometry, the first time it shows.
    func variantLayer(_ index: Int, base: PreparedLayer, geometry: Geometry, at time: PresentationTime) throws -> PreparedLayer {
        guard let variants = layers[index].variants, var tile = layers[index].tile else { return base }
        let variant = ((variantSchedule.variant(at: time) % variants.count) + variants.count) % variants.count
        guard variant != 0 else { return base }
        let key = VariantKey(geometry: geometry, layer: index, variant: variant)
        if let prepared = preparedVariants[key] { return prepared }
        var spec = layers[index]
        tile.phase = variants.phase(of: variant)
        spec.tile = tile
        let display = geometry.display
        let sprite: Sprite
        do {
            // The warnings (a sparse tile's clean squares) were given for variant 0, the same pattern.
            sprite = try makeSprite(spec, displayWidth: display.width, displayHeight: display.height, warn: { _ in })
        } catch {
            throw LayerPreparationError(layerIndex: index, origin: spec.origin, underlying: error)
        }
        let prepared = finish(sprite, spec: spec, geometry: geometry)
        preparedVariants[key] = prepared
        return prepared
    }
}

extension Compositor {
    /// The index of the job's variant layer (a config has at most one), nil without one.
    public var variantLayerIndex: Int? { layers.firstIndex { $0.variants != nil } }

    /// The variant layer's variants, nil without one.
    public var layerVariants: LayerVariants? { variantLayerIndex.flatMap { layers[$0].variants } }

    /// The variant layer alone, showing variant `variant` all along: what one of the lecture's
    /// shared renders draws (every student's copy that shows no mark of its own in a period is
    /// that render). Nil without a variant layer.
    public func variantLayerAlone(showing variant: Int) -> Compositor? {
        guard let index = variantLayerIndex else { return nil }
        let alone = Compositor(layers: [layers[index]], fonts: fonts, stacking: stacking, warn: warn)
        alone.variantSchedule = .constant(variant)
        alone.timecode = timecode
        return alone
    }

    /// Whether a layer other than the variant layer draws at `time`: a row's own marks, for
    /// which its period is re-encoded with them and the variant layer hidden (`VariantSchedule.hiding`).
    public func drawsOwnMarks(at time: PresentationTime) -> Bool {
        layers.contains { $0.variants == nil && Self.isShown($0, at: time) }
    }
}
