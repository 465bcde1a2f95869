import Animation

/// Where the compositor's marks land (`MarkFootprint`s), without drawing. Beside `Compositor`, which it extends.
extension Compositor {
    /// Where each layer's mark lands on frames stored at `storedWidth`×`storedHeight` shown with
    /// `rotation`, in `layers` order and display coordinates, without drawing: `composite`
    /// places marks through these footprints. A timed text layer's is that of its text at time zero
    /// (`markRects(at:…)` uses the text of its frame).
    public func footprints(storedWidth: Int, storedHeight: Int, rotation: DisplayRotation = .upright,
                           pixelAspect: PixelAspect = .square) throws -> [MarkFootprint] {
        let geometry = Geometry(storedWidth: storedWidth, storedHeight: storedHeight, rotation: rotation, pixelAspect: pixelAspect)
        return zip(layers, try preparedLayers(for: geometry)).map { Self.footprint(of: $1, spec: $0, display: geometry.display) }
    }

    /// The display rectangle each layer's mark covers on the frame presented at `time`, nil for
    /// a layer not drawn then (the test `composite` applies). See `footprints`.
    public func markRects(at time: PresentationTime, storedWidth: Int, storedHeight: Int, rotation: DisplayRotation = .upright,
                          pixelAspect: PixelAspect = .square) throws -> [PixelRect?] {
        let geometry = Geometry(storedWidth: storedWidth, storedHeight: storedHeight, rotation: rotation, pixelAspect: pixelAspect)
        let footprints = try preparedLayers(for: geometry, at: time).enumerated().map {
            Self.footprint(of: $1, spec: layers[$0], display: geometry.display)
        }
        return zip(layers, footprints).map { spec, footprint in
            let state = spec.timeline.state(at: time)
            guard Self.opacityByte(state.opacity) > 0, !footprint.isEmpty else { return nil }
            return footprint.displayRect(xPercent: state.xPercent, yPercent: state.yPercent)
        }
    }

    static func footprint(of layer: PreparedLayer, spec: LayerSpec, display: (width: Int, height: Int)) -> MarkFootprint {
        MarkFootprint(width: layer.displayImageSize.width, height: layer.displayImageSize.height, layoutBox: layer.layoutBox,
                      displayWidth: display.width, displayHeight: display.height,
                      insetPixels: spec.insetFraction * Double(min(display.width, display.height)),
                      convention: spec.convention, isTiled: layer.isTiled)
    }
}
