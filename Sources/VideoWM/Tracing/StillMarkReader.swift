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
            // Generous below: a light mark's lower half over a light slide may not have shown.
            let region = PlaneRect(minX: box.minX - 0.8 * lineHeight, minY: box.minY - 0.6 * lineHeight,
                                   maxX: box.maxX + 0.8 * lineHeight, maxY: box.maxY + 0.9 * lineHeight)
            let scale = min(Self.capitalHeight / max(lineHeight, 1), Self.maximumWidth / max(region.width, 1))
            let width = max(8, Int((region.width * scale).rounded())), height = max(8, Int((region.height * scale).rounded()))
            let cut = still.warped(by: map, region: region, width: width, height: height)
            let grid = PlaneRect(minX: region.minX * difference.scale, minY: region.minY * difference.scale,
                                 maxX: region.maxX * difference.scale, maxY: region.maxY * difference.scale)
            let background = difference.background.resampled(from: grid, width: width, height: height)
            let pictures: [(LumaImage, MarkReading.Source)] = [
                (Self.inkPicture(background.opacity(of: cut, marks: marks), width: width, height: height, opacity: marks.opacity), .opacity),
                (Self.ownPicture(cut, background: background.level, fit: difference.fit, markLuma: marks.levels[0]), .picture),
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

    /// The still's pixels, stretched to the full range, turned so that a mark lighter than the
    /// picture under it reads dark on light.
    static func ownPicture(_ cut: WarpedPicture, background: LumaImage, fit: PhotometricFit, markLuma: Float) -> LumaImage {
        let seen = cut.valid.indices.filter { cut.valid[$0] }.map { cut.image.pixels[$0] }.sorted()
        guard seen.count > 16 else { return LumaImage(width: cut.image.width, height: cut.image.height, filledWith: 255) }
        let low = seen[seen.count / 50], high = seen[seen.count - 1 - seen.count / 50]
        let backgroundLevel = background.pixels.sorted()[background.pixels.count / 2]
        let invert = fit.apply(markLuma) > fit.apply(backgroundLevel)
        let range = max(high - low, 1)
        let pixels = cut.image.pixels.indices.map { i -> Float in
            guard cut.valid[i] else { return 255 }
            let stretched = min(max((cut.image.pixels[i] - low) / range, 0), 1) * 255
            return invert ? 255 - stretched : stretched
        }
        return LumaImage(width: cut.image.width, height: cut.image.height, pixels: pixels)
    }
}
