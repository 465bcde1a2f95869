import Foundation

/// How the still's tones relate to the original's place by place: still ≈ gain · original +
/// offset, with gain and offset varying smoothly over the picture. A photograph's vignetting
/// and glare, or a player's translucent controls over part of the picture, change them locally;
/// one fit for the whole picture would call all of that a mark.
///
/// Fitted in two stages, each robust (the mark's glyphs are outliers): per row of the grid
/// first, which follows a horizontal bar's sharp edge exactly (a player's controls, a caption's
/// band), then per block of what the rows leave, spread between block centres bilinearly. A
/// row or block too flat to show a gain keeps the one before and fits only its offset.
public struct ToneField: Sendable {
    /// Per grid pixel.
    public let gain: LumaImage
    public let offset: LumaImage

    init(gain: LumaImage, offset: LumaImage) {
        self.gain = gain
        self.offset = offset
    }

    /// The field of `still` against `original` (one grid), in blocks of `block` grid pixels,
    /// starting from the picture's `global` fit.
    init(still: WarpedPicture, original: LumaImage, global: PhotometricFit, block: Int) {
        let width = original.width, height = original.height
        // Rows: the original as each row's tones would show it.
        var rowFits = [PhotometricFit](repeating: global, count: height)
        var rowLevels = [Float](repeating: 128, count: height)
        for y in 0..<height {
            let seen = (0..<width).filter { still.valid[y * width + $0] }
            guard seen.count >= width / 4 else { continue }
            rowLevels[y] = Self.median(seen.map { original.pixels[y * width + $0] })
            rowFits[y] = Self.robustFit(seen.map { original.pixels[y * width + $0] }, seen.map { still.image.pixels[y * width + $0] },
                                        global: global) ?? global
        }
        rowFits = Self.withoutOutliers(rowFits, levels: rowLevels, radius: block / 2)
        let rowAdjusted = LumaImage(width: width, height: height,
                                    pixels: original.pixels.indices.map { rowFits[$0 / width].apply(original.pixels[$0]) })
        // Blocks, on what the rows leave.
        let columns = max(1, (width + block - 1) / block), rows = max(1, (height + block - 1) / block)
        let identity = PhotometricFit(gain: 1, offset: 0)
        var gains = [Float](repeating: 1, count: columns * rows)
        var offsets = [Float](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                var xs: [Float] = [], ys: [Float] = []
                for y in (row * block)..<min(height, (row + 1) * block) {
                    for x in (column * block)..<min(width, (column + 1) * block) where still.valid[y * width + x] {
                        xs.append(rowAdjusted.pixels[y * width + x])
                        ys.append(still.image.pixels[y * width + x])
                    }
                }
                guard xs.count >= block * block / 4, let fit = Self.robustFit(xs, ys, global: identity) else { continue }
                gains[row * columns + column] = fit.gain
                offsets[row * columns + column] = fit.offset
            }
        }
        let blockGain = Self.spread(gains, columns: columns, rows: rows, block: block, width: width, height: height)
        let blockOffset = Self.spread(offsets, columns: columns, rows: rows, block: block, width: width, height: height)
        // still ≈ b·(r·x + r₀) + b₀ = (b·r)·x + (b·r₀ + b₀).
        gain = LumaImage(width: width, height: height, pixels: blockGain.pixels.indices.map { blockGain.pixels[$0] * rowFits[$0 / width].gain })
        offset = LumaImage(width: width, height: height, pixels: blockGain.pixels.indices.map {
            blockGain.pixels[$0] * rowFits[$0 / width].offset + blockOffset.pixels[$0]
        })
    }

    /// A gain and offset fitted to the pixels that agree with the global fit's shape of residuals
    /// (within 2.5 robust deviations of their median), twice; the gain kept from `global` where
    /// the original barely varies.
    static func robustFit(_ xs: [Float], _ ys: [Float], global: PhotometricFit) -> PhotometricFit? {
        var fit = global
        var keep = [Bool](repeating: true, count: xs.count)
        for _ in 0..<2 {
            let residuals = xs.indices.map { ys[$0] - fit.apply(xs[$0]) }
            let centre = median(residuals)
            let spread = max(1.4826 * median(residuals.map { abs($0 - centre) }), 2)
            keep = residuals.map { abs($0 - centre) <= 2.5 * spread }
            var n: Float = 0, sx: Float = 0, sy: Float = 0, sxx: Float = 0, sxy: Float = 0
            for i in xs.indices where keep[i] {
                n += 1; sx += xs[i]; sy += ys[i]; sxx += xs[i] * xs[i]; sxy += xs[i] * ys[i]
            }
            guard n >= 8 else { return nil }
            let variance = sxx / n - (sx / n) * (sx / n)
            if variance >= 100 {
                let gain = min(max((sxy / n - sx / n * sy / n) / variance, 0.2), 3)
                fit = PhotometricFit(gain: gain, offset: sy / n - gain * sx / n)
            } else {
                fit = PhotometricFit(gain: fit.gain, offset: sy / n - fit.gain * sx / n)
            }
        }
        return fit
    }

    /// A row's fit this many grey levels from its neighbours' median (at the row's level) is an outlier.
    static let outlierLevels: Float = 4

    /// Each row's fit, unless it is an outlier among the rows within `radius` of it: then the
    /// fit whose tone at the row's own `level` is the median of theirs (a fit taken whole: a
    /// gain from one row and an offset from another fit no row). A bar's edge is a step, which
    /// a running median keeps where it is; a row or two where a mark's horizontal strokes
    /// outnumber the picture's pixels (a baseline across a crop that is mostly mark) is an
    /// outlier, which it removes. Without it that row's fit takes the mark for the picture's
    /// tone, and the row reads as a line of mark across the still (a crop's mark then stands
    /// out nowhere in particular). Rows that agree with their neighbours keep their own fit.
    static func withoutOutliers(_ fits: [PhotometricFit], levels: [Float], radius: Int) -> [PhotometricFit] {
        guard radius > 0 else { return fits }
        return fits.indices.map { y in
            let window = fits[max(0, y - radius)...min(fits.count - 1, y + radius)]
            let ranked = window.sorted { $0.apply(levels[y]) < $1.apply(levels[y]) }
            let middle = ranked[ranked.count / 2]
            return abs(fits[y].apply(levels[y]) - middle.apply(levels[y])) > outlierLevels ? middle : fits[y]
        }
    }

    static func median(_ values: [Float]) -> Float {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }

    /// Block values spread over the grid, bilinearly between block centres (edges held).
    static func spread(_ values: [Float], columns: Int, rows: Int, block: Int, width: Int, height: Int) -> LumaImage {
        var pixels = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            let fy = min(max((Double(y) + 0.5) / Double(block) - 0.5, 0), Double(rows - 1))
            let r0 = Int(fy), r1 = min(r0 + 1, rows - 1), wy = Float(fy - Double(r0))
            for x in 0..<width {
                let fx = min(max((Double(x) + 0.5) / Double(block) - 0.5, 0), Double(columns - 1))
                let c0 = Int(fx), c1 = min(c0 + 1, columns - 1), wx = Float(fx - Double(c0))
                let top = values[r0 * columns + c0] * (1 - wx) + values[r0 * columns + c1] * wx
                let bottom = values[r1 * columns + c0] * (1 - wx) + values[r1 * columns + c1] * wx
                pixels[y * width + x] = top * (1 - wy) + bottom * wy
            }
        }
        return LumaImage(width: width, height: height, pixels: pixels)
    }

    /// The same field over `region` of its grid on a `width`×`height` grid.
    func resampled(from region: PlaneRect, width: Int, height: Int) -> ToneField {
        ToneField(gain: gain.resampled(from: region, width: width, height: height), offset: offset.resampled(from: region, width: width, height: height))
    }

    @inline(__always)
    func apply(_ value: Float, at index: Int) -> Float { gain.pixels[index] * value + offset.pixels[index] }
}
