import Animation

/// What one layer draws, once placeholders are filled in. Sizes are fractions of the
/// frame's short side (display orientation), so one layer looks alike on every frame size.
public struct LayerSpec: Sendable {
    public enum Content: Sendable {
        case text(String)
        /// A decoded logo; `name` (its path or URL) is used in messages.
        case image(StraightRGBAImage, name: String)
    }

    public struct Outline: Equatable, Sendable {
        public var widthFraction: Double
        public var color: RGBAColor
        public init(widthFraction: Double, color: RGBAColor) { self.widthFraction = widthFraction; self.color = color }
    }

    public struct Shadow: Equatable, Sendable {
        public var offsetXFraction: Double
        public var offsetYFraction: Double
        public var blurFraction: Double
        public var color: RGBAColor
        public init(offsetXFraction: Double, offsetYFraction: Double, blurFraction: Double, color: RGBAColor) {
            self.offsetXFraction = offsetXFraction
            self.offsetYFraction = offsetYFraction
            self.blurFraction = blurFraction
            self.color = color
        }
    }

    public struct Box: Equatable, Sendable {
        public var color: RGBAColor
        public var paddingFraction: Double
        public var radiusFraction: Double
        public init(color: RGBAColor, paddingFraction: Double, radiusFraction: Double) {
            self.color = color
            self.paddingFraction = paddingFraction
            self.radiusFraction = radiusFraction
        }
    }

    /// Where a layer was defined, so a failure can name it: for a config layer, the config
    /// file and the layer's JSON path (`watermarks[2]`).
    public struct Origin: Equatable, Sendable {
        public var file: String
        public var path: String
        public init(file: String, path: String) { self.file = file; self.path = path }
    }

    public var content: Content
    /// Text: cap height; image: the longer side.
    public var sizeFraction: Double
    public var font: FontSpec
    public var color: RGBAColor
    /// 0…1, multiplies the colour's (or image's) own alpha.
    public var opacity: Double
    public var insetFraction: Double
    /// Text wider than this fraction of the frame width is shrunk to fit.
    public var maxWidthFraction: Double
    public var outline: Outline?
    public var shadow: Shadow?
    public var box: Box?
    public var tile: TilePattern?
    public var timeline: LayerTimeline
    public var origin: Origin?

    public init(content: Content, sizeFraction: Double, font: FontSpec = .family(FontLibrary.defaultFamily),
                color: RGBAColor = .white, opacity: Double, insetFraction: Double = 0.03, maxWidthFraction: Double = 0.9,
                outline: Outline? = nil, shadow: Shadow? = nil, box: Box? = nil, tile: TilePattern? = nil,
                timeline: LayerTimeline, origin: Origin? = nil) {
        self.content = content
        self.sizeFraction = sizeFraction
        self.font = font
        self.color = color
        self.opacity = opacity
        self.insetFraction = insetFraction
        self.maxWidthFraction = maxWidthFraction
        self.outline = outline
        self.shadow = shadow
        self.box = box
        self.tile = tile
        self.timeline = timeline
        self.origin = origin
    }
}

/// A layer that could not be prepared: which one, and why (`underlying` is usually a
/// `TextRenderingError`). Callers map it to their own messages and exit codes.
public struct LayerPreparationError: Error, CustomStringConvertible {
    /// The layer's position in `Compositor.layers`.
    public var layerIndex: Int
    /// Where the layer was defined, when its spec says.
    public var origin: LayerSpec.Origin?
    public var underlying: any Error

    public init(layerIndex: Int, origin: LayerSpec.Origin?, underlying: any Error) {
        self.layerIndex = layerIndex
        self.origin = origin
        self.underlying = underlying
    }

    public var description: String {
        guard let origin else { return "layer \(layerIndex + 1): \(underlying)" }
        return "\(origin.file): \(origin.path): \(underlying)"
    }
}

