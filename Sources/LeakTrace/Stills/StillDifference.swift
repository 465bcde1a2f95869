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

    /// The mean stroke strength over the seen pixels of a display rectangle; nil when less than
    /// `minimumSeen` of it is seen.
    public func meanStrokes(in rect: PlaneRect, minimumSeen: Double = 0.5) -> Double? {
        let x0 = min(max(Int((rect.minX * scale).rounded()), 0), width), x1 = min(max(Int((rect.maxX * scale).rounded()), 0), width)
        let y0 = min(max(Int((rect.minY * scale).rounded()), 0), height), y1 = min(max(Int((rect.maxY * scale).rounded()), 0), height)
        let area = Double(max(1, Int((rect.width * scale).rounded()) * Int((rect.height * scale).rounded())))
        guard x1 > x0, y1 > y0 else { return nil }
        let stride = width + 1
        func sum(_ table: [Double]) -> Double {
            table[y1 * stride + x1] - table[y0 * stride + x1] - table[y1 * stride + x0] + table[y0 * stride + x0]
        }
        let seen = sum(validTable)
        guard seen >= max(4, minimumSeen * area) else { return nil }
        return sum(strokeTable) / seen
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

    /// Boxes (display pixels) around runs of marked pixels: pixels whose stroke strength reaches
    /// `threshold`, joined across gaps of up to `gap` display pixels along a line and one row
    /// down, kept when about the height a mark's line has (`lineHeight`, display pixels) and
    /// wider than tall. The strongest first (by their summed opacity).
    public func markedBoxes(lineHeight: Double, threshold: Float = 0.08, maximumCount: Int = 3) -> [PlaneRect] {
        let gap = max(1, Int((lineHeight * 0.6 * scale).rounded()))
        var marked = [Bool](repeating: false, count: width * height)
        for i in strokes.indices { marked[i] = strokes[i] >= threshold }
        // Close gaps between letters along each row.
        var joined = marked
        for y in 0..<height {
            var lastMarked: Int?
            for x in 0..<width where marked[y * width + x] {
                if let last = lastMarked, x - last <= gap { for fill in last..<x { joined[y * width + fill] = true } }
                lastMarked = x
            }
        }
        var components = ConnectedComponents.boxes(joined, width: width, height: height)
        let low = lineHeight * 0.5 * scale, high = lineHeight * 2.6 * scale
        components = components.filter { Double($0.maxY - $0.minY) <= high }
        // Pieces of one line (a mark broken where the picture under it hides it) joined: they
        // overlap vertically by half the smaller and lie within two line heights of each other.
        var merged = true
        while merged {
            merged = false
            outer: for a in components.indices {
                for b in components.indices where b > a {
                    let first = components[a], second = components[b]
                    let overlap = min(first.maxY, second.maxY) - max(first.minY, second.minY)
                    let gapX = max(first.minX, second.minX) - min(first.maxX, second.maxX)
                    let heights = (Double(first.maxY - first.minY), Double(second.maxY - second.minY))
                    // Pieces of text, not a thin rule or an edge running through them.
                    guard min(heights.0, heights.1) >= 0.4 * max(heights.0, heights.1), min(heights.0, heights.1) >= low,
                          Double(overlap) >= 0.5 * min(heights.0, heights.1), Double(gapX) <= 2 * lineHeight * scale else { continue }
                    components[a] = (min(first.minX, second.minX), min(first.minY, second.minY), max(first.maxX, second.maxX), max(first.maxY, second.maxY))
                    components.remove(at: b)
                    merged = true
                    break outer
                }
            }
        }
        let boxes = components.filter { box in
            let boxHeight = Double(box.maxY - box.minY), boxWidth = Double(box.maxX - box.minX)
            return boxHeight >= low && boxHeight <= high && boxWidth >= boxHeight
        }
        func strength(_ box: (minX: Int, minY: Int, maxX: Int, maxY: Int)) -> Float {
            var sum: Float = 0
            for y in box.minY..<box.maxY { for x in box.minX..<box.maxX { sum += strokes[y * width + x] } }
            return sum
        }
        let ranked: [(box: (minX: Int, minY: Int, maxX: Int, maxY: Int), strength: Float)] = boxes.map { ($0, strength($0)) }
        let strongest = ranked.sorted { $0.strength > $1.strength }.prefix(maximumCount)
        return strongest.map { entry -> PlaneRect in
            let box = entry.box
            return PlaneRect(minX: Double(box.minX) / scale, minY: Double(box.minY) / scale,
                             maxX: Double(box.maxX) / scale, maxY: Double(box.maxY) / scale)
        }
    }
}

/// Bounding boxes of 8-connected regions of true pixels.
enum ConnectedComponents {
    static func boxes(_ mask: [Bool], width: Int, height: Int) -> [(minX: Int, minY: Int, maxX: Int, maxY: Int)] {
        var seen = [Bool](repeating: false, count: mask.count)
        var boxes: [(minX: Int, minY: Int, maxX: Int, maxY: Int)] = []
        var stack: [Int] = []
        for start in mask.indices where mask[start] && !seen[start] {
            var box = (minX: Int.max, minY: Int.max, maxX: Int.min, maxY: Int.min)
            stack.append(start)
            seen[start] = true
            while let index = stack.popLast() {
                let x = index % width, y = index / width
                box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x + 1), max(box.maxY, y + 1))
                for dy in -1...1 {
                    for dx in -1...1 {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                        let n = ny * width + nx
                        if mask[n] && !seen[n] { seen[n] = true; stack.append(n) }
                    }
                }
            }
            boxes.append(box)
        }
        return boxes
    }
}
