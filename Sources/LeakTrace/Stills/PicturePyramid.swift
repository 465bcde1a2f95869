import Foundation

/// A picture with copies of it halved again and again, so that any part of it can be looked
/// at through a homography at any scale without aliasing: a photographed screen shrinks some
/// parts of the lecture's frame more than others.
public struct PicturePyramid: Sendable {
    /// Level k is the picture at 2^-k of its size.
    public let levels: [LumaImage]

    public init(_ image: LumaImage, smallestSide: Int = 16) {
        var levels = [image]
        while let last = levels.last, min(last.width, last.height) / 2 >= smallestSide {
            levels.append(last.halved())
        }
        self.levels = levels
    }

    public var base: LumaImage { levels[0] }
    public var width: Int { levels[0].width }
    public var height: Int { levels[0].height }

    /// A plane's region seen in this picture: each pixel of a `width`×`height` grid over
    /// `region` (in the plane's units) is taken from where `map` (plane → this picture's pixels)
    /// sends its centre, from the level on which the grid's pixel covers one to two of the
    /// level's, interpolated linearly. Pixels sent outside the picture are not `valid`.
    public func warped(by map: Homography, region: PlaneRect, width: Int, height: Int) -> WarpedPicture {
        precondition(width > 0 && height > 0, "an empty grid")
        let stepX = region.width / Double(width), stepY = region.height / Double(height)
        var pixels = [Float](repeating: 0, count: width * height)
        var valid = [Bool](repeating: false, count: width * height)
        let segment = 16
        let h = map.entries
        for row in 0..<height {
            let planeY = region.minY + (Double(row) + 0.5) * stepY
            var start = 0
            while start < width {
                let end = min(width, start + segment)
                let middleX = region.minX + (Double(start + end) / 2) * stepX
                // Source pixels one grid pixel covers here: the level where that is 1…2.
                let footprint = map.localScale(x: middleX, y: planeY) * max(stepX, stepY)
                let level = min(levels.count - 1, max(0, Int(log2(max(footprint, 1)).rounded(.down))))
                let image = levels[level]
                let factor = 1 / Double(1 << level)
                image.pixels.withUnsafeBufferPointer { source in
                    for column in start..<end {
                        let planeX = region.minX + (Double(column) + 0.5) * stepX
                        let w = h[6] * planeX + h[7] * planeY + h[8]
                        guard w > 1e-12 else { continue }
                        let x = (h[0] * planeX + h[1] * planeY + h[2]) / w, y = (h[3] * planeX + h[4] * planeY + h[5]) / w
                        guard x >= 0, y >= 0, x < Double(self.width), y < Double(self.height) else { continue }
                        let index = row * width + column
                        pixels[index] = Self.bilinear(source, width: image.width, height: image.height,
                                                      x: x * factor - 0.5, y: y * factor - 0.5)
                        valid[index] = true
                    }
                }
                start = end
            }
        }
        return WarpedPicture(image: LumaImage(width: width, height: height, pixels: pixels), valid: valid)
    }

    /// The value between pixel centres (x, y), edges repeated.
    @inline(__always)
    static func bilinear(_ p: UnsafeBufferPointer<Float>, width: Int, height: Int, x: Double, y: Double) -> Float {
        let cx = min(max(x, 0), Double(width - 1)), cy = min(max(y, 0), Double(height - 1))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        let top = p[y0 * width + x0] * (1 - fx) + p[y0 * width + x1] * fx
        let bottom = p[y1 * width + x0] * (1 - fx) + p[y1 * width + x1] * fx
        return top * (1 - fy) + bottom * fy
    }
}

/// A region of a plane as a picture showed it: the pixels, and which of them the picture held.
public struct WarpedPicture: Sendable {
    public var image: LumaImage
    public var valid: [Bool]

    /// The share of the grid the picture covered.
    public var coverage: Double {
        Double(valid.lazy.filter { $0 }.count) / Double(max(valid.count, 1))
    }
}

extension LumaImage {
    /// Half the size: each pixel the mean of a 2×2 square (an odd last row or column left out).
    func halved() -> LumaImage {
        let outWidth = width / 2, outHeight = height / 2
        var output = [Float](repeating: 0, count: outWidth * outHeight)
        output.withUnsafeMutableBufferPointer { out in
            pixels.withUnsafeBufferPointer { p in
                for y in 0..<outHeight {
                    let top = 2 * y * width, bottom = top + width
                    for x in 0..<outWidth {
                        out[y * outWidth + x] = (p[top + 2 * x] + p[top + 2 * x + 1] + p[bottom + 2 * x] + p[bottom + 2 * x + 1]) * 0.25
                    }
                }
            }
        }
        return LumaImage(width: outWidth, height: outHeight, pixels: output)
    }
}
