import Foundation

/// The grey levels a mark's pixels can have: its text's colour, and its outline's and shadow's.
public struct MarkColors: Sendable, Equatable {
    public var levels: [Float]
    /// The text layer's own opacity (0…1): the opacity its glyphs' insides reach.
    public var opacity: Float

    public init(levels: [Float], opacity: Float) {
        precondition(!levels.isEmpty, "a mark has a colour")
        self.levels = levels
        self.opacity = opacity
    }
}

/// What the still would show at a pixel without marks, from the original's frame: softened as
/// the still is, its tones fitted to the still's place by place (`ToneField`), and the range of
/// its 3×3 neighbourhood (a pixel of misregistration). The opacity of a mark at a pixel is how far beyond that range
/// the still goes towards one of the mark's colours, as a share of the way to that colour:
/// a white mark at 40 % over any background reads 0.4; an edge a pixel off reads nothing.
public struct MarkBackground: Sendable {
    /// A mark's opacity is only estimated where its colour differs from the picture under it
    /// by at least this much (a white mark on a white slide says nothing).
    static let minimumContrast: Float = 24
    /// Grey levels past what the original allows that are not taken for a mark (ringing).
    static let ringing: Float = 4
    /// A 3×3 range of this many grey levels in the original halves the trust in a pixel.
    static let steepEdge: Float = 40

    /// The whole picture's tones (how the softness was chosen).
    public let fit: PhotometricFit
    /// The tones place by place.
    public let tones: ToneField
    /// The box blur (radius in grid pixels) that made the original look as soft as the still.
    public let blurRadius: Int
    /// The original softened, its neighbourhoods' lowest and highest values (before `fit`).
    public let level: LumaImage
    public let low: LumaImage
    public let high: LumaImage

    /// `still` and `original` on one grid; tones are fitted in blocks of `block` grid pixels.
    init(still: WarpedPicture, original: LumaImage, block: Int) {
        // The softness of the still first (a photograph, a rescaled crop), then its tones, judged
        // on a sample of the pixels.
        let step = max(1, Int((Double(original.width * original.height) / 40_000).squareRoot()))
        var best: (radius: Int, fit: PhotometricFit, residual: Double, blurred: LumaImage)?
        for radius in 0...3 {
            let blurred = radius == 0 ? original : original.boxBlurred(radius: radius)
            let fit = PhotometricFit.fit(still: still.image, original: blurred, valid: still.valid, step: step)
            let residual = Self.cappedResidual(still.image, blurred, fit: fit, valid: still.valid, step: step)
            if residual < best?.residual ?? .infinity { best = (radius, fit, residual, blurred) }
        }
        let chosen = best ?? (0, PhotometricFit(gain: 1, offset: 0), 0, original)
        blurRadius = chosen.radius
        fit = chosen.fit
        level = chosen.blurred
        tones = ToneField(still: still, original: chosen.blurred, global: chosen.fit, block: block)
        (low, high) = Self.neighbourhoodRange(chosen.blurred)
    }

    private init(fit: PhotometricFit, tones: ToneField, blurRadius: Int, level: LumaImage, low: LumaImage, high: LumaImage) {
        self.fit = fit
        self.tones = tones
        self.blurRadius = blurRadius
        self.level = level
        self.low = low
        self.high = high
    }

    /// The same background over `region` of its grid (grid pixels, may be fractional) on a
    /// `width`×`height` grid: how a cut-out of the still is compared at a larger scale.
    public func resampled(from region: PlaneRect, width: Int, height: Int) -> MarkBackground {
        MarkBackground(fit: fit, tones: tones.resampled(from: region, width: width, height: height), blurRadius: blurRadius,
                       level: level.resampled(from: region, width: width, height: height),
                       low: low.resampled(from: region, width: width, height: height),
                       high: high.resampled(from: region, width: width, height: height))
    }

