import Animation

/// Frames in presentation order, one at a time: how the tracer reads the leak and the original
/// without holding either in memory. Times are seconds from the stream's first frame.
///
/// Moving on and converting are separate steps, because the tracer looks at only some of the
/// original's frames (those nearest the leak's samples) and converting is what costs.
public protocol LumaFrameSource {
    /// Moves to the next frame and returns the time it is shown; nil at the end.
    mutating func advance() throws -> Double?
    /// The picture of the frame `advance` last moved to.
    mutating func picture() throws -> LumaImage
    /// The same picture shrunk to `width` pixels wide, its shape kept (see `thumbnail(_:width:)`);
    /// a source that decodes can make it straight from the decoded frame.
    mutating func thumbnail(width: Int) throws -> LumaImage
}

extension LumaFrameSource {
    public mutating func thumbnail(width: Int) throws -> LumaImage {
        LeakTrace.thumbnail(try picture(), width: width)
    }

    /// The next frame with its picture.
    public mutating func next() throws -> TimedLuma? {
        guard let time = try advance() else { return nil }
        return TimedLuma(time: time, image: try picture())
    }
}
