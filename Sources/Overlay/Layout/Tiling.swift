#if canImport(Glibc)
import Glibc
#endif

/// A mark repeated over the whole frame on a rotated lattice.
///
/// Marks sit in rows along `angleDegrees`; each row is offset by half a cell from the one
/// before (like bricks) so the gaps along a row never line up across rows.
///
/// `spacingFraction` is the clear gap between neighbouring marks, both along a row and from
/// one row to the next, as a fraction of the short side, and it is drawn as given: a sparse
/// "SAMPLE" pattern is the user's choice. What a sparse pattern costs is measurable, so it is
/// said: `renderCoveringFrame` reports the widest clean square the pattern leaves, and the
/// compositor warns when it is wider than `cleanSquareFraction` of the short side (room for a
/// face or a signature to be cut out unmarked).
///
/// Without a spacing (nil) the pattern is dense, keeping a measurable promise: every square
/// a tenth of the short side wide, anywhere in the frame, holds mark pixels, at every angle
/// and on every frame shape. The gap is then `maximumGapFraction`, narrowed further when the
/// mark has room of its own at its edges (a short line centred under a long one, a logo with
/// transparent corners) until no clean square is left.
public struct TilePattern: Equatable, Sendable {
    public var angleDegrees: Double
    /// The gap between neighbouring marks, as a fraction of the frame's short side; nil for
    /// the dense pattern (see `gapFraction`).
    public var spacingFraction: Double?
    /// How far the lattice is shifted, as a fraction of the step from one row to the next — half
    /// a cell along the row and a whole row across it, one of the lattice's own vectors, so 1 is
    /// the pattern unshifted again. A variant layer's variant k of q draws phase k/q
    /// (docs/design/variant-marks.md §3): a q-th of a row across the rows, which blur and scaling keep.
    public var phase: Double

    /// The side of the square a dense pattern never leaves clean, and beyond which a sparse
    /// one is warned about, as a fraction of the short side.
    public static let cleanSquareFraction = 0.1
    /// The widest gap that keeps every `cleanSquareFraction` square inked at every angle: the
    /// dense pattern's gap.
    ///
    /// Found by measurement (`TilingTests.gapSweep`: six text and logo marks, every 7.5°
    /// from −90° to 90°): 0.07 leaves no clean square anywhere, 0.08 already does for
    /// "CONFIDENTIAL" near 0° and 90°, where a square fits in the stripe between rows plus the
    /// room that side bearings and letter shapes leave inside each mark's box.
    public static let maximumGapFraction = 0.07

    public init(angleDegrees: Double, spacingFraction: Double? = nil, phase: Double = 0) {
        self.angleDegrees = angleDegrees
        self.spacingFraction = spacingFraction
        self.phase = phase
    }

    /// Whether the pattern is the dense default rather than a spacing the user chose.
    public var isDense: Bool { spacingFraction == nil }

    /// The gap drawn first, as a fraction of the short side: the spacing as given (never
    /// negative; a non-finite one draws the dense gap), or `maximumGapFraction` when dense.
    public var gapFraction: Double {
        guard let spacingFraction else { return Self.maximumGapFraction }
        guard spacingFraction.isFinite else { return Self.maximumGapFraction }
        return max(spacingFraction, 0)
    }

    /// The pattern for one frame, and the widest square it leaves clean.
    public struct Rendering: Sendable {
        public var image: PremultipliedRGBAImage
        /// The gap drawn, as a fraction of the short side.
        public var gapFraction: Double
        /// The side, in pixels, of the largest square with no mark pixel (alpha zero) in it.
        public var largestCleanSquarePixels: Int
        /// The side of the square no pattern should leave clean on this frame, in pixels.
        public var cleanSquareLimitPixels: Int

        /// Whether no square wider than `cleanSquareFraction` of the short side is clean.
        public var coversFrame: Bool { largestCleanSquarePixels <= cleanSquareLimitPixels }
    }

