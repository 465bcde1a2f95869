/// One rasterised glyph: 8-bit coverage, placed relative to the pen position on the baseline
/// (`left` pixels right of it, `top` pixels above it, y up as FreeType counts).
struct GlyphCoverage {
    var width: Int
    var height: Int
    var left: Int
    var top: Int
    var pixels: [UInt8]

    static let empty = GlyphCoverage(width: 0, height: 0, left: 0, top: 0, pixels: [])

    /// The coverage grown by a radius (a disc-shaped maximum filter): the outline of a glyph that
    /// has no outline to stroke, such as a colour bitmap. Coverage at the disc's rim is weighted
    /// by how far the rim reaches into that pixel, so the grown edge stays anti-aliased.
    func dilated(radius26Dot6: Int) -> GlyphCoverage {
        let radius = Double(radius26Dot6) / 64
        let reach = Int(radius.rounded(.up))
        guard reach > 0, width > 0 else { return self }
        let newWidth = width + 2 * reach, newHeight = height + 2 * reach
        // Offsets within the disc and the share of each one's pixel inside it.
        var offsets: [(dx: Int, dy: Int, weight: UInt32)] = []
        for dy in -reach...reach {
            for dx in -reach...reach {
                let inside = radius + 0.5 - (Double(dx * dx + dy * dy)).squareRoot()
                if inside > 0 { offsets.append((dx, dy, UInt32(min(1, inside) * 255))) }
            }
        }
        var grown = [UInt8](repeating: 0, count: newWidth * newHeight)
        for y in 0..<height {
            for x in 0..<width {
                let value = UInt32(pixels[y * width + x])
                guard value != 0 else { continue }
                for offset in offsets {
                    let target = (y + reach + offset.dy) * newWidth + x + reach + offset.dx
                    let weighted = UInt8(divideBy255(value * offset.weight))
                    if weighted > grown[target] { grown[target] = weighted }
                }
            }
        }
        return GlyphCoverage(width: newWidth, height: newHeight, left: left - reach, top: top + reach, pixels: grown)
    }

    /// The covered rectangle when the pen is at (`x`, baseline `y`) in y-down image coordinates.
    func rect(penX x: Int, baselineY y: Int) -> PixelRect {
        PixelRect(x: x + left, y: y - top, width: width, height: height)
    }
}

