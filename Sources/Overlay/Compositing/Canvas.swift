/// Something a prepared mark can be blended onto: an RGBA still or a planar YUV video frame.
///
/// Canvases are views over memory their caller owns; blending writes only the pixels the
/// mark covers (its rectangle clipped to the canvas) and leaves every other byte untouched.
public protocol CompositingCanvas {
    var width: Int { get }
    var height: Int { get }
    /// Blends `mark` with its image's top-left corner at (`x`, `y`), alpha scaled by `opacity` (0…255).
    func blend(_ mark: PreparedMark, atX x: Int, y: Int, opacity: UInt8)
}

/// A straight-alpha 8-bit RGBA canvas over caller-owned memory.
public struct RGBACanvas: CompositingCanvas {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public let pixels: UnsafeMutablePointer<UInt8>
    /// What the pixels' values mean: a PQ or HLG still gets its marks mapped to graphics white.
    public let colorSpace: FrameColorSpace

    public init(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int,
                colorSpace: FrameColorSpace = .sdr) {
        precondition(bytesPerRow >= width * 4, "row stride shorter than a row")
        self.pixels = pixels
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.colorSpace = colorSpace
    }

    public func blend(_ mark: PreparedMark, atX x: Int, y: Int, opacity: UInt8) {
        let image = mark.rgba(for: colorSpace)
        let area = PixelRect(x: x, y: y, width: image.width, height: image.height)
            .intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !area.isEmpty, opacity > 0 else { return }
        let factor = UInt32(opacity)
        image.pixels.withUnsafeBufferPointer { src in
            for row in area.y..<area.maxY {
                let dstRow = pixels + row * bytesPerRow
                let srcRow = (row - y) * image.width * 4
                for column in area.x..<area.maxX {
                    let s = srcRow + (column - x) * 4
                    var sa = UInt32(src[s + 3])
                    if sa == 0 { continue }
                    var sr = UInt32(src[s]), sg = UInt32(src[s + 1]), sb = UInt32(src[s + 2])
                    if factor != 255 {
                        sr = UInt32(divideBy255(sr * factor)); sg = UInt32(divideBy255(sg * factor))
                        sb = UInt32(divideBy255(sb * factor)); sa = UInt32(divideBy255(sa * factor))
                        if sa == 0 { continue }
                    }
                    let d = dstRow + column * 4
                    let da = UInt32(d[3])
                    if sa == 255 || da == 0 {
                        // Nothing shows through: the result is the mark itself (unpremultiplied).
                        if sa == 255 {
                            d[0] = UInt8(sr); d[1] = UInt8(sg); d[2] = UInt8(sb); d[3] = 255
                        } else {
                            d[0] = UInt8((sr * 255 + sa / 2) / sa); d[1] = UInt8((sg * 255 + sa / 2) / sa)
                            d[2] = UInt8((sb * 255 + sa / 2) / sa); d[3] = UInt8(sa)
                        }
                    } else if da == 255 {
                        // The common case, an opaque frame: out = S + D·(1 − αs).
                        let keep = 255 - sa
                        d[0] = UInt8(sr + UInt32(divideBy255(UInt32(d[0]) * keep)))
                        d[1] = UInt8(sg + UInt32(divideBy255(UInt32(d[1]) * keep)))
                        d[2] = UInt8(sb + UInt32(divideBy255(UInt32(d[2]) * keep)))
                    } else {
                        // Translucent destination: Porter-Duff "over", back to straight alpha.
                        let keptAlpha = UInt32(divideBy255(da * (255 - sa)))
                        let outAlpha = sa + keptAlpha
                        func channel(_ s: UInt32, _ dc: UInt8) -> UInt8 {
                            let premultiplied = s + UInt32(divideBy255(UInt32(dc) * keptAlpha))
                            return UInt8(min(255, (premultiplied * 255 + outAlpha / 2) / outAlpha))
                        }
                        d[0] = channel(sr, d[0]); d[1] = channel(sg, d[1]); d[2] = channel(sb, d[2])
                        d[3] = UInt8(outAlpha)
                    }
                }
            }
        }
    }
}

