import Foundation

/// Makes a still's placement exact: the still is warped onto the original frame's grid through
/// the placement, patches of the frame where it has texture are looked for a few pixels around
/// (normalised cross-correlation, to a tenth of a pixel), and the homography those shifts agree
/// on corrects the placement. Features give a placement to a pixel or two of a 640-pixel frame;
/// the marks' positions are judged to a fraction of a letter, which needs better.
public enum PlacementRefinement {
    /// Patches are this many grid pixels either side of their centre.
    static let patchRadius = 7
    /// Patches looked for, at most.
    static let patchCount = 300
    /// A patch counts when it correlates at least this well at its best shift.
    static let minimumCorrelation: Float = 0.8

    /// `map` (display → still) refined against `frame` (the original's display on a grid
    /// `frame.width` wide), searching ±`radius` grid pixels; the map unchanged when too few
    /// patches agree.
    public static func refine(_ map: Homography, still: PicturePyramid, frame: LumaImage, display: (width: Int, height: Int),
                              radius: Int) -> Homography {
        let scale = Double(frame.width) / Double(display.width)
        let view = still.warped(by: map, region: PlaneRect(minX: 0, minY: 0, maxX: Double(display.width), maxY: Double(display.height)),
                                width: frame.width, height: frame.height)
        let centres = textured(frame, valid: view.valid, margin: patchRadius + radius + 1)
        var from: [(x: Double, y: Double)] = [], to: [(x: Double, y: Double)] = []
        for centre in centres {
            guard let shift = bestShift(of: frame, in: view.image, at: centre, radius: radius) else { continue }
            from.append((Double(centre.x) + 0.5, Double(centre.y) + 0.5))
            to.append((Double(centre.x) + 0.5 + shift.x, Double(centre.y) + 0.5 + shift.y))
        }
        // Grid → where the still shows it on the grid, among patches that agree to half a pixel.
        guard let correction = RobustHomography.estimate(from: from, to: to, threshold: 0.5, minimumInliers: 12) else { return map }
        let toGrid = Homography(scaleX: scale, scaleY: scale, offsetX: 0, offsetY: 0)
        let toDisplay = Homography(scaleX: 1 / scale, scaleY: 1 / scale, offsetX: 0, offsetY: 0)
        return toGrid.followed(by: correction.map).followed(by: toDisplay).followed(by: map)
    }

    /// Patch centres where the frame has texture in both directions (the smaller eigenvalue of
    /// the gradients' structure tensor over the patch), strongest first, one per cell of a grid
    /// so that they spread, inside `margin` of the edges and where the still is seen.
    static func textured(_ frame: LumaImage, valid: [Bool], margin: Int) -> [(x: Int, y: Int)] {
        let width = frame.width, height = frame.height
        guard width > 2 * margin, height > 2 * margin else { return [] }
        let cell = max(8, Int((Double((width - 2 * margin) * (height - 2 * margin)) / Double(patchCount)).squareRoot()))
        var chosen: [(x: Int, y: Int, strength: Float)] = []
        frame.pixels.withUnsafeBufferPointer { p in
            var cellY = margin
            while cellY < height - margin {
                var cellX = margin
                while cellX < width - margin {
                    var best: (x: Int, y: Int, strength: Float)?
                    for y in stride(from: cellY, to: min(cellY + cell, height - margin), by: 2) {
                        for x in stride(from: cellX, to: min(cellX + cell, width - margin), by: 2) where valid[y * width + x] {
                            var a: Float = 0, b: Float = 0, c: Float = 0
                            for dy in stride(from: -patchRadius, through: patchRadius, by: 2) {
                                for dx in stride(from: -patchRadius, through: patchRadius, by: 2) {
                                    let i = (y + dy) * width + x + dx
                                    let gx = p[i + 1] - p[i - 1], gy = p[i + width] - p[i - width]
                                    a += gx * gx; b += gx * gy; c += gy * gy
                                }
                            }
                            let half = (a - c) / 2
                            let strength = (a + c) / 2 - (half * half + b * b).squareRoot()
                            if strength > best?.strength ?? 100 { best = (x, y, strength) }
                        }
                    }
                    if let best { chosen.append(best) }
                    cellX += cell
                }
                cellY += cell
            }
        }
        return chosen.sorted { $0.strength > $1.strength }.prefix(patchCount).map { ($0.x, $0.y) }
    }

    /// The shift (grid pixels, to a tenth) at which `view` shows the patch of `frame` centred at
    /// `centre`, within ±`radius`; nil when no shift correlates well or the best is on the edge.
    static func bestShift(of frame: LumaImage, in view: LumaImage, at centre: (x: Int, y: Int), radius: Int) -> (x: Double, y: Double)? {
        let width = frame.width, r = patchRadius
        let count = Float((2 * r + 1) * (2 * r + 1))
        var scores = [Float](repeating: -1, count: (2 * radius + 1) * (2 * radius + 1))
        frame.pixels.withUnsafeBufferPointer { f in
            view.pixels.withUnsafeBufferPointer { v in
                var fSum: Float = 0, fSquares: Float = 0
                for dy in -r...r { for dx in -r...r { let value = f[(centre.y + dy) * width + centre.x + dx]; fSum += value; fSquares += value * value } }
                let fMean = fSum / count
                let fVariance = fSquares / count - fMean * fMean
                guard fVariance > 4 else { return }
                for sy in -radius...radius {
                    for sx in -radius...radius {
                        var vSum: Float = 0, vSquares: Float = 0, cross: Float = 0
                        for dy in -r...r {
                            let fRow = (centre.y + dy) * width + centre.x, vRow = (centre.y + dy + sy) * width + centre.x + sx
                            for dx in -r...r {
                                let a = f[fRow + dx], b = v[vRow + dx]
                                vSum += b; vSquares += b * b; cross += a * b
                            }
                        }
                        let vMean = vSum / count
                        let vVariance = vSquares / count - vMean * vMean
                        guard vVariance > 1 else { continue }
                        scores[(sy + radius) * (2 * radius + 1) + sx + radius] = (cross / count - fMean * vMean) / (fVariance * vVariance).squareRoot()
                    }
                }
            }
        }
        let side = 2 * radius + 1
        guard let bestIndex = scores.indices.max(by: { scores[$0] < scores[$1] }), scores[bestIndex] >= minimumCorrelation else { return nil }
        let bx = bestIndex % side, by = bestIndex / side
        guard bx > 0, by > 0, bx < side - 1, by < side - 1 else { return nil }
        // A parabola through the best and its neighbours, per axis.
        func offset(_ minus: Float, _ centre: Float, _ plus: Float) -> Double {
            let denominator = minus - 2 * centre + plus
            return denominator < 0 ? Double(min(max((minus - plus) / (2 * denominator), -0.5), 0.5)) : 0
        }
        let s = scores
        let ox = offset(s[by * side + bx - 1], s[by * side + bx], s[by * side + bx + 1])
        let oy = offset(s[(by - 1) * side + bx], s[by * side + bx], s[(by + 1) * side + bx])
        return (Double(bx - radius) + ox, Double(by - radius) + oy)
    }
}
