import Animation

/// Draws a job's layers onto frames.
///
/// Expensive work happens once per frame geometry (size and rotation): text is shaped and
/// rasterised, logos scaled, tiles laid out, opacity premultiplied; an animated logo's frames
/// are each scaled once, when first shown. Per frame only the timelines are evaluated and the
/// marks blended where they land, so a still and a video frame of the same size and time get
/// identical marks. Layers with `timedText` are the exception: their text is evaluated for
/// every frame and the mark made again when it changes (see `TimedText`).
///
/// One compositor per job and thread: it caches prepared marks and is not thread-safe.
public final class Compositor {
    /// The smallest cap height text is drawn at, in pixels: on a thumbnail a fraction of the
    /// short side can come out too small to read (0.02 of 300 px is 6 px), so the text, with its
    /// outline, shadow and box, grows to this. `maxWidth` still wins, so the text stays in the frame.
    public static let minimumCapHeightPixels = 8.0

    /// The smallest cap height long text is shrunk to before it wraps instead (and below which
    /// it is shrunk only with a warning): 0.025 of the frame's short side, and at least 9 px.
    ///
    /// Video is watched scaled to the screen, so legibility is a share of the picture: 0.025 of
    /// the short side is 9 px on a 360p frame, the size of small print on a phone held upright
    /// (a 360-point-wide screen), and keeps that proportion at 1080p (27 px) when the same video
    /// is shown on the same screen. The 9 px minimum keeps thumbnails and tiny frames readable at
    /// all (below about 9 px, DejaVu Sans's lower-case letters are 6 px and blur together).
    /// Never above the size asked for: a small mark is wanted small.
    public static func legibleCapHeightPixels(shortSide: Int) -> Double {
        max(0.025 * Double(shortSide), 9)
    }

    /// Which layer is drawn over which where they overlap.
    public enum Stacking: Sendable {
        /// Layers draw in order, so a later one covers an earlier one (videowm configs).
        case laterOnTop
        /// The first layer is on top (TPStreams: the SDK adds its labels in reverse order).
        case earlierOnTop
    }

    public let layers: [LayerSpec]
    public let stacking: Stacking
    let fonts: FontLibrary
    let warn: (String) -> Void
    private var prepared: [Geometry: [PreparedLayer]] = [:]
    /// The timecode clock of the video being marked, for timed texts that show a timecode;
    /// set by the pipeline once it knows the input (nil: a still image).
    public var timecode: Timecode?
    /// Which variant a variant layer shows at each time (docs/design/variant-marks.md): a student's
    /// codeword over the periods, or one variant for one of the lecture's shared renders.
    public var variantSchedule = VariantSchedule.constant(0)
    /// Variants other than 0 of variant layers, prepared when first shown (`variantLayer`).
    var preparedVariants: [VariantKey: PreparedLayer] = [:]

    /// Timed text frames drawn by redrawing only changed glyphs, and by preparing the layer
    /// afresh; of the redraws, those whose changed rectangle was copied from an earlier frame
    /// (internal: the tests check that the fast paths are the ones taken).
    private(set) var timedTextRedraws = 0, timedTextFullDraws = 0, timedTextRegionsReused = 0
    /// Whether redraws copy back rectangles drawn before (`RedrawnRegions`); internal, so the
    /// tests can compare frames with and without.
    var reusesRedrawnRegions = true
    /// Warnings already given, so a message is said once per job, not once per frame.
    private var warned: Set<String> = []

    struct Geometry: Hashable {
        var storedWidth: Int
        var storedHeight: Int
        var rotation: DisplayRotation
        var pixelAspect: PixelAspect

        /// The picture as a viewer sees it: square pixels, rotated upright.
        var display: (width: Int, height: Int) {
            rotation.displaySize(storedWidth: pixelAspect.squareWidth(ofStoredWidth: storedWidth), storedHeight: storedHeight)
        }
    }

    public init(layers: [LayerSpec], fonts: FontLibrary, stacking: Stacking = .laterOnTop,
                warn: @escaping (String) -> Void = { _ in }) {
        self.layers = layers
        self.fonts = fonts
        self.stacking = stacking
        self.warn = warn
    }

