import Animation

/// What one layer draws, once placeholders are filled in. Sizes are fractions of the
/// frame's short side (display orientation), so one layer looks alike on every frame size.
public struct LayerSpec: Sendable {
    public enum Content: Sendable {
        case text(String)
        /// A decoded logo; `name` (its path or URL) is used in messages.
        case image(StraightRGBAImage, name: String)
        /// An animated logo, played by presentation time and looped.
        case animatedImage(AnimatedImage, name: String)
        /// Text that changes with the frame's presentation time (a timecode, the time itself).
        case timedText(TimedText)
    }

    /// Whose layout rules size and place a layer (declared with placement, in Layout/, which sorts before this).
    public typealias LayoutConvention = Overlay.LayoutConvention

    /// The box an image is fitted into, in fractions of the short side (TPStreams' `width`
    /// and `height` points over the 360-point reference side): the image is scaled to the
    /// largest size that fits inside with its aspect kept, and centred in the box; placement
    /// aligns the box. A zero width or height draws nothing.
    public struct ImageBox: Equatable, Sendable {
        public var widthFraction: Double
        public var heightFraction: Double
        public init(widthFraction: Double, heightFraction: Double) {
            self.widthFraction = widthFraction
            self.heightFraction = heightFraction
        }
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
    /// Text: cap height (em size for `.tpStreams`); image: the longer side (unless `imageBox`).
    public var sizeFraction: Double
    public var font: FontSpec
    public var color: RGBAColor
    /// 0…1, multiplies the colour's (or image's) own alpha.
    public var opacity: Double
    public var insetFraction: Double
    /// Text wider than this fraction of the frame width is shrunk, or wrapped, to fit.
    public var maxWidthFraction: Double
    /// Lines a long text may wrap onto before it shrinks below the legible cap height
    /// (`Compositor.legibleCapHeightPixels`).
    public var maxLines: Int
    /// How the lines of a multi-line text line up.
    public var alignment: TextAlignment
    public var outline: Outline?
    public var shadow: Shadow?
    public var box: Box?
    public var tile: TilePattern?
    public var timeline: LayerTimeline
    public var origin: Origin?
    /// On PQ and HLG frames, the display luminance (cd/m²) the mark's white is placed at.
    public var hdrWhiteNits: Double
    public var convention: LayoutConvention
    /// For images: a box to fit into instead of `sizeFraction`'s longer side.
    public var imageBox: ImageBox?
    /// For a variant layer (tiled): its variants, one of which each frame shows (`VariantSchedule`).
    public var variants: LayerVariants?

    public init(content: Content, sizeFraction: Double, font: FontSpec = .family(FontLibrary.defaultFamily),
                color: RGBAColor = .white, opacity: Double, insetFraction: Double = 0.03, maxWidthFraction: Double = 0.9,
                outline: Outline? = nil, shadow: Shadow? = nil, box: Box? = nil, tile: TilePattern? = nil,
                timeline: LayerTimeline, origin: Origin? = nil,
                hdrWhiteNits: Double = GraphicsWhiteMapping.defaultWhiteNits, convention: LayoutConvention = .standard,
                imageBox: ImageBox? = nil, maxLines: Int = 2, alignment: TextAlignment = .center,
                variants: LayerVariants? = nil) {
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
        self.hdrWhiteNits = hdrWhiteNits
        self.convention = convention
        self.imageBox = imageBox
        self.maxLines = maxLines
        self.alignment = alignment
        self.variants = variants
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

/// The text of a layer as a function of the frame it is drawn on, evaluated for every frame.
///
/// The function must be pure (the same frame gives the same text, as the guarantees ask of every
/// mark) and cheap: it runs once per frame. Consecutive frames with the same text reuse the
/// prepared mark; a changed text is redrawn where it changed (see `TextDrawing`), its glyphs
/// coming from the font library's cache, so only glyphs never drawn before are rasterised.
public struct TimedText: Sendable {
    /// What the text of a frame may depend on.
    public struct Frame: Sendable {
        /// Seconds since the first frame.
        public var time: PresentationTime
        /// The video's timecode clock (frame rate and start timecode) as the pipeline set it on
        /// the compositor (`Compositor.timecode`); nil for a still image.
        public var timecode: Timecode?

        public init(time: PresentationTime, timecode: Timecode? = nil) {
            self.time = time
            self.timecode = timecode
        }
    }

    public let text: @Sendable (Frame) -> String

    public init(frame text: @escaping @Sendable (Frame) -> String) {
        self.text = text
    }

    /// A text that depends on the presentation time only.
    public init(_ text: @escaping @Sendable (PresentationTime) -> String) {
        self.text = { text($0.time) }
    }
}
