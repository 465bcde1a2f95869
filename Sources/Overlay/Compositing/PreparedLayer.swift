import Animation

/// A layer ready for one geometry: its mark (or an animation's marks) in storage
/// orientation, plus the display layout box placement aligns.
struct PreparedLayer {
    var frames: PreparedFrames
    /// The mark's size as displayed (before it was turned and squeezed into storage).
    var displayImageSize: (width: Int, height: Int)
    var layoutBox: PixelRect
    var isTiled: Bool
    /// How the tiled pattern covers the frame (tiled layers only).
    var tiling: TilePattern.Rendering?
    /// For a timed text layer, the text this mark shows, and the drawing it was made from when
    /// the next text can be drawn over it (see `TextDrawing`), with the mark's pixels in the
    /// rectangles earlier redraws changed.
    var timedText: String?
    var textDrawing: TextDrawing?
    var redrawnRegions: RedrawnRegions?

    /// A mark with no pixels (an image box of zero width or height) is never blended.
    var isEmpty: Bool { displayImageSize.width <= 0 || displayImageSize.height <= 0 }

    func mark(at time: PresentationTime) -> PreparedMark { frames.mark(at: time) }
}

/// The marks of one layer for one geometry: one, or one per frame of an animated logo, each
/// prepared (scaled, rotated, converted) the first time it is shown and kept for the job.
final class PreparedFrames {
    private var marks: [PreparedMark?]
    private let loop: FrameLoop
    private let make: (Int) -> PreparedMark

    init(_ mark: PreparedMark) {
        marks = [mark]
        first = mark
        loop = .still
        make = { _ in mark }
    }

    init(count: Int, first: PreparedMark, loop: FrameLoop, make: @escaping (Int) -> PreparedMark) {
        precondition(count == loop.frameCount && count > 0, "one mark per animation frame")
        marks = [first] + [PreparedMark?](repeating: nil, count: count - 1)
        self.first = first
        self.loop = loop
        self.make = make
    }

    /// The first animation frame's mark (made when the layer was prepared).
    let first: PreparedMark

    /// The mark of the frame shown at `time`, a pure function of the time.
    func mark(at time: PresentationTime) -> PreparedMark {
        let index = marks.count > 1 ? loop.frameIndex(at: time) : 0
        if let made = marks[index] { return made }
        let made = make(index)
        marks[index] = made
        return made
    }
}