    private func warnOnce(_ message: String) {
        if warned.insert(message).inserted { warn(message) }
    }

    /// Whether any layer could ever draw (an empty config leaves frames untouched).
    public var isEmpty: Bool { layers.isEmpty }

    /// Whether any layer draws at `time` (the same test `composite` applies), so callers can
    /// skip preparing a frame for marks that are hidden there (intervals, start/end, fades).
    /// Smart rendering re-encodes exactly the GOPs where this holds for some picture.
    public func drawsAnything(at time: PresentationTime) -> Bool {
        layers.contains { Self.isShown($0, at: time) && !($0.variants != nil && variantSchedule.hides(at: time)) }
    }

    /// A layer shows when both its own opacity and its timeline's (fades, hidden spans) round to a
    /// visible byte: a layer at opacity 0.001 premultiplies its mark to nothing.
    static func isShown(_ layer: LayerSpec, at time: PresentationTime) -> Bool {
        opacityByte(layer.opacity) > 0 && opacityByte(layer.timeline.state(at: time).opacity) > 0
    }

    /// Whether `other`'s layers show at exactly the times this compositor's do (same visibility
    /// and opacity, layer for layer), so one plan of where marks are visible serves both.
    public func showsAtSameTimes(as other: Compositor) -> Bool {
        layers.count == other.layers.count && zip(layers, other.layers).allSatisfy { a, b in
            a.timeline.visibility == b.timeline.visibility && Self.opacityByte(a.opacity) == Self.opacityByte(b.opacity)
        }
    }

    static func opacityByte(_ opacity: Double) -> UInt8 {
        UInt8((min(max(opacity, 0), 1) * 255).rounded())
    }

    /// Prepares every layer for frames stored at `storedWidth`×`storedHeight` shown with
    /// `rotation`. Called implicitly by `composite`; calling it up front surfaces font and
    /// text errors before any output is written.
    public func prepare(storedWidth: Int, storedHeight: Int, rotation: DisplayRotation = .upright,
                        pixelAspect: PixelAspect = .square) throws {
        _ = try preparedLayers(for: Geometry(storedWidth: storedWidth, storedHeight: storedHeight, rotation: rotation, pixelAspect: pixelAspect))
    }

    /// Draws every text layer once for a `displayWidth`×`displayHeight` frame and throws the
    /// result away: a cheap early check that fonts open and texts render, so a job can fail
    /// before it writes anything. Nothing is cached and no warnings are given (they would
    /// name a frame size the job may never see). Image layers are skipped: a decoded logo
    /// cannot fail to scale.
    public func validate(displayWidth: Int = 1920, displayHeight: Int = 1080) throws {
        for (index, spec) in layers.enumerated() {
            switch spec.content {
            case .text, .timedText: break
            case .image, .animatedImage: continue
            }
            do {
                _ = try makeSprite(spec, displayWidth: displayWidth, displayHeight: displayHeight, warn: { _ in })
            } catch {
                throw LayerPreparationError(layerIndex: index, origin: spec.origin, underlying: error)
            }
        }
    }

    /// Blends every visible layer at presentation time `time` onto `canvas`.
    public func composite(onto canvas: some CompositingCanvas, at time: PresentationTime,
                          rotation: DisplayRotation = .upright, pixelAspect: PixelAspect = .square) throws {
        let geometry = Geometry(storedWidth: canvas.width, storedHeight: canvas.height, rotation: rotation, pixelAspect: pixelAspect)
        let layersForFrame = try preparedLayers(for: geometry, at: time)
        let display = geometry.display
        let squareWidth = pixelAspect.squareWidth(ofStoredWidth: canvas.width)
        let pairs = Array(zip(layers.indices, layersForFrame))
        for (index, prepared) in stacking == .laterOnTop ? pairs : pairs.reversed() {
            let spec = layers[index]
            let state = spec.timeline.state(at: time)
            let opacity = Self.opacityByte(state.opacity)
            guard opacity > 0, Self.opacityByte(spec.opacity) > 0, !prepared.isEmpty else { continue }
            if spec.variants != nil, variantSchedule.hides(at: time) { continue }
            let layer = spec.variants == nil ? prepared : try variantLayer(index, base: prepared, geometry: geometry, at: time)
            let mark = layer.mark(at: time)
            if layer.isTiled {
                canvas.blend(mark, atX: 0, y: 0, opacity: opacity)
                continue
            }
            let displayRect = Self.footprint(of: layer, spec: spec, display: display)
                .displayRect(xPercent: state.xPercent, yPercent: state.yPercent)
            // Display → stored orientation (in square pixels) → stored pixels.
            let square = rotation.storedRect(ofDisplayRect: displayRect, storedWidth: squareWidth, storedHeight: canvas.height)
            canvas.blend(mark, atX: pixelAspect.storedX(ofSquareX: square.x), y: square.y, opacity: opacity)
        }
    }