    /// The opacity a mark of `marks`' colours needs at each pixel of `still` (on this grid).
    public func opacity(of still: WarpedPicture, marks: MarkColors) -> [Float] {
        precondition(still.image.pixels.count == level.pixels.count, "one grid")
        var opacity = [Float](repeating: 0, count: level.pixels.count)
        opacity.withUnsafeMutableBufferPointer { out in
            level.pixels.withUnsafeBufferPointer { under in
                still.image.pixels.withUnsafeBufferPointer { seen in
                    still.valid.withUnsafeBufferPointer { valid in
                        low.pixels.withUnsafeBufferPointer { low in
                            high.pixels.withUnsafeBufferPointer { high in
                                tones.gain.pixels.withUnsafeBufferPointer { gain in
                                    tones.offset.pixels.withUnsafeBufferPointer { offset in
                                        for i in 0..<out.count where valid[i] {
                                            let base = gain[i] * under[i] + offset[i]
                                            var strongest: Float = 0
                                            for level in marks.levels {
                                                let towards = gain[i] * level + offset[i] - base
                                                guard abs(towards) >= Self.minimumContrast * max(gain[i], 0.3) else { continue }
                                                let bound = towards > 0 ? gain[i] * high[i] + offset[i] : gain[i] * low[i] + offset[i]
                                                // A few levels past an edge are a rescaler's ringing, not a mark.
                                                let beyond = (seen[i] - bound) * (towards > 0 ? 1 : -1) - Self.ringing
                                                strongest = max(strongest, beyond / abs(towards))
                                            }
                                            // Where the original changes steeply, the still differs from it
                                            // most for want of registration: trusted less.
                                            let steepness = (high[i] - low[i]) / Self.steepEdge
                                            out[i] = min(strongest, 1) / (1 + steepness * steepness)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return opacity
    }

    /// How far each pixel of `still` goes beyond what the original allows there, either way
    /// (grey levels, 0 within the range): a mark's text and its shadow alike.
    public func excess(of still: WarpedPicture) -> [Float] {
        precondition(still.image.pixels.count == level.pixels.count, "one grid")
        return still.image.pixels.indices.map { i in
            guard still.valid[i] else { return 0 }
            let value = still.image.pixels[i], top = tones.apply(high.pixels[i], at: i), bottom = tones.apply(low.pixels[i], at: i)
            return value > top ? value - top : (value < bottom ? bottom - value : 0)
        }
    }

    /// The smallest and largest value of each pixel's 3×3 neighbourhood (edges repeated).
    static func neighbourhoodRange(_ image: LumaImage) -> (low: LumaImage, high: LumaImage) {
        let width = image.width, height = image.height
        var rowLow = image.pixels, rowHigh = image.pixels
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<height {
                let row = y * width
                for x in 0..<width {
                    let left = p[row + max(x - 1, 0)], right = p[row + min(x + 1, width - 1)], centre = p[row + x]
                    rowLow[row + x] = min(left, centre, right)
                    rowHigh[row + x] = max(left, centre, right)
                }
            }
        }
        var low = rowLow, high = rowHigh
        for y in 0..<height {
            let up = max(y - 1, 0) * width, down = min(y + 1, height - 1) * width, row = y * width
            for x in 0..<width {
                low[row + x] = min(rowLow[up + x], rowLow[row + x], rowLow[down + x])
                high[row + x] = max(rowHigh[up + x], rowHigh[row + x], rowHigh[down + x])
            }
        }
        return (LumaImage(width: width, height: height, pixels: low), LumaImage(width: width, height: height, pixels: high))
    }

    static func cappedResidual(_ still: LumaImage, _ original: LumaImage, fit: PhotometricFit, valid: [Bool], step: Int) -> Double {
        var sum: Float = 0
        var count = 0
        original.pixels.withUnsafeBufferPointer { o in
            still.pixels.withUnsafeBufferPointer { s in
                valid.withUnsafeBufferPointer { seen in
                    for y in stride(from: 0, to: still.height, by: step) {
                        for i in stride(from: y * still.width, to: (y + 1) * still.width, by: step) where seen[i] {
                            sum += min(abs(s[i] - fit.apply(o[i])), StillTiming.cap)
                            count += 1
                        }
                    }
                }
            }
        }
        return count > 0 ? Double(sum) / Double(count) : .infinity
    }
}
