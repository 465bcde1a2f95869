import Foundation

/// The still seen on a grid over the original's display, through its placement: what the
/// original's frames are compared with to find the instant the still shows.
public struct StillView: Sendable {
    public let warped: WarpedPicture
    /// Grid pixels per display pixel.
    public let scale: Double

    /// The whole display, `width` grid pixels across.
    public init(_ pyramid: PicturePyramid, map: Homography, display: (width: Int, height: Int), width: Int) {
        scale = Double(width) / Double(display.width)
        let height = max(2, Int((Double(display.height) * scale).rounded()))
        warped = pyramid.warped(by: map, region: PlaneRect(minX: 0, minY: 0, maxX: Double(display.width), maxY: Double(display.height)),
                                width: width, height: height)
    }
}

/// How the still's tones relate to the original's: still ≈ gain · original + offset, a screen's
/// brightness and contrast or a camera's exposure. Fitted by least squares, then again without
/// the pixels that fit worst (the mark, a cursor, the player's controls).
public struct PhotometricFit: Sendable, Equatable {
    public var gain: Float
    public var offset: Float

    public init(gain: Float, offset: Float) {
        self.gain = gain
        self.offset = offset
    }

    public static func fit(still: LumaImage, original: LumaImage, valid: [Bool]) -> PhotometricFit {
        precondition(still.width == original.width && still.height == original.height, "one grid")
        var use = valid
        var fit = PhotometricFit(gain: 1, offset: 0)
        for round in 0..<3 {
            var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
            for i in use.indices where use[i] {
                let x = Double(original.pixels[i]), y = Double(still.pixels[i])
                n += 1; sx += x; sy += y; sxx += x * x; sxy += x * y
            }
            guard n >= 16 else { return fit }
            let variance = sxx - sx * sx / n
            let gain = variance > 1e-6 ? (sxy - sx * sy / n) / variance : 1
            // A negative or absurd gain is no screen: keep the tones, fit the brightness.
            let kept = min(max(gain, 0.25), 4)
            fit = PhotometricFit(gain: Float(kept), offset: Float((sy - kept * sx) / n))
            guard round < 2 else { break }
            // Leave out the pixels beyond 2.5 robust standard deviations.
            let residuals = valid.indices.filter { valid[$0] }.map { abs(still.pixels[$0] - fit.apply(original.pixels[$0])) }
            let sigma = 1.4826 * Double(Self.median(residuals))
            let limit = Float(max(2.5 * sigma, 3))
            use = valid.indices.map { valid[$0] && abs(still.pixels[$0] - fit.apply(original.pixels[$0])) <= limit }
        }
        return fit
    }

    @inline(__always)
    public func apply(_ value: Float) -> Float { gain * value + offset }

    static func median(_ values: [Float]) -> Float {
        guard !values.isEmpty else { return 0 }
        var sorted = values
        sorted.sort()
        return sorted[sorted.count / 2]
    }
}

/// Finds which of the original's frames a still shows, given its placement: frames are compared
/// with the still's view on their grid, each pixel's difference capped (the mark, a cursor or
/// the player's controls count no more than any other pixel that differs).
public enum StillTiming {
    /// A pixel's difference counts at most this much (grey levels).
    static let cap: Float = 40

    /// The mean capped difference between the view and each frame (on the view's grid), over
    /// `pixels` (indices; nil: every pixel the still covers), tones fitted once, to `reference`.
    public static func scores(_ view: StillView, frames: [LumaImage], pixels: [Int]? = nil, fit: PhotometricFit) -> [Double] {
        let still = view.warped.image.pixels
        let indices = pixels ?? view.warped.valid.indices.filter { view.warped.valid[$0] }
        guard !indices.isEmpty else { return frames.map { _ in .infinity } }
        return frames.map { frame in
            precondition(frame.pixels.count == still.count, "frames on the view's grid")
            var sum: Float = 0
            frame.pixels.withUnsafeBufferPointer { f in
                still.withUnsafeBufferPointer { s in
                    for i in indices { sum += min(abs(s[i] - fit.apply(f[i])), cap) }
                }
            }
            return Double(sum) / Double(indices.count)
        }
    }

    /// The frames whose scores are close enough to the best to be the instant the still shows:
    /// within a fifth of the way from the best to the typical (median) score, or a grey level.
    public static func closeToBest(_ scores: [Double]) -> [Int] {
        guard let best = scores.min(), best.isFinite else { return [] }
        let typical = scores.sorted()[scores.count / 2]
        let margin = max(1, 0.2 * (typical - best))
        return scores.indices.filter { scores[$0] <= best + margin }
    }

    /// Pixels (indices on the grid) where the frames differ from each other by more than
    /// `threshold` grey levels and the still is seen: where a moving pointer, a speaker or a
    /// changing slide tells the frames apart.
    public static func changing(_ frames: [LumaImage], valid: [Bool], threshold: Float = 12) -> [Int] {
        guard let first = frames.first else { return [] }
        var low = first.pixels, high = first.pixels
        for frame in frames.dropFirst() {
            for i in low.indices {
                low[i] = min(low[i], frame.pixels[i])
                high[i] = max(high[i], frame.pixels[i])
            }
        }
        return low.indices.filter { valid[$0] && high[$0] - low[$0] > threshold }
    }
}
