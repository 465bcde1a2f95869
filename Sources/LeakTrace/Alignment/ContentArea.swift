/// Finds the part of a leak's frames that shows picture: inside any bars (letterbox or
/// pillarbox) added when the leak was scaled into another shape.
///
/// A bar is a run of rows (or columns) from an edge that are dark and flat in every frame
/// looked at and do not change from frame to frame. A dark flat band of the picture itself next
/// to an edge (a plain title bar), or a black bar a leaker drew there, may be taken for a bar
/// too; `LeakAnalyzer` also tries the whole picture, so the better match decides.
public enum ContentArea {
    /// How far (luma levels) a bar's pixels may stray from flat, across a line and across frames:
    /// re-encoding leaves some ringing near the picture's edge.
    static let flatnessTolerance: Float = 10
    /// Bars take at most this share of each dimension; beyond it, the frames are just dark.
    static let largestBarShare = 0.35
    /// Bars are dark (a player's or an encoder's letterbox); a flat light band at an edge is
    /// the picture's own (a slide's plain footer), whatever covers it is left to the tracer's
    /// masks.
    static let darkestBarLevel: Float = 48

    /// The content rectangle in the frames' pixel units; the whole frame when there are no bars.
    /// Needs at least one frame; frames must share one size.
    public static func detect(in frames: [LumaImage]) -> PlaneRect {
        precondition(!frames.isEmpty, "content area of no frames")
        let width = frames[0].width, height = frames[0].height
        precondition(frames.allSatisfy { $0.width == width && $0.height == height }, "frames of one size")

        // Per frame and line: the line's mean and spread (max − min).
        func lineStats(_ frame: LumaImage, index: Int, isRow: Bool) -> (mean: Float, spread: Float) {
            let count = isRow ? width : height
            var low = Float.infinity, high = -Float.infinity, sum: Float = 0
            frame.pixels.withUnsafeBufferPointer { p in
                for i in 0..<count {
                    let value = isRow ? p[index * width + i] : p[i * width + index]
                    low = min(low, value)
                    high = max(high, value)
                    sum += value
                }
            }
            return (sum / Float(count), high - low)
        }
        func isBarLine(_ index: Int, isRow: Bool) -> Bool {
            var means: [Float] = []
            for frame in frames {
                let stats = lineStats(frame, index: index, isRow: isRow)
                guard stats.spread <= flatnessTolerance, stats.mean <= darkestBarLevel else { return false }
                means.append(stats.mean)
            }
            return (means.max()! - means.min()!) <= flatnessTolerance
        }
        func barLength(lines: Int, isRow: Bool, fromStart: Bool) -> Int {
            let limit = Int(Double(lines) * largestBarShare)
            var length = 0
            while length < limit, isBarLine(fromStart ? length : lines - 1 - length, isRow: isRow) { length += 1 }
            // A lone flat line at the edge is an encoder's padding or ringing, not a bar.
            return length >= 2 ? length : 0
        }
        let top = barLength(lines: height, isRow: true, fromStart: true)
        let bottom = barLength(lines: height, isRow: true, fromStart: false)
        let left = barLength(lines: width, isRow: false, fromStart: true)
        let right = barLength(lines: width, isRow: false, fromStart: false)
        return PlaneRect(minX: Double(left), minY: Double(top), maxX: Double(width - right), maxY: Double(height - bottom))
    }
}