    /// Renders `tile` over the frame and measures the widest clean square it leaves.
    ///
    /// A given spacing is drawn as it is. The dense pattern tries at most three gaps, the
    /// widest first — `maximumGapFraction`, half of it, none — and keeps the first that leaves
    /// no clean square wider than `cleanSquareFraction` of the short side (verified on the
    /// rendered pixels); if none does, the mark has holes of its own and the widest is drawn.
    public func renderCoveringFrame(tile: PremultipliedRGBAImage, frameWidth width: Int, frameHeight height: Int) -> Rendering {
        let limit = max(1, Int((Self.cleanSquareFraction * Double(min(width, height))).rounded(.down)))
        func rendering(_ gap: Double) -> Rendering {
            let image = render(tile: tile, frameWidth: width, frameHeight: height, gapFraction: gap)
            return Rendering(image: image, gapFraction: gap, largestCleanSquarePixels: image.largestTransparentSquare(),
                             cleanSquareLimitPixels: limit)
        }
        let requested = gapFraction
        let asked = rendering(requested)
        guard isDense, !asked.coversFrame else { return asked }
        for gap in requested > 0 ? [requested / 2, 0] : [] {
            let narrower = rendering(gap)
            if narrower.coversFrame { return narrower }
        }
        // Nothing closes the pockets: draw the widest rather than a crowded pattern that does not help either.
        return asked
    }

    /// Renders `tile` repeated over a `width`×`height` frame with gaps of `gapFraction` of the
    /// short side (default: `self.gapFraction`).
    ///
    /// Each output pixel is mapped back into the unrotated pattern (rotation about the
    /// frame centre, so the pattern is symmetric on every frame shape) and sampled bilinearly
    /// from the tile. Done once per frame size; the result is a frame-sized sprite.
    public func render(tile: PremultipliedRGBAImage, frameWidth width: Int, frameHeight height: Int,
                       gapFraction: Double? = nil) -> PremultipliedRGBAImage {
        let shortSide = Double(min(width, height))
        let gap = max(0, gapFraction ?? self.gapFraction) * shortSide
        let cellW = Double(tile.width) + gap
        let cellH = Double(tile.height) + gap
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let radians = angleDegrees * Double.pi / 180
        // Inverse rotation: frame → pattern space.
        let cosA = cos(-radians), sinA = sin(-radians)
        // A non-finite angle or gap makes every sample position NaN, so nothing would be drawn;
        // returning early keeps the integer floors below to finite, frame-sized values.
        guard tile.width > 0, tile.height > 0, width > 0, height > 0,
              cosA.isFinite, sinA.isFinite, cellW.isFinite, cellH.isFinite else {
            return PremultipliedRGBAImage(width: width, height: height, pixels: out)
        }
        let cx = Double(width) / 2, cy = Double(height) / 2
        // The lattice shifted by `phase` of its row-to-row vector (cellW/2, cellH); a phase of 0
        // subtracts exact zeros, so unshifted patterns are the pixels they always were.
        let shift = phase.isFinite ? phase : 0
        let shiftU = shift * cellW / 2, shiftV = shift * cellH
        let tileW = tile.width, tileH = tile.height
        tile.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                /// The premultiplied sample at tile pixel (px, py) times `w`, added to `acc`; nothing outside the tile.
                @inline(__always) func add(_ px: Int, _ py: Int, _ w: Double, _ acc: inout (Double, Double, Double, Double)) {
                    guard w > 0, px >= 0, py >= 0, px < tileW, py < tileH else { return }
                    let i = (py * tileW + px) * 4
                    acc.0 += w * Double(src[i]); acc.1 += w * Double(src[i + 1])
                    acc.2 += w * Double(src[i + 2]); acc.3 += w * Double(src[i + 3])
                }
                for y in 0..<height {
                    let fy = Double(y) + 0.5 - cy
                    for x in 0..<width {
                        let fx = Double(x) + 0.5 - cx
                        let u = fx * cosA - fy * sinA - shiftU
                        let v = fx * sinA + fy * cosA - shiftV
                        // Integer floors: a −0 the libm floor would give becomes +0 here, which
                        // only ever meets a subtraction and then `- 0.5`, so no sample moves.
                        let row = floorToInt(v / cellH)
                        let shiftedU = u - (row & 1 == 0 ? 0 : cellW / 2)
                        let lu = shiftedU - Double(floorToInt(shiftedU / cellW)) * cellW
                        let lv = v - Double(row) * cellH
                        // Sample position inside the tile (pixel centres at +0.5); the gap reads as transparent.
                        let sx = lu - 0.5, sy = lv - 0.5
                        guard sx < Double(tileW), sy < Double(tileH) else { continue }
                        let x0 = floorToInt(sx), y0 = floorToInt(sy)
                        let tx = sx - Double(x0), ty = sy - Double(y0)
                        var acc = (0.0, 0.0, 0.0, 0.0)
                        add(x0, y0, (1 - tx) * (1 - ty), &acc)
                        add(x0 + 1, y0, tx * (1 - ty), &acc)
                        add(x0, y0 + 1, (1 - tx) * ty, &acc)
                        add(x0 + 1, y0 + 1, tx * ty, &acc)
                        if acc.3 < 0.5 { continue }
                        let o = (y * width + x) * 4
                        let a = UInt8(min(255, roundToInt(nonNegative: acc.3)))
                        dst[o] = min(a, UInt8(min(255, roundToInt(nonNegative: acc.0))))
                        dst[o + 1] = min(a, UInt8(min(255, roundToInt(nonNegative: acc.1))))
                        dst[o + 2] = min(a, UInt8(min(255, roundToInt(nonNegative: acc.2))))
                        dst[o + 3] = a
                    }
                }
            }
        }
        return PremultipliedRGBAImage(width: width, height: height, pixels: out)
    }
}

