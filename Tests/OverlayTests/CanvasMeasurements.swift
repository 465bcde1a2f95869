import Animation
#if canImport(Glibc)
import Glibc
#endif
@testable import Overlay

/// Helpers that judge a composited frame by its pixels alone: where the ink is, and whether
/// any square of a given size is left without it.
enum CanvasMeasurements {
    /// A transparent straight-alpha frame with `config` composited at `time`.
    static func render(_ compositor: Compositor, width: Int, height: Int, at time: PresentationTime = .zero) throws -> StraightRGBAImage {
        var frame = StraightRGBAImage(width: width, height: height)
        try frame.withCanvas { try compositor.composite(onto: $0, at: time) }
        return frame
    }

    /// The smallest rectangle holding every pixel whose alpha is at least `threshold`, or nil.
    ///
    /// On a transparent canvas the alpha of a pixel is the mark's coverage there, so a
    /// threshold of 128 finds the edges of the ink to within half a pixel.
    static func inkBounds(_ image: StraightRGBAImage, alphaAtLeast threshold: UInt8 = 1,
                          in region: PixelRect? = nil) -> PixelRect? {
        let area = region ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        let zeros = [UInt8](repeating: 0, count: area.width * 4)
        image.pixels.withUnsafeBufferPointer { p in
            zeros.withUnsafeBufferPointer { zero in
                for y in area.y..<area.maxY {
                    let rowStart = (y * image.width + area.x) * 4
                    // A fully transparent row (most of a big frame) is skipped at memcmp's speed.
                    if memcmp(p.baseAddress! + rowStart, zero.baseAddress!, area.width * 4) == 0 { continue }
                    var rowMin = Int.max, rowMax = Int.min
                    var i = rowStart + 3
                    for x in area.x..<area.maxX {
                        if p[i] >= threshold {
                            if rowMin == Int.max { rowMin = x }
                            rowMax = x
                        }
                        i += 4
                    }
                    guard rowMax >= rowMin else { continue }
                    minX = min(minX, rowMin); maxX = max(maxX, rowMax)
                    if minY == Int.max { minY = y }
                    maxY = y
                }
            }
        }
        guard maxX >= minX else { return nil }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    /// The top-left corner of some `side`×`side` square inside the frame with no pixel of
    /// non-zero alpha, or nil when every such square (at every position) holds ink.
    ///
    /// Uses a summed-area table of the ink mask, so every one of the (W − side + 1)·(H − side + 1)
    /// positions is checked, not just a grid of them.
    static func cleanSquare(in image: StraightRGBAImage, side: Int) -> (x: Int, y: Int)? {
        let w = image.width, h = image.height
        precondition(side > 0 && side <= w && side <= h)
        // table[(y)(w+1) + x] = ink pixels in [0, x) × [0, y).
        var table = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        image.pixels.withUnsafeBufferPointer { p in
            table.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    var rowSum: Int32 = 0
                    let above = y * (w + 1), here = (y + 1) * (w + 1)
                    for x in 0..<w {
                        if p[(y * w + x) * 4 + 3] != 0 { rowSum += 1 }
                        t[here + x + 1] = t[above + x + 1] + rowSum
                    }
                }
            }
        }
        return table.withUnsafeBufferPointer { t -> (x: Int, y: Int)? in
            for y in 0...(h - side) {
                let top = y * (w + 1), bottom = (y + side) * (w + 1)
                for x in 0...(w - side) {
                    let ink = t[bottom + x + side] - t[bottom + x] - t[top + x + side] + t[top + x]
                    if ink == 0 { return (x, y) }
                }
            }
            return nil
        }
    }
}

/// An opaque logo with a recognisable pattern: a `width`×`height` image (straight alpha).
func checkerLogo(width: Int, height: Int, cell: Int = 8,
                 colors: (RGBAColor, RGBAColor) = (RGBAColor(red: 220, green: 40, blue: 40), RGBAColor(red: 250, green: 220, blue: 60))) -> StraightRGBAImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let c = ((x / cell) + (y / cell)) % 2 == 0 ? colors.0 : colors.1
            let i = (y * width + x) * 4
            pixels[i] = c.red; pixels[i + 1] = c.green; pixels[i + 2] = c.blue; pixels[i + 3] = c.alpha
        }
    }
    return StraightRGBAImage(width: width, height: height, pixels: pixels)
}