extension StraightRGBAImage {
    /// Runs `body` with a canvas over this image's pixels, whose values are in `colorSpace`.
    public mutating func withCanvas<R>(colorSpace: FrameColorSpace = .sdr, _ body: (RGBACanvas) throws -> R) rethrows -> R {
        let w = width, h = height
        return try pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else {
                // An empty image: a canvas over one pixel of scratch, of no size, that nothing draws on.
                var none: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
                return try withUnsafeMutableBytes(of: &none) { scratch in
                    try body(RGBACanvas(pixels: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), width: 0, height: 0, bytesPerRow: 0,
                                        colorSpace: colorSpace))
                }
            }
            return try body(RGBACanvas(pixels: base, width: w, height: h, bytesPerRow: w * 4, colorSpace: colorSpace))
        }
    }
}

/// A planar YUV frame (4:2:0, 4:2:2 or 4:4:4; 8 bits, or 9–16 bits in 16-bit little-endian
/// words) over caller-owned memory. Marks are blended in YUV directly, so a video frame is
/// never converted to RGB and back: only the covered samples change.
public struct PlanarYUVCanvas: CompositingCanvas {
    public struct Plane {
        public var base: UnsafeMutableRawPointer
        public var bytesPerRow: Int
        public init(base: UnsafeMutableRawPointer, bytesPerRow: Int) {
            self.base = base
            self.bytesPerRow = bytesPerRow
        }
    }

    public let width: Int
    public let height: Int
    public let luma: Plane
    public let u: Plane
    public let v: Plane
    /// log2 of the horizontal and vertical chroma subsampling (1, 1 for 4:2:0).
    public let chromaShiftX: Int
    public let chromaShiftY: Int
    public let bitDepth: Int
    public let matrix: YUVColorMatrix
    /// The frame's primaries and transfer: on PQ and HLG frames marks are mapped to graphics white.
    public let colorSpace: FrameColorSpace

    public init(width: Int, height: Int, luma: Plane, u: Plane, v: Plane,
                chromaShiftX: Int, chromaShiftY: Int, bitDepth: Int, matrix: YUVColorMatrix,
                colorSpace: FrameColorSpace = .sdr) {
        precondition((8...16).contains(bitDepth), "unsupported bit depth")
        self.width = width
        self.height = height
        self.luma = luma
        self.u = u
        self.v = v
        self.chromaShiftX = chromaShiftX
        self.chromaShiftY = chromaShiftY
        self.bitDepth = bitDepth
        self.matrix = matrix
        self.colorSpace = colorSpace
    }

    public func blend(_ mark: PreparedMark, atX x: Int, y: Int, opacity: UInt8) {
        let image = mark.sprite.image
        guard opacity > 0,
              !PixelRect(x: x, y: y, width: image.width, height: image.height)
                .intersection(PixelRect(x: 0, y: 0, width: width, height: height)).isEmpty
        else { return }
        let blockW = 1 << chromaShiftX, blockH = 1 << chromaShiftY
        // Floor-modulo, so marks partly off the left or top edge get the right phase.
        let phaseX = ((x % blockW) + blockW) % blockW
        let phaseY = ((y % blockH) + blockH) % blockH
        let planar = mark.planar(for: .init(matrix: matrix, colorSpace: colorSpace, bitDepth: bitDepth, chromaShiftX: chromaShiftX,
                                            chromaShiftY: chromaShiftY, phaseX: phaseX, phaseY: phaseY))
        let chromaWidth = (width + blockW - 1) >> chromaShiftX
        let chromaHeight = (height + blockH - 1) >> chromaShiftY
        let chromaX = (x - phaseX) >> chromaShiftX
        let chromaY = (y - phaseY) >> chromaShiftY
        let wide = bitDepth > 8
        planar.luma.withUnsafeBufferPointer { samples in
            planar.lumaAlpha.withUnsafeBufferPointer { alpha in
                blendPlane(luma, planeWidth: width, planeHeight: height, samples: samples, alpha: alpha, spans: planar.lumaSpans,
                           markWidth: planar.width, markHeight: planar.height, atX: x, y: y, opacity: opacity, wide: wide)
            }
        }
        planar.chromaAlpha.withUnsafeBufferPointer { alpha in
            for (plane, samples) in [(u, planar.chromaU), (v, planar.chromaV)] {
                samples.withUnsafeBufferPointer { samples in
                    blendPlane(plane, planeWidth: chromaWidth, planeHeight: chromaHeight, samples: samples, alpha: alpha,
                               spans: planar.chromaSpans, markWidth: planar.chromaWidth, markHeight: planar.chromaHeight,
                               atX: chromaX, y: chromaY, opacity: opacity, wide: wide)
                }
            }
        }
    }
}
