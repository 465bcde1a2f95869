import Animation

/// Marks prepared from a layer's spec for one geometry: a sprite drawn for the display, then finished into the
/// mark blended on stored frames (`PreparedLayer`). Beside `Compositor`, which it extends.
extension Compositor {
    /// Turns a sprite laid out on the displayed frame into the mark blended on stored frames:
    /// layer opacity premultiplied, tiled over the frame if asked, rotated and squeezed into
    /// storage.
    func finish(_ sprite: Sprite, spec: LayerSpec, geometry: Geometry) -> PreparedLayer {
        let display = geometry.display
        var image = sprite.image.scaled(byAlpha: Self.opacityByte(spec.opacity))
        var layoutBox = sprite.layoutBox
        var tiling: TilePattern.Rendering?
        if let tile = spec.tile, image.width > 0, image.height > 0 {
            let rendering = tile.renderCoveringFrame(tile: image, frameWidth: display.width, frameHeight: display.height)
            image = rendering.image
            layoutBox = PixelRect(x: 0, y: 0, width: display.width, height: display.height)
            tiling = rendering
        }
        let displayImageSize = (image.width, image.height)
        var stored = image.rotated(clockwiseQuarterTurns: 4 - geometry.rotation.clockwiseQuarterTurns)
        if !geometry.pixelAspect.isSquare, stored.width > 0, stored.height > 0 {
            // Squeeze into non-square stored pixels; a frame-sized tile must fill the stored width exactly.
            let width = tiling != nil ? geometry.storedWidth : max(1, geometry.pixelAspect.storedX(ofSquareX: stored.width))
            stored = stored.resized(width: width, height: stored.height)
        }
        let mark = PreparedMark(sprite: Sprite(image: stored, layoutBox: layoutBox), graphicsWhiteNits: spec.hdrWhiteNits)
        return PreparedLayer(frames: PreparedFrames(mark), displayImageSize: displayImageSize, layoutBox: layoutBox,
                             isTiled: tiling != nil, tiling: tiling)
    }

    /// The untiled mark of one layer for a frame of this display size (an animated logo's
    /// first frame; a timed text's text at `time`); internal for the tests.
    func makeSprite(_ spec: LayerSpec, displayWidth: Int, displayHeight: Int, at time: PresentationTime = .zero,
                    warn: (String) -> Void) throws -> Sprite {
        switch spec.content {
        case .timedText(let timed):
            var fixed = spec
            fixed.content = .text(timed.text(TimedText.Frame(time: time, timecode: timecode)))
            return try makeSprite(fixed, displayWidth: displayWidth, displayHeight: displayHeight, warn: warn)
        case .text:
            return try textStyleAndRendering(spec, displayWidth: displayWidth, displayHeight: displayHeight, keepDrawing: false, warn: warn).sprite
        case .image(let logo, let name):
            return imageSprite(spec, frame: logo, name: name, displayWidth: displayWidth, displayHeight: displayHeight, warn: warn)
        case .animatedImage(let animation, let name):
            return imageSprite(spec, frame: animation.frames[0], name: name,
                               displayWidth: displayWidth, displayHeight: displayHeight, warn: warn)
        }
    }

