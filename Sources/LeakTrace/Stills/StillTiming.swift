import Foundation

/// The still seen on a grid over the original's display, through its placement: what the
/// original's frames are compared with to find the instant the still shows.
public struct StillView: Sendable {
    public let warped: WarpedPicture
    /// Grid pixels per display pixel.
    public let scale: Double

    /// The whole display on a `width`×`height` grid.
    public init(_ pyramid: PicturePyramid, map: Homography, display: (width: Int, height: Int), width: Int, height: Int) {
        scale = Double(width) / Double(display.width)
        warped = pyramid.warped(by: map, region: PlaneRect(minX: 0, minY: 0, maxX: Double(display.width), maxY: Double(display.height)),
                                width: width, height: height)
    }

    private init(warped: WarpedPicture, scale: Double) {
        self.warped = warped
        self.scale = scale
    }

    /// The same view with `covered` pixels (`StillTiming.ownMarks`) counted as not seen.
    public func hiding(_ covered: [Bool]) -> StillView {
        precondition(covered.count == warped.valid.count, "one grid")
        return StillView(warped: WarpedPicture(image: warped.image, valid: zip(warped.valid, covered).map { $0 && !$1 }), scale: scale)
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

    /// Fitted on every `step`-th pixel of every `step`-th row (a few tens of thousands are plenty).
    public static func fit(still: LumaImage, original: LumaImage, valid: [Bool], step: Int = 1) -> PhotometricFit {
        precondition(still.width == original.width && still.height == original.height, "one grid")
        var fit = PhotometricFit(gain: 1, offset: 0)
        var limit = Float.infinity
        for round in 0..<3 {
            var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
            // Residuals in 0.25-level bins up to 64 levels, for their median.
            var histogram = [Int](repeating: 0, count: 257)
            let current = fit
            original.pixels.withUnsafeBufferPointer { o in
                still.pixels.withUnsafeBufferPointer { s in
                    valid.withUnsafeBufferPointer { seen in
                        for y in stride(from: 0, to: still.height, by: step) {
                            for i in stride(from: y * still.width, to: (y + 1) * still.width, by: step) where seen[i] {
                                let residual = abs(s[i] - current.apply(o[i]))
                                guard residual <= limit else { continue }
                                let x = Double(o[i]), v = Double(s[i])
                                n += 1; sx += x; sy += v; sxx += x * x; sxy += x * v
                                histogram[min(Int(residual * 4), 256)] += 1
                            }
                        }
                    }
                }
            }
            guard n >= 16 else { return fit }
            let variance = sxx - sx * sx / n
            let gain = variance > 1e-6 ? (sxy - sx * sy / n) / variance : 1
            // A negative or absurd gain is no screen: keep the tones, fit the brightness.
            let kept = min(max(gain, 0.25), 4)
            fit = PhotometricFit(gain: Float(kept), offset: Float((sy - kept * sx) / n))
            guard round < 2 else { break }
            // Leave out the pixels beyond 2.5 robust standard deviations (of the fit before).
            var seen = 0, bin = 0
            while bin < 256, seen + histogram[bin] < Int(n) / 2 { seen += histogram[bin]; bin += 1 }
            let sigma = 1.4826 * (Float(bin) + 0.5) / 4
            limit = max(2.5 * sigma, 3)
        }
        return fit
    }

    @inline(__always)
    public func apply(_ value: Float) -> Float { gain * value + offset }

}

/// Finds which of the original's frames a still shows, given its placement: frames are compared
/// with the still's view on their grid, each pixel's difference capped (the mark, a cursor or
/// the player's controls count no more than any other pixel that differs).
public enum StillTiming {
    /// A pixel's difference counts at most this much (grey levels).
    static let cap: Float = 40

    /// The mean capped difference between the view and each frame (on the view's grid), over
    /// every pixel the still covers, the frame's tones mapped by `fit`.
    public static func scores(_ view: StillView, frames: [LumaImage], fit: PhotometricFit) -> [Double] {
        frames.map { score(view, frame: $0, fit: fit) }
    }

    public static func score(_ view: StillView, frame: LumaImage, fit: PhotometricFit) -> Double {
        precondition(frame.pixels.count == view.warped.image.pixels.count, "frames on the view's grid")
        var sum: Float = 0
        var count = 0
        frame.pixels.withUnsafeBufferPointer { f in
            view.warped.image.pixels.withUnsafeBufferPointer { s in
                view.warped.valid.withUnsafeBufferPointer { seen in
                    for i in 0..<s.count where seen[i] {
                        sum += min(abs(s[i] - (fit.gain * f[i] + fit.offset)), cap)
                        count += 1
                    }
                }
            }
        }
        return count > 0 ? Double(sum) / Double(count) : .infinity
    }

    /// Where two frames differ by more than this many grey levels, the still can tell them apart.
    static let distinctLevels: Float = 12
    /// Fewer differing pixels than this on the grid (a few pixels of a pointer) cannot tell frames apart.
    static let distinctPixels = 6
    /// The still must be this much closer (grey levels, on the pixels where they differ) to the
    /// best frame than to another for the other to be ruled out.
    static let ruledOutMargin: Float = 6

    /// The still differs from the best frame by more than this many grey levels where something
    /// of its own covers the picture (`ownMarks`).
    static let ownLevels: Float = 24

    /// The pixels of the view where the still shows something of its own over the best frame
    /// (a mark, a cursor, a player's controls), grown by a pixel: what the original shows under
    /// them cannot be seen, so they cannot tell two frames apart (`StillView.hiding`). Without this, a pointer passing
    /// under the mark at another instant can look nearer to the mark's blurred edges than the
    /// clean slide does, and rule the still's own instant out.
    public static func ownMarks(_ view: StillView, best: LumaImage, fit: PhotometricFit) -> [Bool] {
        let image = view.warped.image
        let width = image.width, height = image.height
        var own = [Bool](repeating: false, count: image.pixels.count)
        for i in own.indices where view.warped.valid[i] && abs(image.pixels[i] - fit.apply(best.pixels[i])) > ownLevels {
            own[i] = true
        }
        var grown = own
        for y in 0..<height {
            for x in 0..<width where own[y * width + x] {
                for ny in max(0, y - 1)...min(height - 1, y + 1) {
                    for nx in max(0, x - 1)...min(width - 1, x + 1) { grown[ny * width + nx] = true }
                }
            }
        }
        return grown
    }

    /// Whether the still cannot tell `frame` from `best`: on the pixels where they differ (and
    /// the still is seen), the still is not clearly closer to `best`.
    public static func indistinguishable(_ frame: LumaImage, from best: LumaImage, view: StillView, fit: PhotometricFit) -> Bool {
        var pixels = 0
        var toOther: Float = 0, toBest: Float = 0
        frame.pixels.withUnsafeBufferPointer { other in
            best.pixels.withUnsafeBufferPointer { chosen in
                view.warped.image.pixels.withUnsafeBufferPointer { s in
                    view.warped.valid.withUnsafeBufferPointer { seen in
                        for i in 0..<s.count where seen[i] && abs(other[i] - chosen[i]) > distinctLevels {
                            pixels += 1
                            toOther += min(abs(s[i] - fit.apply(other[i])), cap)
                            toBest += min(abs(s[i] - fit.apply(chosen[i])), cap)
                        }
                    }
                }
            }
        }
        guard pixels >= distinctPixels else { return true }
        return (toOther - toBest) / Float(pixels) < ruledOutMargin
    }
}