// `render` needs a floor and a rounding per pixel. On the baseline x86-64 target Double's
// `rounded` is a libm call (there is no rounding instruction before SSE4.1), so these do it
// with the integer conversion, which truncates towards zero, instead.

/// `x.rounded(.down)` as an integer, for finite `x` within Int's range. The truncated value
/// converts back to Double exactly, so comparing it with `x` tells whether to step down.
@inline(__always)
private func floorToInt(_ x: Double) -> Int {
    let truncated = Int(x)
    return Double(truncated) > x ? truncated - 1 : truncated
}

/// `x.rounded()` (halves away from zero) as an integer, for finite `x` ≥ 0 within Int's range.
/// The fraction `x − ⌊x⌋` is computed exactly, so the comparison with 0.5 is exact too.
@inline(__always)
private func roundToInt(nonNegative x: Double) -> Int {
    let whole = Int(x)
    return x - Double(whole) >= 0.5 ? whole + 1 : whole
}

extension PremultipliedRGBAImage {
    /// The side of the largest square inside the image with no pixel of non-zero alpha.
    ///
    /// The classic dynamic programme over two rows: the largest clean square with its
    /// bottom-right corner at (x, y) is one more than the smallest of those ending left of,
    /// above and diagonally above-left of it.
    public func largestTransparentSquare() -> Int {
        guard width > 0, height > 0 else { return 0 }
        var previous = [Int](repeating: 0, count: width + 1)
        var current = [Int](repeating: 0, count: width + 1)
        var largest = 0
        pixels.withUnsafeBufferPointer { p in
            for y in 0..<height {
                var i = y * width * 4 + 3
                for x in 0..<width {
                    if p[i] == 0 {
                        let side = Swift.min(previous[x], previous[x + 1], current[x]) + 1
                        current[x + 1] = side
                        if side > largest { largest = side }
                    } else {
                        current[x + 1] = 0
                    }
                    i += 4
                }
                swap(&previous, &current)
            }
        }
        return largest
    }
}