/// Draws a job's layers onto frames.
///
/// Expensive work happens once per frame geometry (size and rotation): text is shaped and
/// rasterised, logos scaled, tiles laid out, opacity premultiplied. Per frame only the
/// timelines are evaluated and the marks blended where they land, so a still and a video
/// frame of the same size and time get identical marks.
///
/// One compositor per job and thread: it caches prepared marks and is not thread-safe.
public final class Compositor {
    /// The smallest cap height text is drawn at, in pixels: on a thumbnail a fraction of the
    /// short side can come out too small to read (0.02 of 300 px is 6 px), so the text, with its
    /// outline, shadow and box, grows to this. `maxWidth` still wins, so the text stays in the frame.
    public static let minimumCapHeightPixels = 8.0

    public let layers: [LayerSpec]
    private let fonts: FontLibrary
    private let warn: (String) -> Void
    private var prepared: [Geometry: [PreparedLayer]] = [:]

    private struct Geometry: Hashable {
        var storedWidth: Int
        var storedHeight: Int
        var rotation: DisplayRotation
        var pixelAspect: PixelAspect

        /// The picture as a viewer sees it: square pixels, rotated upright.
        var display: (width: Int, height: Int) {
            rotation.displaySize(storedWidth: pixelAspect.squareWidth(ofStoredWidth: storedWidth), storedHeight: storedHeight)
        }
    }

    /// A layer ready for one geometry: the mark in storage orientation plus its display layout box.
    private struct PreparedLayer {
        var mark: PreparedMark
        /// The mark's size as displayed (before it was turned and squeezed into storage).
        var displayImageSize: (width: Int, height: Int)
        var layoutBox: PixelRect
        var isTiled: Bool
    }

    public init(layers: [LayerSpec], fonts: FontLibrary, warn: @escaping (String) -> Void = { _ in }) {
        self.layers = layers
        self.fonts = fonts
        self.warn = warn
    }

    /// Whether any layer could ever draw (an empty config leaves frames untouched).
    public var isEmpty: Bool { layers.isEmpty }

    /// Whether any layer draws at `time` (the same test `composite` applies), so callers can
    /// skip preparing a frame for marks that are hidden there (intervals, start/end, fades).
    public func drawsAnything(at time: PresentationTime) -> Bool {
        layers.contains { Self.opacityByte($0.timeline.state(at: time).opacity) > 0 }
    }

    private static func opacityByte(_ opacity: Double) -> UInt8 {
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
            guard case .text = spec.content else { continue }
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
        let layersForFrame = try preparedLayers(for: geometry)
        let display = geometry.display
        let squareWidth = pixelAspect.squareWidth(ofStoredWidth: canvas.width)
        let shortSide = Double(min(display.width, display.height))
        for (spec, layer) in zip(layers, layersForFrame) {
            let state = spec.timeline.state(at: time)
            let opacity = Self.opacityByte(state.opacity)
            guard opacity > 0 else { continue }
            if layer.isTiled {
                canvas.blend(layer.mark, atX: 0, y: 0, opacity: opacity)
                continue
            }
            let origin = Placement.origin(boxWidth: layer.layoutBox.width, boxHeight: layer.layoutBox.height,
                                          frameWidth: display.width, frameHeight: display.height,
                                          insetPixels: spec.insetFraction * shortSide,
                                          xPercent: state.xPercent, yPercent: state.yPercent)
            let displayRect = PixelRect(x: origin.x - layer.layoutBox.x, y: origin.y - layer.layoutBox.y,
                                        width: layer.displayImageSize.width, height: layer.displayImageSize.height)
            // Display → stored orientation (in square pixels) → stored pixels.
            let square = rotation.storedRect(ofDisplayRect: displayRect, storedWidth: squareWidth, storedHeight: canvas.height)
            canvas.blend(layer.mark, atX: pixelAspect.storedX(ofSquareX: square.x), y: square.y, opacity: opacity)
        }
    }