    func preparedLayers(for geometry: Geometry) throws -> [PreparedLayer] {
        if let cached = prepared[geometry] { return cached }
        let display = geometry.display
        var result: [PreparedLayer] = []
        for (index, spec) in layers.enumerated() {
            let named = { [unowned self] (message: String) in self.warnOnce("\(Self.name(of: spec, index: index)): \(message)") }
            if case .timedText(let timed) = spec.content {
                let text = timed.text(TimedText.Frame(time: .zero, timecode: timecode))
                result.append(try prepareTimedText(spec, index: index, text: text, geometry: geometry, warn: named))
                continue
            }
            let sprite: Sprite
            do {
                sprite = try makeSprite(spec, displayWidth: display.width, displayHeight: display.height, warn: named)
            } catch {
                throw LayerPreparationError(layerIndex: index, origin: spec.origin, underlying: error)
            }
            var finished = finish(sprite, spec: spec, geometry: geometry)
            if finished.isTiled, let tiling = finished.tiling, !tiling.coversFrame {
                named(Self.tileWarning(tiling, spec: spec, display: display))
            }
            if case .animatedImage(let animation, let name) = spec.content, animation.frames.count > 1 {
                if finished.isTiled {
                    named("image \(name) is animated, but a tiled layer shows only its first frame")
                } else {
                    // Later frames are scaled when first shown; the first frame's sprite gave the warnings.
                    finished.frames = PreparedFrames(count: animation.frames.count, first: finished.frames.first, loop: animation.loop) {
                        [unowned self] frameIndex in
                        let sprite = self.imageSprite(spec, frame: animation.frames[frameIndex], name: name,
                                                      displayWidth: display.width, displayHeight: display.height, warn: { _ in })
                        return self.finish(sprite, spec: spec, geometry: geometry).frames.first
                    }
                }
            }
            result.append(finished)
        }
        prepared[geometry] = result
        return result
    }

    /// The prepared layers with every visible timed text layer showing its text at `time`.
    func preparedLayers(for geometry: Geometry, at time: PresentationTime) throws -> [PreparedLayer] {
        var layersForFrame = try preparedLayers(for: geometry)
        for (index, spec) in layers.enumerated() {
            guard case .timedText(let timed) = spec.content, Self.opacityByte(spec.timeline.state(at: time).opacity) > 0 else { continue }
            let text = timed.text(TimedText.Frame(time: time, timecode: timecode))
            guard text != layersForFrame[index].timedText else { continue }
            var layer: PreparedLayer
            if let redrawn = try redrawTimedText(layersForFrame[index], spec: spec, text: text, geometry: geometry) {
                layer = redrawn
                timedTextRedraws += 1
            } else {
                timedTextFullDraws += 1
                // Warnings were given when the layer was first prepared; a text that changes every
                // frame would otherwise repeat them (with slightly different numbers) frame after frame.
                layer = try prepareTimedText(spec, index: index, text: text, geometry: geometry, warn: { _ in })
            }
            layer.timedText = text
            layersForFrame[index] = layer
            prepared[geometry]?[index] = layer
        }
        return layersForFrame
    }

