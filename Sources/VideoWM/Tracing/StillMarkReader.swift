import Foundation
import LeakTrace

/// Reads the text of the marks found in a still: each line the opacity map shows is cut out of
/// the still through its placement (rectified, whatever the photograph's angle), enlarged until
/// its capitals are about `capitalHeight` pixels tall, and read by Tesseract twice — as the
/// opacity a mark of the marks' colours needs there (the mark alone, dark on white, the slide
/// under it taken away) and as the still's own pixels (for when the original under the mark is
/// not known well enough).
struct StillMarkReader {
    /// Tesseract reads best with capitals of about this many pixels.
    static let capitalHeight = 40.0
    /// A cut-out is at most this wide.
    static let maximumWidth = 2400.0

    let recognizer: TextRecognizer

    /// `characters`: the only ones the marks can hold.
    init(characters: String) throws {
        recognizer = try TextRecognizer(characters: characters.isEmpty ? nil : characters)
    }

    /// Reads the lines around `boxes` (display pixels) of `still` placed by `map`, compared on
    /// `difference`'s grid; `marks` are the marks' colours.
    func read(_ boxes: [PlaneRect], still: PicturePyramid, map: Homography, difference: StillDifference,
              lineHeight: Double, marks: MarkColors) -> [MarkReading] {
        var readings: [MarkReading] = []
        for box in boxes {
            // Wider than the place: a row's text may be longer than the typical one.
            let region = PlaneRect(minX: box.minX - 0.25 * box.width, minY: box.minY - 0.3 * lineHeight,
                                   maxX: box.maxX + 0.25 * box.width, maxY: box.maxY + 0.3 * lineHeight)
            let scale = min(Self.capitalHeight / max(lineHeight, 1), Self.maximumWidth / max(region.width, 1))
            let width = max(8, Int((region.width * scale).rounded())), height = max(8, Int((region.height * scale).rounded()))
            let cut = still.warped(by: map, region: region, width: width, height: height)
            let grid = PlaneRect(minX: region.minX * difference.scale, minY: region.minY * difference.scale,
                                 maxX: region.maxX * difference.scale, maxY: region.maxY * difference.scale)
            let background = difference.background.resampled(from: grid, width: width, height: height)
            let pictures: [(LumaImage, MarkReading.Source)] = [
                (Self.inkPicture(background.opacity(of: cut, marks: marks), width: width, height: height, opacity: marks.opacity), .opacity),
                (Self.inkPicture(background.excess(of: cut), width: width, height: height), .difference),
                (Self.ownPicture(cut, lineHeight: lineHeight * scale, markIsLighter: marks.levels[0] > background.level.mean), .picture),
            ]
            for (picture, source) in pictures {
                StillTraceDiagnostics.save("ocr-\(readings.count)-\(source.rawValue)", values: picture.pixels, width: picture.width, height: picture.height)
                let inked = Self.withoutRules(Self.binarized(picture), longest: Int(3 * Self.capitalHeight))
                // From the cut-out's pixels back to the original's.
                let display = AxisAlignedMap(scaleX: 1 / scale, scaleY: 1 / scale, offsetX: region.minX, offsetY: region.minY)
                for line in recognizer.read(inked, layout: .singleLine).lines where !line.words.isEmpty {
                    readings.append(MarkReading(text: line.text, confidence: line.confidence, box: display.apply(line.box), source: source,
                                                characterBoxes: line.characterBoxes.map(display.apply)))
                }
            }
        }
        return readings
    }

    /// Ink and paper apart: the picture softened over 3×3 pixels (a photograph's grain and a
    /// JPEG's blocks would break strokes), then black below Otsu's threshold, white above.
    /// Tesseract binarises too, but on these faint, grainy pictures its threshold loses letters.
    static func binarized(_ picture: LumaImage) -> LumaImage {
        let soft = picture.boxBlurred(radius: 1)
        var histogram = [Double](repeating: 0, count: 256)
        for value in soft.pixels { histogram[Int(min(max(value, 0), 255))] += 1 }
        let total = Double(soft.pixels.count)
        let sum = histogram.indices.reduce(0.0) { $0 + Double($1) * histogram[$1] }
        var below = 0.0, belowSum = 0.0, best = (spread: -1.0, threshold: 128)
        for threshold in 0..<255 {
            below += histogram[threshold]
            belowSum += Double(threshold) * histogram[threshold]
            let above = total - below
            guard below > 0, above > 0 else { continue }
            let difference = belowSum / below - (sum - belowSum) / above
            let spread = below * above * difference * difference
            if spread > best.spread { best = (spread, threshold) }
        }
        let cut = Float(best.threshold)
        return LumaImage(width: picture.width, height: picture.height, pixels: soft.pixels.map { $0 <= cut ? 0 : 255 })
    }

    /// Runs of ink longer than `longest` pixels along a row (a progress bar, an edge, a rule under
    /// the text) turned to paper: no letter is that wide, and Tesseract reads underlined text badly.
    static func withoutRules(_ picture: LumaImage, longest: Int) -> LumaImage {
        var pixels = picture.pixels
        let width = picture.width
        for y in 0..<picture.height {
            var start: Int?
            for x in 0...width {
                let ink = x < width && pixels[y * width + x] == 0
                if ink, start == nil { start = x }
                if !ink, let first = start {
                    if x - first > longest { for clear in first..<x { pixels[y * width + clear] = 255 } }
                    start = nil
                }
            }
        }
        return LumaImage(width: width, height: picture.height, pixels: pixels)
    }

    /// Opacities as ink: full black at about the layer's own opacity, white where nothing is.
    static func inkPicture(_ opacity: [Float], width: Int, height: Int, opacity full: Float) -> LumaImage {
        let scale = 1 / max(0.7 * full, 0.05)
        return LumaImage(width: width, height: height, pixels: opacity.map { 255 * (1 - min($0 * scale, 1)) })
    }

    /// Differences as ink, black at the strongest (the 98th percentile), white where none.
    static func inkPicture(_ excess: [Float], width: Int, height: Int) -> LumaImage {
        let sorted = excess.filter { $0 > 0 }.sorted()
        let strong = sorted.isEmpty ? 1 : max(sorted[sorted.count * 98 / 100], 4)
        return LumaImage(width: width, height: height, pixels: excess.map { 255 * (1 - min($0 / strong, 1)) })
    }

    /// The still's own pixels with the picture's slow changes taken away (less a blur as wide
    /// as half a line), stretched, turned so that a mark lighter than what is under it reads dark.
    static func ownPicture(_ cut: WarpedPicture, lineHeight: Double, markIsLighter: Bool) -> LumaImage {
        let image = cut.image
        let even = image.boxBlurred(radius: max(2, Int(lineHeight / 2)))
        let detail = zip(image.pixels, even.pixels).map { ($0 - $1) * (markIsLighter ? -1 : 1) }
        let sorted = detail.map(abs).sorted()
        let strong = max(sorted.isEmpty ? 1 : sorted[sorted.count * 98 / 100], 4)
        let pixels = detail.indices.map { cut.valid[$0] ? 255 * min(max(0.5 + 0.5 * detail[$0] / strong, 0), 1) : 255 }
        return LumaImage(width: image.width, height: image.height, pixels: pixels)
    }
}
