#if canImport(Glibc)
import Glibc
#endif

/// A mark repeated over the whole frame on a rotated lattice, so no corner is left clean.
public struct TilePattern: Equatable, Sendable {
    public var angleDegrees: Double
    /// The gap between neighbouring marks, as a fraction of the frame's short side.
    public var spacingFraction: Double

    public init(angleDegrees: Double, spacingFraction: Double) {
        self.angleDegrees = angleDegrees
        self.spacingFraction = spacingFraction
    }

    /// Renders `tile` repeated over a `width`×`height` frame.
    ///
    /// Each output pixel is mapped back into the unrotated pattern (rotation about the
    /// frame centre) and sampled bilinearly from the tile; rows of the lattice are offset
    /// by half a cell, like bricks, so gaps do not line up into clean stripes. Done once per
    /// frame size; the result is a frame-sized sprite.
    public func render(tile: PremultipliedRGBAImage, frameWidth width: Int, frameHeight height: Int) -> PremultipliedRGBAImage {
        let shortSide = Double(min(width, height))
        let gap = max(0, spacingFraction * shortSide)
        let cellW = Double(tile.width) + gap
        let cellH = Double(tile.height) + gap
        var out = [UInt8](repeating: 0, count: width * height * 4)
        guard tile.width > 0, tile.height > 0, cellW >= 1, cellH >= 1 else {
            return PremultipliedRGBAImage(width: width, height: height, pixels: out)
        }
        let radians = angleDegrees * Double.pi / 180
        // Inverse rotation: frame → pattern space.
        let cosA = cos(-radians), sinA = sin(-radians)
        let cx = Double(width) / 2, cy = Double(height) / 2
        tile.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let fy = Double(y) + 0.5 - cy
                    for x in 0..<width {
                        let fx = Double(x) + 0.5 - cx
                        let u = fx * cosA - fy * sinA
                        let v = fx * sinA + fy * cosA
                        let row = (v / cellH).rounded(.down)
                        let shiftedU = u - (row.truncatingRemainder(dividingBy: 2) == 0 ? 0 : cellW / 2)
                        var lu = shiftedU.truncatingRemainder(dividingBy: cellW)
                        if lu < 0 { lu += cellW }
                        var lv = v.truncatingRemainder(dividingBy: cellH)
                        if lv < 0 { lv += cellH }
                        // Sample position inside the tile (pixel centres at +0.5).
                        let sx = lu - 0.5, sy = lv - 0.5
                        let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                        let tx = sx - Double(x0), ty = sy - Double(y0)
                        var acc = (0.0, 0.0, 0.0, 0.0)
                        for (ox, oy, w) in [(0, 0, (1 - tx) * (1 - ty)), (1, 0, tx * (1 - ty)), (0, 1, (1 - tx) * ty), (1, 1, tx * ty)] where w > 0 {
                            let px = x0 + ox, py = y0 + oy
                            guard px >= 0, py >= 0, px < tile.width, py < tile.height else { continue }
                            let i = (py * tile.width + px) * 4
                            acc.0 += w * Double(src[i]); acc.1 += w * Double(src[i + 1])
                            acc.2 += w * Double(src[i + 2]); acc.3 += w * Double(src[i + 3])
                        }
                        if acc.3 < 0.5 { continue }
                        let o = (y * width + x) * 4
                        let a = UInt8(min(255, acc.3.rounded()))
                        dst[o] = min(a, UInt8(min(255, acc.0.rounded())))
                        dst[o + 1] = min(a, UInt8(min(255, acc.1.rounded())))
                        dst[o + 2] = min(a, UInt8(min(255, acc.2.rounded())))
                        dst[o + 3] = a
                    }
                }
            }
        }
        return PremultipliedRGBAImage(width: width, height: height, pixels: out)
    }
}
