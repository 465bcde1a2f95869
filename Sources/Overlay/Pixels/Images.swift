/// An integer rectangle in pixel coordinates (origin top-left, y down).
public struct PixelRect: Equatable, Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The overlap of two rectangles; empty (zero size) when they do not meet.
    public func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return PixelRect(x: left, y: top, width: 0, height: 0) }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

/// 8-bit RGBA pixels whose colour is *not* multiplied by alpha: what decoders hand out
/// and what still-image encoders expect. Rows are tightly packed, 4 bytes a pixel.
public struct StraightRGBAImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4, "pixel buffer does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A fully transparent (or filled) image.
    public init(width: Int, height: Int, fill: RGBAColor = .clear) {
        self.width = width
        self.height = height
        var row = [UInt8](repeating: 0, count: width * height * 4)
        if fill != .clear {
            for i in stride(from: 0, to: row.count, by: 4) {
                row[i] = fill.red; row[i + 1] = fill.green; row[i + 2] = fill.blue; row[i + 3] = fill.alpha
            }
        }
        self.pixels = row
    }

    public func pixel(x: Int, y: Int) -> RGBAColor {
        let i = (y * width + x) * 4
        return RGBAColor(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2], alpha: pixels[i + 3])
    }

    /// The same pixels with colour multiplied by alpha, rounded to nearest.
    public func premultiplied() -> PremultipliedRGBAImage {
        var out = pixels
        for i in stride(from: 0, to: out.count, by: 4) {
            let a = UInt32(out[i + 3])
            if a == 255 { continue }
            out[i] = divideBy255(UInt32(out[i]) * a)
            out[i + 1] = divideBy255(UInt32(out[i + 1]) * a)
            out[i + 2] = divideBy255(UInt32(out[i + 2]) * a)
        }
        return PremultipliedRGBAImage(width: width, height: height, pixels: out)
    }
}

/// 8-bit RGBA pixels whose colour channels are already multiplied by alpha
/// (so each channel ≤ alpha). Prepared marks are kept this way: blending is then one
/// multiply-add per channel, and resampling does not bleed colour from transparent pixels.
public struct PremultipliedRGBAImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4, "pixel buffer does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A fully transparent image.
    public init(width: Int, height: Int) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 4))
    }

    public func pixel(x: Int, y: Int) -> RGBAColor {
        let i = (y * width + x) * 4
        return RGBAColor(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2], alpha: pixels[i + 3])
    }

    /// Multiplies every channel by `factor` (0…255 meaning 0…1): how opacity is applied.
    public func scaled(byAlpha factor: UInt8) -> PremultipliedRGBAImage {
        if factor == 255 { return self }
        var out = pixels
        let f = UInt32(factor)
        for i in out.indices { out[i] = divideBy255(UInt32(out[i]) * f) }
        return PremultipliedRGBAImage(width: width, height: height, pixels: out)
    }

    /// The smallest rectangle holding every pixel with non-zero alpha, or nil when none has.
    public func opaqueBounds() -> PixelRect? {
        var minX = width, minY = height, maxX = -1, maxY = -1
        pixels.withUnsafeBufferPointer { p in
            for y in 0..<height {
                var rowHas = false
                let base = y * width * 4
                for x in 0..<width where p[base + x * 4 + 3] != 0 {
                    rowHas = true
                    if x < minX { minX = x }
                    if x > maxX { maxX = x }
                }
                if rowHas {
                    if y < minY { minY = y }
                    maxY = y
                }
            }
        }
        guard maxX >= 0 else { return nil }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    /// Copies out a sub-rectangle (which must lie inside the image).
    public func cropped(to rect: PixelRect) -> PremultipliedRGBAImage {
        precondition(rect.x >= 0 && rect.y >= 0 && rect.maxX <= width && rect.maxY <= height, "crop outside image")
        var out = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
        for row in 0..<rect.height {
            let src = ((rect.y + row) * width + rect.x) * 4
            out.replaceSubrange(row * rect.width * 4..<(row + 1) * rect.width * 4, with: pixels[src..<src + rect.width * 4])
        }
        return PremultipliedRGBAImage(width: rect.width, height: rect.height, pixels: out)
    }
}

/// Rounded `x / 255` for `x` in 0…255·255 (any product of two 8-bit values), without a division:
/// the classic `(t + (t >> 8)) >> 8` with `t = x + 128`, exact over that whole range.
@inline(__always)
public func divideBy255(_ x: UInt32) -> UInt8 {
    let t = x &+ 128
    return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
}
