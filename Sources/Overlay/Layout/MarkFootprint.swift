import Animation

/// Where one layer's mark lands on frames of one display size, without its pixels: the size
/// of the mark, the layout box that placement aligns inside it, and the frame, inset and
/// convention placement works with. `Compositor` places every mark it draws through
/// `displayRect`, so code that needs positions only (leak tracing) gets the same answer.
public struct MarkFootprint: Equatable, Sendable {
    /// The size of the mark's pixels as displayed: text with its outline, shadow and box, a
    /// scaled logo, or the whole frame for a tiled layer.
    public let width: Int
    public let height: Int
    /// The rectangle inside the mark's pixels that placement aligns (see `Sprite.layoutBox`).
    public let layoutBox: PixelRect
    public let displayWidth: Int
    public let displayHeight: Int
    /// The safe margin at the frame's edges, in display pixels.
    public let insetPixels: Double
    public let convention: LayoutConvention
    /// A tiled layer covers the whole frame and does not move.
    public let isTiled: Bool

    public init(width: Int, height: Int, layoutBox: PixelRect, displayWidth: Int, displayHeight: Int,
                insetPixels: Double, convention: LayoutConvention = .standard, isTiled: Bool) {
        self.width = width
        self.height = height
        self.layoutBox = layoutBox
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.insetPixels = insetPixels
        self.convention = convention
        self.isTiled = isTiled
    }

    /// A mark with no pixels (an image box of zero width or height) is never drawn.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The display rectangle the mark's pixels cover when its layer is at (`xPercent`, `yPercent`)
    /// (a `LayerState`'s position). It may reach past the frame where an outline or shadow does.
    public func displayRect(xPercent: Double, yPercent: Double) -> PixelRect {
        if isTiled { return PixelRect(x: 0, y: 0, width: width, height: height) }
        let origin = Placement.origin(boxWidth: layoutBox.width, boxHeight: layoutBox.height,
                                      frameWidth: displayWidth, frameHeight: displayHeight,
                                      insetPixels: insetPixels, xPercent: xPercent, yPercent: yPercent, convention: convention)
        return PixelRect(x: origin.x - layoutBox.x, y: origin.y - layoutBox.y, width: width, height: height)
    }
}
