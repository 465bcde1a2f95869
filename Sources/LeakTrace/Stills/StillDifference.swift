import Foundation

/// The still compared with the original's frame at its instant, on a grid over the original's
/// display: for each pixel, the opacity a mark of the marks' colours would need there to turn
/// the original into the still. A mark's glyphs stand out at about the layer's opacity; the
/// rest of the picture, whatever its brightness, stays near zero. This is what the marks'
/// positions are scored on (`StillEvidence`), independently of what OCR reads.
public struct StillDifference: Sendable {
    /// Grid pixels per display pixel.
    public let scale: Double
    public let width: Int
    public let height: Int
    /// 0…1 per grid pixel; 0 where the still is not seen.
    public let opacity: [Float]
    /// How much the opacity changes within a stroke's width: glyphs' strokes, not a translucent
    /// bar (a player's controls) or a tint, which are as even as the picture under them.
    public let strokes: [Float]
    public let valid: [Bool]
    /// How the original's frame is turned into what the still would show without marks: softened
    /// as the still is, tones fitted, with the range a pixel of misregistration allows.
    public let background: MarkBackground
    /// Summed-area tables of the strokes and of the valid pixels, (width + 1) × (height + 1).
    let strokeTable: [Double]
    let validTable: [Double]

    public var fit: PhotometricFit { background.fit }
    public var blurRadius: Int { background.blurRadius }

    /// `still`: the still warped onto the grid (`StillView`-like); `original`: the frame at the
    /// same grid; `marks`: the marks' grey levels (0…255: text, outline, shadow) as the
    /// original's frames have them; `lineHeight`: a mark's capitals' height in display pixels.
    public init(still: WarpedPicture, original: LumaImage, scale: Double, marks: MarkColors, lineHeight: Double) {
        precondition(still.image.width == original.width && still.image.height == original.height, "one grid")
        self.scale = scale
        width = original.width
        height = original.height
        valid = still.valid
        // Tones fitted in blocks of a line's height.
        background = MarkBackground(still: still, original: original, block: max(8, Int((lineHeight * scale).rounded())))
        opacity = background.opacity(of: still, marks: marks)
        // A stroke is about a tenth of the capitals' height: compared with the mean over a third of it.
        let radius = max(1, Int((lineHeight * scale / 6).rounded()))
        let even = LumaImage(width: width, height: height, pixels: opacity).boxBlurred(radius: radius).pixels
        strokes = zip(opacity, even).map { abs($0 - $1) }
        strokeTable = Self.summedArea(strokes, width: width, height: height)
        validTable = Self.summedArea(still.valid.map { $0 ? 1 : 0 }, width: width, height: height)
    }

    /// How much a display rectangle stands out as a mark: the mean stroke strength over its seen
    /// pixels less the mean over a band around it as wide as `ring` display pixels (a rectangle
    /// a little off a mark keeps most of its strokes, but finds some in its band: the band makes
    /// the value peak where the rectangle fits the mark). Nil when less than `minimumSeen` of
    /// the rectangle is seen.
    public func markStrength(in rect: PlaneRect, ring: Double, minimumSeen: Double = 0.5) -> Double? {
        guard let inside = sums(rect), inside.seen >= max(4, minimumSeen * rect.area * scale * scale) else { return nil }
        let mean = inside.strokes / inside.seen
        guard ring > 0, let around = sums(rect.insetBy(dx: -ring, dy: -ring)), around.seen - inside.seen >= 4 else { return mean }
        return mean - (around.strokes - inside.strokes) / (around.seen - inside.seen)
    }

    /// The summed strokes and seen pixels of a display rectangle (clipped to the grid).
    private func sums(_ rect: PlaneRect) -> (strokes: Double, seen: Double)? {
        let x0 = min(max(Int((rect.minX * scale).rounded()), 0), width), x1 = min(max(Int((rect.maxX * scale).rounded()), 0), width)
        let y0 = min(max(Int((rect.minY * scale).rounded()), 0), height), y1 = min(max(Int((rect.maxY * scale).rounded()), 0), height)
        guard x1 > x0, y1 > y0 else { return nil }
        let stride = width + 1
        func sum(_ table: [Double]) -> Double {
            table[y1 * stride + x1] - table[y0 * stride + x1] - table[y1 * stride + x0] + table[y0 * stride + x0]
        }
        return (sum(strokeTable), sum(validTable))
    }

    static func summedArea(_ values: [Float], width: Int, height: Int) -> [Double] {
        let stride = width + 1
        var table = [Double](repeating: 0, count: stride * (height + 1))
        table.withUnsafeMutableBufferPointer { t in
            values.withUnsafeBufferPointer { v in
                for y in 0..<height {
                    var row = 0.0
                    for x in 0..<width {
                        row += Double(v[y * width + x])
                        t[(y + 1) * stride + x + 1] = t[y * stride + x + 1] + row
                    }
                }
            }
        }
        return table
    }
}
