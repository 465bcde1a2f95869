import Animation
import Foundation
import Overlay

/// `videowm stamp`: marks a still image with the same compositor as video.
public enum StillStamper {
    /// Marks `input` and writes `output`. EXIF orientation is applied first, so the mark lands
    /// where a person sees "bottom-right" and the output displays upright without the tag.
    public static func stamp(input: String, output: String, compositor: Compositor, at time: PresentationTime,
                             overwrite: Bool, jpegQuality: Int = 90) throws {
        _ = try StillImageWriter.checkFormat(output)
        let decoded = try StillImageReader.read(path: input)
        var image = decoded.image.oriented(exif: decoded.exifOrientation ?? 1)
        try image.withCanvas { canvas in try compositor.composite(onto: canvas, at: time) }
        try StillImageWriter.write(image, to: output, overwrite: overwrite, inputs: [input], jpegQuality: jpegQuality)
    }
}

extension StraightRGBAImage {
    /// The upright picture for an EXIF orientation tag (1 = as stored … 8).
    func oriented(exif orientation: Int) -> StraightRGBAImage {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let outW = swaps ? height : width, outH = swaps ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<outH {
            for x in 0..<outW {
                // Source pixel shown at display (x, y), per the EXIF definitions.
                let (sx, sy): (Int, Int)
                switch orientation {
                case 2: (sx, sy) = (width - 1 - x, y)
                case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
                case 4: (sx, sy) = (x, height - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, height - 1 - x)
                case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
                default: (sx, sy) = (width - 1 - y, x)
                }
                let s = (sy * width + sx) * 4, d = (y * outW + x) * 4
                out[d] = pixels[s]; out[d + 1] = pixels[s + 1]; out[d + 2] = pixels[s + 2]; out[d + 3] = pixels[s + 3]
            }
        }
        return StraightRGBAImage(width: outW, height: outH, pixels: out)
    }
}
