import Overlay

/// What a variant layer's q variants draw on the original's display: per variant, the light the
/// mark puts in (premultiplied luma, in the grey frames' units) and how much of the picture it
/// covers (alpha, 0…1). Drawn once per trace by the compositor (VideoWM binds the layer and
/// renders each variant onto a transparent frame of the original's display size).
public struct VariantPatterns: Sendable {
    public let displayWidth: Int
    public let displayHeight: Int
    public let addedLuma: [LumaImage]
    public let coverage: [LumaImage]

    public init(addedLuma: [LumaImage], coverage: [LumaImage]) {
        precondition(!addedLuma.isEmpty && addedLuma.count == coverage.count, "luma and coverage per variant")
        precondition(zip(addedLuma, coverage).allSatisfy { $0.width == $1.width && $0.height == $1.height }
                     && addedLuma.allSatisfy { $0.width == addedLuma[0].width && $0.height == addedLuma[0].height },
                     "every variant drawn on the same display")
        displayWidth = addedLuma[0].width
        displayHeight = addedLuma[0].height
        self.addedLuma = addedLuma
        self.coverage = coverage
    }

    public var count: Int { addedLuma.count }

    /// The patterns of renders of the layer alone (straight alpha, on a transparent frame of the
    /// original's display size), for grey frames whose black and white are `black` and `white`
    /// (0 and 255 for full range; 16 and 235 for video's limited range): a pixel of colour c and
    /// alpha α adds α·(black + (white − black)·Y(c)/255), Y the BT.709 luma.
    public init(straightRGBA renders: [StraightRGBAImage], black: Float = 0, white: Float = 255) {
        var added: [LumaImage] = [], coverage: [LumaImage] = []
        for render in renders {
            var luma = [Float](repeating: 0, count: render.width * render.height)
            var alpha = luma
            render.pixels.withUnsafeBufferPointer { p in
                for i in luma.indices {
                    let a = Float(p[i * 4 + 3]) / 255
                    guard a > 0 else { continue }
                    let y = 0.2126 * Float(p[i * 4]) + 0.7152 * Float(p[i * 4 + 1]) + 0.0722 * Float(p[i * 4 + 2])
                    alpha[i] = a
                    luma[i] = a * (black + (white - black) * y / 255)
                }
            }
            added.append(LumaImage(width: render.width, height: render.height, pixels: luma))
            coverage.append(LumaImage(width: render.width, height: render.height, pixels: alpha))
        }
        self.init(addedLuma: added, coverage: coverage)
    }
}

/// The code's periods on the original's clock: period i is position i of the code (segment i of
/// the presentation's plan), from `starts[i]` to the next start.
public struct VariantPeriods: Sendable {
    public let starts: [Double]
    /// Seconds left out on both sides of every boundary: the alignment is known to a frame or
    /// two, and a frame there may show either period's variant.
    public var guardSeconds = 0.25

    public init(starts: [Double]) {
        precondition(!starts.isEmpty && zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 }, "periods in order")
        self.starts = starts
    }

    /// Periods every `seconds` from 0, `count` of them.
    public init(everySeconds seconds: Double, count: Int) {
        self.init(starts: (0..<count).map { Double($0) * seconds })
    }

    /// The period whose steady part holds original time `seconds`; nil near a boundary or outside.
    public func period(at seconds: Double) -> Int? {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        let index = low - 1
        guard index >= 0, seconds - starts[index] >= guardSeconds else { return nil }
        if index + 1 < starts.count, starts[index + 1] - seconds < guardSeconds { return nil }
        // The last period ends where the periods before it would: one median length after its start.
        if index + 1 == starts.count, starts.count > 1, seconds - starts[index] > (starts[index] - starts[index - 1]) - guardSeconds { return nil }
        return index
    }
}