    private func preparedLayers(for geometry: Geometry) throws -> [PreparedLayer] {
        if let cached = prepared[geometry] { return cached }
        let display = geometry.display
        var result: [PreparedLayer] = []
        for (index, spec) in layers.enumerated() {
            let sprite: Sprite
            do {
                sprite = try makeSprite(spec, displayWidth: display.width, displayHeight: display.height, warn: warn)
            } catch {
                throw LayerPreparationError(layerIndex: index, origin: spec.origin, underlying: error)
            }
            var image = sprite.image.scaled(byAlpha: UInt8((min(max(spec.opacity, 0), 1) * 255).rounded()))
            var layoutBox = sprite.layoutBox
            var isTiled = false
            if let tile = spec.tile {
                let tiled = tile.renderCoveringFrame(tile: image, frameWidth: display.width, frameHeight: display.height)
                if !tiled.coversFrame {
                    warn("\(Self.name(of: spec, index: index)): the tiled mark has transparent areas of its own wide enough to leave parts of a \(display.width)×\(display.height) frame clean, even with no gap between marks")
                }
                image = tiled.image
                layoutBox = PixelRect(x: 0, y: 0, width: display.width, height: display.height)
                isTiled = true
            }
            let displayImageSize = (image.width, image.height)
            var stored = image.rotated(clockwiseQuarterTurns: 4 - geometry.rotation.clockwiseQuarterTurns)
            if !geometry.pixelAspect.isSquare {
                // Squeeze into non-square stored pixels; a frame-sized tile must fill the stored width exactly.
                let width = isTiled ? geometry.storedWidth : max(1, geometry.pixelAspect.storedX(ofSquareX: stored.width))
                stored = stored.resized(width: width, height: stored.height)
            }
            result.append(PreparedLayer(mark: PreparedMark(sprite: Sprite(image: stored, layoutBox: layoutBox)),
                                        displayImageSize: displayImageSize, layoutBox: layoutBox, isTiled: isTiled))
        }
        prepared[geometry] = result
        return result
    }

    /// How warnings name a layer: its config origin, else its position.
    private static func name(of spec: LayerSpec, index: Int) -> String {
        spec.origin.map { "\($0.file): \($0.path)" } ?? "layer \(index + 1)"
    }

    /// The untiled mark of one layer for a frame of this display size (internal for the tiling tests).
    func makeSprite(_ spec: LayerSpec, displayWidth: Int, displayHeight: Int, warn: (String) -> Void) throws -> Sprite {
        let shortSide = Double(min(displayWidth, displayHeight))
        switch spec.content {
        case .text(let text):
            let requestedCap = spec.sizeFraction * shortSide
            // Below the legible minimum everything grows by one factor, so the mark keeps its proportions.
            let grow = requestedCap.isFinite && requestedCap > 0 ? max(1, Self.minimumCapHeightPixels / requestedCap) : 1
            let length = shortSide * grow
            let style = TextStyle(
                text: text, font: spec.font, capHeightPixels: requestedCap * grow, color: spec.color,
                maxWidthPixels: spec.tile == nil ? spec.maxWidthFraction * Double(displayWidth) : nil,
                outline: spec.outline.map { TextOutline(widthPixels: $0.widthFraction * length, color: $0.color) },
                shadow: spec.shadow.map {
                    TextShadow(offsetXPixels: $0.offsetXFraction * length, offsetYPixels: $0.offsetYFraction * length,
                               blurPixels: $0.blurFraction * length, color: $0.color)
                },
                box: spec.box.map {
                    TextBox(color: $0.color, paddingPixels: $0.paddingFraction * length, cornerRadiusPixels: $0.radiusFraction * length)
                })
            let rendered = try fonts.render(style)
            rendered.warnings.forEach(warn)
            return rendered.sprite
        case .image(let logo, let name):
            let longer = max(logo.width, logo.height)
            let target = max(1, spec.sizeFraction * shortSide)
            let scale = target / Double(longer)
            if scale > 1.0001 {
                warn("image \(name) is \(logo.width)×\(logo.height) and is upscaled ×\(String(format2: scale)) on a \(displayWidth)×\(displayHeight) frame; a larger file would look sharper")
            }
            let width = max(1, Int((Double(logo.width) * scale).rounded()))
            let height = max(1, Int((Double(logo.height) * scale).rounded()))
            let image = logo.premultiplied().resized(width: width, height: height)
            return Sprite(image: image, layoutBox: PixelRect(x: 0, y: 0, width: width, height: height))
        }
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
