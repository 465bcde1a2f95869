import Foundation
import TestSupport
import Testing
@testable import Overlay

/// `TilePattern.render` against the floating-point version it replaced (libm floors and
/// roundings per pixel), kept here: random tiles, frames, angles and gaps, and the
/// non-finite parameters that draw nothing. The images must be identical.
@Suite("tile rendering reference")
struct TileRenderingReferenceTests {
    @Test func integerFloorsSampleTheSameTilePixels() {
        var random = SplitMix64(seed: 0x711E)
        let angles: [Double] = [0, 90, -90, 180, -30, 45, 30.000001]
        for trial in 0..<120 {
            let tile = Self.randomTile(&random, width: 1 + random.below(24), height: 1 + random.below(10))
            let width = 1 + random.below(90), height = 1 + random.below(70)
            let angle = trial < angles.count ? angles[trial] : Double(random.below(360_000)) / 1000 - 180
            let gap = random.below(4) == 0 ? 0 : Double(random.below(300)) / 1000
            let pattern = TilePattern(angleDegrees: angle, spacingFraction: gap)
            let rendered = pattern.render(tile: tile, frameWidth: width, frameHeight: height, gapFraction: gap)
            let expected = Self.reference(pattern, tile: tile, frameWidth: width, frameHeight: height, gapFraction: gap)
            #expect(rendered == expected, "trial \(trial): \(tile.width)×\(tile.height) tile, \(width)×\(height) frame, \(angle)°, gap \(gap)")
        }
    }

    @Test func aFrameSizedPatternIsUnchanged() {
        var random = SplitMix64(seed: 0x7111E)
        let tile = Self.randomTile(&random, width: 61, height: 13)
        let pattern = TilePattern(angleDegrees: -30, spacingFraction: 0.05)
        #expect(pattern.render(tile: tile, frameWidth: 320, frameHeight: 180)
                == Self.reference(pattern, tile: tile, frameWidth: 320, frameHeight: 180, gapFraction: 0.05))
    }

    @Test(arguments: [(Double.nan, 0.05), (.infinity, 0.05), (1e300, 0.05), (-30, .infinity), (-30, 1e300), (-30, .nan)])
    func nonFiniteOrHugeParametersDrawWhatTheyAlwaysDrew(angle: Double, gap: Double) {
        var random = SplitMix64(seed: 0x7112E)
        let tile = Self.randomTile(&random, width: 9, height: 5)
        let pattern = TilePattern(angleDegrees: angle, spacingFraction: gap)
        #expect(pattern.render(tile: tile, frameWidth: 40, frameHeight: 30, gapFraction: gap)
                == Self.reference(pattern, tile: tile, frameWidth: 40, frameHeight: 30, gapFraction: gap))
    }

    static func randomTile(_ random: inout SplitMix64, width: Int, height: Int) -> PremultipliedRGBAImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            let alpha = random.below(3) == 0 ? 0 : random.below(256)
            for c in 0..<3 { pixels[i * 4 + c] = UInt8(random.below(alpha + 1)) }
            pixels[i * 4 + 3] = UInt8(alpha)
        }
        return PremultipliedRGBAImage(width: width, height: height, pixels: pixels)
    }

    /// `TilePattern.render` as it was, with `rounded(.down)`, `truncatingRemainder` and `rounded()`.
    static func reference(_ pattern: TilePattern, tile: PremultipliedRGBAImage, frameWidth width: Int, frameHeight height: Int,
                          gapFraction: Double) -> PremultipliedRGBAImage {
        let shortSide = Double(min(width, height))
        let gap = max(0, gapFraction) * shortSide
        let cellW = Double(tile.width) + gap
        let cellH = Double(tile.height) + gap
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let radians = pattern.angleDegrees * Double.pi / 180
        let cosA = cos(-radians), sinA = sin(-radians)
        let cx = Double(width) / 2, cy = Double(height) / 2
        let tileW = tile.width, tileH = tile.height
        func add(_ px: Int, _ py: Int, _ w: Double, _ acc: inout (Double, Double, Double, Double)) {
            guard w > 0, px >= 0, py >= 0, px < tileW, py < tileH else { return }
            let i = (py * tileW + px) * 4
            acc.0 += w * Double(tile.pixels[i]); acc.1 += w * Double(tile.pixels[i + 1])
            acc.2 += w * Double(tile.pixels[i + 2]); acc.3 += w * Double(tile.pixels[i + 3])
        }
        for y in 0..<height {
            let fy = Double(y) + 0.5 - cy
            for x in 0..<width {
                let fx = Double(x) + 0.5 - cx
                let u = fx * cosA - fy * sinA
                let v = fx * sinA + fy * cosA
                let row = (v / cellH).rounded(.down)
                let shiftedU = u - (row.truncatingRemainder(dividingBy: 2) == 0 ? 0 : cellW / 2)
                let lu = shiftedU - (shiftedU / cellW).rounded(.down) * cellW
                let lv = v - row * cellH
                let sx = lu - 0.5, sy = lv - 0.5
                guard sx < Double(tileW), sy < Double(tileH) else { continue }
                let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                let tx = sx - Double(x0), ty = sy - Double(y0)
                var acc = (0.0, 0.0, 0.0, 0.0)
                add(x0, y0, (1 - tx) * (1 - ty), &acc)
                add(x0 + 1, y0, tx * (1 - ty), &acc)
                add(x0, y0 + 1, (1 - tx) * ty, &acc)
                add(x0 + 1, y0 + 1, tx * ty, &acc)
                if acc.3 < 0.5 { continue }
                let o = (y * width + x) * 4
                let a = UInt8(min(255, acc.3.rounded()))
                out[o] = min(a, UInt8(min(255, acc.0.rounded())))
                out[o + 1] = min(a, UInt8(min(255, acc.1.rounded())))
                out[o + 2] = min(a, UInt8(min(255, acc.2.rounded())))
                out[o + 3] = a
            }
        }
        return PremultipliedRGBAImage(width: width, height: height, pixels: out)
    }
}