    /// A text layer's sprite, and with `keepDrawing` the drawing a timed text can be redrawn from
    /// (not for TPStreams' line-box layout, whose sprite is adjusted after drawing).
    func textStyleAndRendering(_ spec: LayerSpec, displayWidth: Int, displayHeight: Int, keepDrawing: Bool,
                               warn: (String) -> Void) throws -> (sprite: Sprite, drawing: TextDrawing?) {
        let shortSide = Double(min(displayWidth, displayHeight))
        switch spec.content {
        case .text(let text):
            var requestedCap = spec.sizeFraction * shortSide
            if spec.convention == .tpStreams, requestedCap.isFinite {
                requestedCap = try fonts.capHeightPixels(font: spec.font, emPixels: requestedCap)
            }
            // Below the legible minimum everything grows by one factor, so the mark keeps its proportions.
            let grow = requestedCap.isFinite && requestedCap > 0 ? max(1, Self.minimumCapHeightPixels / requestedCap) : 1
            let length = shortSide * grow
            let maxWidth: Double? = switch (spec.tile, spec.convention) {
            case (.some, _): nil
            case (nil, .standard): spec.maxWidthFraction * Double(displayWidth)
            case (nil, .tpStreams): max(1, Double(displayWidth) - 2 * spec.insetFraction * shortSide)
            }
            let style = TextStyle(
                text: text, font: spec.font, capHeightPixels: requestedCap * grow, color: spec.color,
                maxWidthPixels: maxWidth,
                minimumLegibleCapHeightPixels: Self.legibleCapHeightPixels(shortSide: min(displayWidth, displayHeight)),
                maxLines: spec.maxLines, alignment: spec.alignment,
                outline: spec.outline.map { TextOutline(widthPixels: $0.widthFraction * length, color: $0.color) },
                shadow: spec.shadow.map {
                    TextShadow(offsetXPixels: $0.offsetXFraction * length, offsetYPixels: $0.offsetYFraction * length,
                               blurPixels: $0.blurFraction * length, color: $0.color)
                },
                box: spec.box.map {
                    TextBox(color: $0.color, paddingPixels: $0.paddingFraction * length, cornerRadiusPixels: $0.radiusFraction * length)
                })
            if spec.convention == .tpStreams && spec.tile == nil {
                let rendered = try fonts.renderPlacedByLineBox(style, maxWidthPixels: maxWidth)
                rendered.warnings.forEach(warn)
                return (rendered.sprite, nil)
            }
            let drawing = try fonts.draw(style)
            drawing.rendered.warnings.forEach(warn)
            return (drawing.rendered.sprite, keepDrawing ? drawing : nil)
        default:
            preconditionFailure("textStyleAndRendering is for fixed text layers")
        }
    }

    /// A logo (or one frame of an animated one) scaled for a frame of this display size: its
    /// longer side `sizeFraction` of the short side, or fitted into `imageBox` and centred in it.
    func imageSprite(_ spec: LayerSpec, frame logo: StraightRGBAImage, name: String,
                     displayWidth: Int, displayHeight: Int, warn: (String) -> Void) -> Sprite {
        let shortSide = Double(min(displayWidth, displayHeight))
        let scale: Double
        var box: (width: Int, height: Int)?
        if let imageBox = spec.imageBox {
            let width = Self.pixels(imageBox.widthFraction * shortSide), height = Self.pixels(imageBox.heightFraction * shortSide)
            box = (width, height)
            scale = min(Double(width) / Double(logo.width), Double(height) / Double(logo.height))
        } else {
            scale = max(1, spec.sizeFraction * shortSide) / Double(max(logo.width, logo.height))
        }
        if let box, box.width == 0 || box.height == 0 {
            return Sprite(image: PremultipliedRGBAImage(width: 0, height: 0), layoutBox: PixelRect(x: 0, y: 0, width: box.width, height: box.height))
        }
        if scale > 1.0001 {
            warn("image \(name) is \(logo.width)×\(logo.height) and is upscaled ×\(String(format2: scale)) on a \(displayWidth)×\(displayHeight) frame; a larger file would look sharper")
        }
        let width = max(1, Int((Double(logo.width) * scale).rounded()))
        let height = max(1, Int((Double(logo.height) * scale).rounded()))
        let image = logo.premultiplied().resized(width: width, height: height)
        guard let box else { return Sprite(image: image, layoutBox: PixelRect(x: 0, y: 0, width: width, height: height)) }
        // Centred in its box: the box's origin lies up and left of the image's by half the room.
        return Sprite(image: image, layoutBox: PixelRect(x: -(box.width - width) / 2, y: -(box.height - height) / 2,
                                                         width: box.width, height: box.height))
    }

    /// A length in whole pixels, never negative (a box of 0.4 px draws nothing).
    private static func pixels(_ length: Double) -> Int {
        length.isFinite && length > 0 ? Int(length.rounded()) : 0
    }
}
