import LeakTrace
import Overlay

/// A still picture read as a person sees it: decoded (libjpeg-turbo, libheif or FFmpeg) and
/// turned upright by its EXIF orientation, for code that looks at stills rather than marks
/// them (`trace` of a screenshot or a photograph).
enum UprightStill {
    /// Whether a file's first bytes are a still picture's: PNG, JPEG, WebP, TIFF or HEIF/HEIC.
    static func looksLikeStill(_ header: [UInt8]) -> Bool {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            offset + prefix.count <= header.count && Array(header[offset..<offset + prefix.count]) == prefix
        }
        return starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) || starts([0xFF, 0xD8, 0xFF])
            || (starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8))
            || starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A])
            || HEIFReader.looksLikeHEIF(header)
    }

    /// Whether the file at `path` starts like a still picture (false when it cannot be read).
    static func looksLikeStill(path: String) -> Bool {
        looksLikeStill((try? BoundedRead.prefix(of: path, count: 64)) ?? [])
    }

    /// The picture at `path`, upright, as straight RGBA.
    static func read(path: String) throws -> StraightRGBAImage {
        if HEIFReader.looksLikeHEIF((try? BoundedRead.prefix(of: path, count: 64)) ?? []) {
            return try HEIFReader.read(path: path, checkSize: { try StillImageReader.checkSize(width: $0, height: $1, path: path) }).image
        }
        let decoded = try StillImageReader.read(path: path)
        let orientation = decoded.exifOrientation.flatMap(ExifOrientation.init) ?? ExifOrientation.inPNG(at: path) ?? .upright
        return decoded.image.oriented(orientation)
    }

    /// The picture at `path`, upright, as full-range luma (swscale's conversion of the decoded
    /// picture, as `trace` converts a video's frames).
    static func grey(path: String) throws -> LumaImage {
        if HEIFReader.looksLikeHEIF((try? BoundedRead.prefix(of: path, count: 64)) ?? []) {
            let image = try read(path: path)
            var pixels = [Float](repeating: 0, count: image.width * image.height)
            image.pixels.withUnsafeBufferPointer { rgba in
                for i in pixels.indices {
                    pixels[i] = 0.2126 * Float(rgba[4 * i]) + 0.7152 * Float(rgba[4 * i + 1]) + 0.0722 * Float(rgba[4 * i + 2])
                }
            }
            return LumaImage(width: image.width, height: image.height, pixels: pixels)
        }
        let decoded = try StillImageReader.decodeFrame(path: path)
        let frame = decoded.frame
        let colors = ColorConversion.toRGBA(from: frame.color, format: frame.pixelFormat, height: frame.height, stillRange: true)
        let scaler = try PixelScaler(from: (frame.width, frame.height, frame.pixelFormat), to: (frame.width, frame.height, .gray8),
                                     colors: colors, file: path)
        var bytes = [UInt8](repeating: 0, count: frame.width * frame.height)
        try bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try scaler.scale(frame, intoPacked: base, bytesPerRow: frame.width)
        }
        let orientation = decoded.exifOrientation.flatMap(ExifOrientation.init) ?? ExifOrientation.inPNG(at: path) ?? .upright
        let (width, height) = orientation.swapsWidthAndHeight ? (frame.height, frame.width) : (frame.width, frame.height)
        var pixels = [Float](repeating: 0, count: width * height)
        bytes.withUnsafeBufferPointer { stored in
            for y in 0..<height {
                for x in 0..<width {
                    let position = orientation == .upright ? (x: x, y: y)
                        : orientation.storedPosition(ofDisplayX: x, y: y, storedWidth: frame.width, storedHeight: frame.height)
                    pixels[y * width + x] = Float(stored[position.y * frame.width + position.x])
                }
            }
        }
        return LumaImage(width: width, height: height, pixels: pixels)
    }
}