/// An 8-bit coverage (alpha) plane the size of the text's image: one per sublayer (fill,
/// outline, shadow, plate) before they are coloured and composed.
struct CoveragePlane {
    let width: Int
    let height: Int
    var values: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        values = [UInt8](repeating: 0, count: width * height)
    }

    /// Draws `glyph` with its pen at (`x`, baseline `y`), keeping the larger coverage where
    /// glyphs overlap (so touching edges do not darken), clipped to the plane.
    mutating func drawMax(_ glyph: GlyphCoverage, penX x: Int, baselineY y: Int, clip: PixelRect? = nil) {
        var target = glyph.rect(penX: x, baselineY: y).intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        if let clip { target = target.intersection(clip) }
        guard !target.isEmpty else { return }
        let sourceX = target.x - (x + glyph.left), sourceY = target.y - (y - glyph.top)
        let planeWidth = width
        glyph.pixels.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { plane in
                for row in 0..<target.height {
                    let from = (sourceY + row) * glyph.width + sourceX
                    let to = (target.y + row) * planeWidth + target.x
                    for column in 0..<target.width where source[from + column] > plane[to + column] {
                        plane[to + column] = source[from + column]
                    }
                }
            }
        }
    }

    /// Sets `rect` (clipped to the plane) to zero coverage.
    mutating func clear(_ rect: PixelRect) {
        let area = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !area.isEmpty else { return }
        for row in area.y..<area.maxY {
            let start = row * width + area.x
            values.replaceSubrange(start..<(start + area.width), with: repeatElement(0, count: area.width))
        }
    }

    /// Blurs the plane with three box blurs per direction, which together approximate a
    /// Gaussian of standard deviation `sigma` (W3C "boxes for Gauss" sizes). Coverage outside
    /// the plane counts as zero, so callers leave `blurExtent(sigma:)` pixels of margin.
    mutating func gaussianBlur(sigma: Double) {
        let radii = CoveragePlane.boxRadii(sigma: sigma)
        guard radii.contains(where: { $0 > 0 }) else { return }
        var scratch = [UInt8](repeating: 0, count: values.count)
        for radius in radii where radius > 0 {
            CoveragePlane.boxBlurRows(from: values, into: &scratch, width: width, height: height, radius: radius)
            swap(&values, &scratch)
        }
        for radius in radii where radius > 0 {
            CoveragePlane.boxBlurColumns(from: values, into: &scratch, width: width, height: height, radius: radius)
            swap(&values, &scratch)
        }
    }

    /// How far a blur of `sigma` spreads coverage, in pixels.
    static func blurExtent(sigma: Double) -> Int { boxRadii(sigma: sigma).reduce(0, +) }

    /// Radii of three box filters whose sequence has the variance of a Gaussian of `sigma`.
    static func boxRadii(sigma: Double) -> [Int] {
        guard sigma > 0 else { return [0, 0, 0] }
        let passes = 3.0
        let variance12 = 12 * sigma * sigma
        var lower = Int((variance12 / passes + 1).squareRoot())
        if lower % 2 == 0 { lower -= 1 }
        let wl = Double(lower)
        let lowerCount = Int(((variance12 - passes * wl * wl - 4 * passes * wl - 3 * passes) / (-4 * wl - 4)).rounded())
        return (0..<3).map { pass in ((pass < lowerCount ? lower : lower + 2) - 1) / 2 }
    }

    /// Horizontal moving average over 2·radius+1 pixels, rounded, with zeros beyond the edges.
    private static func boxBlurRows(from source: [UInt8], into target: inout [UInt8], width: Int, height: Int, radius: Int) {
        let window = UInt32(2 * radius + 1), half = window / 2
        source.withUnsafeBufferPointer { input in
            target.withUnsafeMutableBufferPointer { output in
                for row in 0..<height {
                    let base = row * width
                    var sum: UInt32 = 0
                    for x in 0..<min(radius, width) { sum += UInt32(input[base + x]) }
                    for x in 0..<width {
                        let entering = x + radius
                        if entering < width { sum += UInt32(input[base + entering]) }
                        output[base + x] = UInt8((sum + half) / window)
                        let leaving = x - radius
                        if leaving >= 0 { sum -= UInt32(input[base + leaving]) }
                    }
                }
            }
        }
    }

    /// Vertical moving average, done a row at a time with running column sums (cache friendly).
    private static func boxBlurColumns(from source: [UInt8], into target: inout [UInt8], width: Int, height: Int, radius: Int) {
        let window = UInt32(2 * radius + 1), half = window / 2
        var sums = [UInt32](repeating: 0, count: width)
        source.withUnsafeBufferPointer { input in
            target.withUnsafeMutableBufferPointer { output in
                sums.withUnsafeMutableBufferPointer { sums in
                    for y in 0..<min(radius, height) {
                        for x in 0..<width { sums[x] += UInt32(input[y * width + x]) }
                    }
                    for y in 0..<height {
                        let entering = y + radius
                        if entering < height {
                            for x in 0..<width { sums[x] += UInt32(input[entering * width + x]) }
                        }
                        for x in 0..<width { output[y * width + x] = UInt8((sums[x] + half) / window) }
                        let leaving = y - radius
                        if leaving >= 0 {
                            for x in 0..<width { sums[x] -= UInt32(input[leaving * width + x]) }
                        }
                    }
                }
            }
        }
    }

    /// Fills `rect` as a rectangle with corners rounded to `radius`, anti-aliased: a corner
    /// pixel's coverage is how far its centre lies inside the corner circle, clamped to 0…1,
    /// a close approximation of its covered area.
    mutating func fillRoundedRect(_ rect: PixelRect, radius: Double) {
        let clipped = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !clipped.isEmpty else { return }
        let r = min(max(radius, 0), Double(min(rect.width, rect.height)) / 2)
        let left = Double(rect.x), right = Double(rect.maxX), top = Double(rect.y), bottom = Double(rect.maxY)
        let planeWidth = width
        values.withUnsafeMutableBufferPointer { plane in
            for y in clipped.y..<clipped.maxY {
                let centreY = Double(y) + 0.5
                // Distance into the corner band vertically (0 in the straight middle part).
                let dy = max(top + r - centreY, centreY - (bottom - r), 0)
                for x in clipped.x..<clipped.maxX {
                    let centreX = Double(x) + 0.5
                    let dx = max(left + r - centreX, centreX - (right - r), 0)
                    var coverage: UInt8 = 255
                    if dx > 0 && dy > 0 {
                        let inside = r - (dx * dx + dy * dy).squareRoot() + 0.5
                        coverage = inside >= 1 ? 255 : inside <= 0 ? 0 : UInt8((inside * 255).rounded())
                    }
                    plane[y * planeWidth + x] = coverage
                }
            }
        }
    }
}