    /// A timed text layer prepared with the text it shows at one frame.
    private func prepareTimedText(_ spec: LayerSpec, index: Int, text: String, geometry: Geometry,
                                  warn: (String) -> Void) throws -> PreparedLayer {
        var fixed = spec
        fixed.content = .text(text)
        let display = geometry.display
        let made: (sprite: Sprite, drawing: TextDrawing?)
        do {
            made = try textStyleAndRendering(fixed, displayWidth: display.width, displayHeight: display.height,
                                             keepDrawing: true, warn: warn)
        } catch {
            throw LayerPreparationError(layerIndex: index, origin: spec.origin, underlying: error)
        }
        var layer = finish(made.sprite, spec: spec, geometry: geometry)
        layer.timedText = text
        // Redrawing in place works on marks stored as drawn: upright, square pixels, not tiled.
        if geometry.rotation.clockwiseQuarterTurns == 0, geometry.pixelAspect.isSquare, !layer.isTiled, let drawing = made.drawing {
            layer.textDrawing = drawing
            layer.redrawnRegions = RedrawnRegions()
        }
        return layer
    }

    /// The layer showing `text` made by redrawing only the glyphs that differ from the text it
    /// shows, and converting only that part of its mark again — or copying that part back from a
    /// frame where the same glyphs painted it (`RedrawnRegions`); nil when neither can be done
    /// (see `FontLibrary.glyphChanges`). The pixels are those a full preparation gives.
    private func redrawTimedText(_ layer: PreparedLayer, spec: LayerSpec, text: String, geometry: Geometry) throws -> PreparedLayer? {
        guard let drawing = layer.textDrawing, let changes = try fonts.glyphChanges(drawing, text: text) else { return nil }
        let dirty = drawing.replaceGlyphs(changes)
        guard !dirty.isEmpty else { return layer }
        let mark = layer.frames.first
        let regions = reusesRedrawnRegions ? layer.redrawnRegions : nil
        let key = RedrawnRegions.Key(rectangle: dirty, glyphs: drawing.glyphs(paintingNear: dirty, reach: mark.conversionReach))
        if let saved = regions?[key], mark.restore(saved, in: dirty) {
            timedTextRegionsReused += 1
            return layer
        }
        drawing.paint(dirty)
        let factor = UInt32(Self.opacityByte(spec.opacity))
        let source = drawing.image.pixels
        // In place: the layer's mark is this layer's alone, and only the dirty rectangle changes.
        mark.replacePixels(in: dirty) { image in
            let width = image.width
            for row in dirty.y..<dirty.maxY {
                for i in ((row * width + dirty.x) * 4)..<((row * width + dirty.maxX) * 4) {
                    // As `scaled(byAlpha:)` does for the whole image.
                    image.pixels[i] = factor == 255 ? source[i] : divideBy255(UInt32(source[i]) * factor)
                }
            }
        }
        regions?.keep(mark.saved(dirty), for: key)
        return layer
    }

    /// The warning for a tiled pattern that leaves a clean square wider than the limit.
    private static func tileWarning(_ tiling: TilePattern.Rendering, spec: LayerSpec, display: (width: Int, height: Int)) -> String {
        let shortSide = Double(min(display.width, display.height))
        let size = "\(tiling.largestCleanSquarePixels) px (\(String(format2: Double(tiling.largestCleanSquarePixels) / shortSide)) of the short side)"
        let frame = "\(display.width)×\(display.height) frame"
        let limit = "\(String(format2: TilePattern.cleanSquareFraction)) of the short side (\(tiling.cleanSquareLimitPixels) px)"
        if spec.tile?.isDense ?? true {
            return "the tiled mark has transparent areas of its own that leave a clean square \(size) wide on a \(frame), even with no gap between marks; wider than \(limit)"
        }
        return "tile spacing \(String(format2: spec.tile?.gapFraction ?? 0)) leaves clean squares up to \(size) wide on a \(frame), wider than \(limit): unmarked detail there could be cut out"
    }

    /// How warnings name a layer: its config origin, else its position.
    static func name(of spec: LayerSpec, index: Int) -> String {
        spec.origin.map { "\($0.file): \($0.path)" } ?? "layer \(index + 1)"
    }
}

extension String {
    /// A number with two decimals, without Foundation's formatter.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
