import Animation
import LeakTrace
import Overlay
import TestSupport

/// A made-up lecture for alignment and tracing tests: a smooth random texture (a slide's
/// detail) under bright blobs that wander on incommensurate paths (a speaker, a demo), so every
/// instant looks different and no stretch of time repeats.
struct SyntheticVideo {
    let width: Int
    let height: Int
    private let texture: LumaImage
    private let blobs: [(x: [Double], y: [Double], radius: Double, brightness: Float)]

    init(width: Int, height: Int, seed: UInt64 = 7) {
        self.width = width
        self.height = height
        var random = SplitMix64(seed: seed)
        let coarse = LumaImage(width: 16, height: 9, pixels: (0..<144).map { _ in Float(40 + random.below(150)) })
        texture = coarse.resized(width: width, height: height)
        blobs = (0..<4).map { _ in
            ((0..<3).map { _ in 0.2 + Double(random.below(100)) / 97 }, (0..<3).map { _ in 0.2 + Double(random.below(100)) / 89 },
             Double(8 + random.below(10)) / 100 * Double(height), Float(60 + random.below(80)))
        }
    }

    /// The picture shown at `seconds`.
    func frame(at seconds: Double) -> LumaImage {
        var image = texture
        for blob in blobs {
            let cx = (0.5 + 0.4 * sinSum(blob.x, seconds)) * Double(width)
            let cy = (0.5 + 0.4 * sinSum(blob.y, seconds)) * Double(height)
            let r2 = blob.radius * blob.radius
            let x0 = max(0, Int(cx - blob.radius)), x1 = min(width - 1, Int(cx + blob.radius))
            let y0 = max(0, Int(cy - blob.radius)), y1 = min(height - 1, Int(cy + blob.radius))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 {
                    let d2 = (Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)
                    if d2 < r2 { image[x, y] = min(255, image[x, y] + blob.brightness * Float(1 - d2 / r2)) }
                }
            }
        }
        return image
    }

    /// A smooth, non-repeating wobble in −1…1.
    private func sinSum(_ rates: [Double], _ t: Double) -> Double {
        (rates.enumerated().map { i, rate in sinApprox(rate * t + Double(i) * 1.7) }.reduce(0, +)) / 3
    }
}

/// sin without Foundation, good to 1e-6 (the test data only needs smoothness).
func sinApprox(_ x: Double) -> Double {
    var y = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if y > Double.pi { y -= 2 * Double.pi } else if y < -Double.pi { y += 2 * Double.pi }
    var term = y, sum = y
    for n in stride(from: 3, through: 21, by: 2) {
        term *= -y * y / Double((n - 1) * n)
        sum += term
    }
    return sum
}

/// Rows of a made-up course: e-mail texts (the default seed) and mark footprints of their
/// own widths on a `width`×`height` original, moving at random every `durationMilliseconds`.
struct SyntheticRows {
    let layers: [[LayerSpec]]
    let footprints: [[MarkFootprint]]

    init(count: Int, width: Int, height: Int, durationMilliseconds: Int64) {
        var random = SplitMix64(seed: 42)
        var layers: [[LayerSpec]] = []
        var footprints: [[MarkFootprint]] = []
        for row in 0..<count {
            let text = "student\(row)-\(random.below(100_000))@example.edu"
            let timeline = LayerTimeline(xPercent: 0, yPercent: 0,
                                         motion: .random(durationMilliseconds: durationMilliseconds, seed: RandomSeed.from(text: text), easeMilliseconds: 0))
            layers.append([LayerSpec(content: .text(text), sizeFraction: 0.04, opacity: 0.4, timeline: timeline,
                                     origin: LayerSpec.Origin(file: "marks.json", path: "watermarks[0]"))])
            let markWidth = width * (26 + random.below(10)) / 100, markHeight = max(5, height / 14)
            footprints.append([MarkFootprint(width: markWidth, height: markHeight,
                                             layoutBox: PixelRect(x: 1, y: 1, width: markWidth - 2, height: markHeight - 2),
                                             displayWidth: width, displayHeight: height,
                                             insetPixels: 0.03 * Double(min(width, height)), isTiled: false)])
        }
        self.layers = layers
        self.footprints = footprints
    }

    /// Where `row`'s mark is at `seconds`, in display pixels.
    func rect(row: Int, at seconds: Double) -> PixelRect {
        let state = layers[row][0].timeline.state(at: PresentationTime(seconds: seconds))
        return footprints[row][0].displayRect(xPercent: state.xPercent, yPercent: state.yPercent)
    }
}

/// How a made-up leak was made from the original.
struct LeakRecipe {
    /// Original time = leak time + offset.
    var offset = 6.3
    var duration = 20.0
    var framesPerSecond = 8.0
    var crops = CropFractions(left: 0.08, right: 0, top: 0.05, bottom: 0)
    var width = 128
    var height = 72
    /// The row whose mark is burned in and then blurred away; nil for an unmarked copy.
    var markedRow: Int? = nil
    var noiseAmplitude = 3

    /// The leak's frames: the original at each instant, the row's mark blended at 0.4 opacity as
    /// text-like stripes and blurred until no stripe is left, cropped, scaled, and noised.
    func frames(of video: SyntheticVideo, rows: SyntheticRows) -> [TimedLuma] {
        var random = SplitMix64(seed: 99)
        let count = Int(duration * framesPerSecond)
        return (0..<count).map { index in
            let time = Double(index) / framesPerSecond
            var picture = video.frame(at: time + offset)
            if let markedRow {
                let r = rows.rect(row: markedRow, at: time + offset)
                for y in max(r.y, 0)..<min(r.maxY, picture.height) {
                    for x in max(r.x, 0)..<min(r.maxX, picture.width) where (x / 2 + y / 3) % 2 == 0 {
                        picture[x, y] += 0.4 * (255 - picture[x, y])
                    }
                }
                picture = blurred(picture, inside: r)
            }
            let region = crops.visibleRegion(width: Double(picture.width), height: Double(picture.height))
            var leak = picture.resampled(from: region, width: width, height: height)
            for i in leak.pixels.indices {
                leak.pixels[i] = min(255, max(0, leak.pixels[i] + Float(random.below(2 * noiseAmplitude + 1) - noiseAmplitude)))
            }
            return TimedLuma(time: time, image: leak)
        }
    }

    /// `image` with `rect` replaced by a heavy blur of itself, as a leaker hides a mark.
    private func blurred(_ image: LumaImage, inside rect: PixelRect) -> LumaImage {
        let blurred = image.boxBlurred(radius: 4).boxBlurred(radius: 4)
        var result = image
        for y in max(rect.y - 2, 0)..<min(rect.maxY + 2, image.height) {
            for x in max(rect.x - 2, 0)..<min(rect.maxX + 2, image.width) { result[x, y] = blurred[x, y] }
        }
        return result
    }
}

