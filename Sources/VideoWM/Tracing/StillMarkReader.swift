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
            let region = PlaneRect(minX: box.minX - 0.8 * lineHeight, minY: box.minY - 0.45 * lineHeight,
                                   maxX: box.maxX + 0.8 * lineHeight, maxY: box.maxY + 0.5 * lineHeight)
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
                if let folder = ProcessInfo.processInfo.environment["VIDEOWM_STILL_DEBUG_DIR"] {
                    let header = "P5 \(picture.width) \(picture.height) 255\n"
                    let bytes = Array(header.utf8) + picture.pixels.map { UInt8(min(max($0, 0), 255)) }
                    FileManager.default.createFile(atPath: "\(folder)/ocr-\(readings.count)-\(source.rawValue).pgm", contents: Data(bytes))
                }
                for line in recognizer.read(picture, layout: .singleLine).lines where !line.words.isEmpty {
                    let box = line.box
                    readings.append(MarkReading(text: line.text, confidence: line.confidence,
                                                box: PlaneRect(minX: region.minX + box.minX / scale, minY: region.minY + box.minY / scale,
                                                               maxX: region.minX + box.maxX / scale, maxY: region.minY + box.maxY / scale),
                                                source: source))
                }
            }
        }
        return readings
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
