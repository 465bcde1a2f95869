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

    public init(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int) {
        precondition(bytesPerRow >= width * 4, "row stride shorter than a row")
        self.pixels = pixels
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
    }

    public func blend(_ mark: PreparedMark, atX x: Int, y: Int, opacity: UInt8) {
        let image = mark.sprite.image
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
    /// Runs `body` with a canvas over this image's pixels.
    public mutating func withCanvas<R>(_ body: (RGBACanvas) throws -> R) rethrows -> R {
        let w = width, h = height
        return try pixels.withUnsafeMutableBufferPointer { buffer in
            try body(RGBACanvas(pixels: buffer.baseAddress!, width: w, height: h, bytesPerRow: w * 4))
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

    public init(width: Int, height: Int, luma: Plane, u: Plane, v: Plane,
                chromaShiftX: Int, chromaShiftY: Int, bitDepth: Int, matrix: YUVColorMatrix) {
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
        let planar = mark.planar(for: .init(matrix: matrix, bitDepth: bitDepth, chromaShiftX: chromaShiftX,
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

/// Blends premultiplied samples over one plane: `out = P + D·(255 − A) / 255`, with P and A
/// scaled by `opacity` first, changing only the runs where the mark has alpha. Division by
/// 255 is integer, rounded to nearest (`divideBy255` for 8-bit planes).
private func blendPlane(_ plane: PlanarYUVCanvas.Plane, planeWidth: Int, planeHeight: Int,
                        samples: UnsafeBufferPointer<UInt16>, alpha: UnsafeBufferPointer<UInt8>, spans: CoverageSpans,
                        markWidth: Int, markHeight: Int, atX x: Int, y: Int, opacity: UInt8, wide: Bool) {
    let area = PixelRect(x: x, y: y, width: markWidth, height: markHeight)
        .intersection(PixelRect(x: 0, y: 0, width: planeWidth, height: planeHeight))
    guard !area.isEmpty, let samples = samples.baseAddress, let alpha = alpha.baseAddress else { return }
    // The mark columns that land on the plane; the plane column is mark column + x.
    let room = (area.x - x) ..< (area.maxX - x)
    for row in area.y..<area.maxY {
        let markRow = row - y
        let source = markRow * markWidth
        let rowBase = plane.base + row * plane.bytesPerRow
        if wide {
            let dst = rowBase.assumingMemoryBound(to: UInt16.self) + x
            spans.forEachRun(inRow: markRow, clippedTo: room.lowerBound, room.upperBound) { start, end in
                blendRun16(dst + start, samples: samples + source + start, alpha: alpha + source + start,
                           count: end - start, opacity: opacity)
            }
        } else {
            blendRow8(rowBase.assumingMemoryBound(to: UInt8.self) + x, samples: samples + source, alpha: alpha + source,
                      spans: spans, markRow: markRow, room: room, opacity: opacity)
        }
    }
}

/// One run of a 9–16-bit plane (samples in 16-bit words).
private func blendRun16(_ dst: UnsafeMutablePointer<UInt16>, samples: UnsafePointer<UInt16>,
                        alpha: UnsafePointer<UInt8>, count: Int, opacity: UInt8) {
    let factor = UInt32(opacity)
    for column in 0..<count {
        var a = UInt32(alpha[column])
        var p = UInt32(samples[column])
        if factor != 255 {
            a = (a * factor + 127) / 255
            p = (p * factor + 127) / 255
        }
        dst[column] = UInt16(truncatingIfNeeded: p + (UInt32(dst[column]) * (255 - a) + 127) / 255)
    }
}

/// Sixteen neighbouring 8-bit columns: the unit of the vectorised 8-bit blend.
private typealias Window = SIMD16<UInt8>
/// A `Window` widened to 16 bits a lane, where the blend is computed.
private typealias Lanes = SIMD16<UInt16>

/// The runs of one row of an 8-bit plane (pointers at mark column 0), sixteen columns at a
/// time, giving exactly the bytes of `blendSample8`.
///
/// Runs are a few pixels long on text, so a window is not kept to one run: it covers every
/// column from where the last one stopped, possibly several runs and the gaps between them.
/// Gap columns are stored back unchanged, since a zero alpha has a zero sample (see
/// `PlanarMark`) and 0 + D·255 / 255 = D. A window stays inside `room`, the mark's columns
/// on the plane: at its right end it starts early, over finished columns, which it masks off.
private func blendRow8(_ dst: UnsafeMutablePointer<UInt8>, samples: UnsafePointer<UInt16>, alpha: UnsafePointer<UInt8>,
                       spans: CoverageSpans, markRow: Int, room: Range<Int>, opacity: UInt8) {
    let width = Window.scalarCount
    // No window fits (a mark nearly off the plane, or a tiny one): column by column.
    guard room.count >= width else {
        spans.forEachRun(inRow: markRow, clippedTo: room.lowerBound, room.upperBound) { start, end in
            for column in start..<end {
                dst[column] = blendSample8(dst[column], sample: samples[column], alpha: alpha[column], opacity: opacity)
            }
        }
        return
    }
    var done = room.lowerBound
    spans.forEachRun(inRow: markRow, clippedTo: room.lowerBound, room.upperBound) { start, end in
        var column = max(start, done)
        while column < end {
            let window = min(column, room.upperBound - width)
            blendWindow8(dst + window, samples: samples + window, alpha: alpha + window,
                         keep: lanesBelow(column - window), opacity: opacity)
            column = window + width
        }
        done = column
    }
}

/// `blendSample8` on the sixteen columns from `dst`, except in the lanes set in `keep`.
///
/// 16-bit lanes cannot overflow: 8-bit samples are at most 255 (`PlanarMark` keeps each at
/// most its alpha), so P·opacity ≤ 255·254, D·(255 − A) ≤ 255·255, and `divideBy255` of
/// anything up to 255·255 stays below 65536 on the way.
@inline(__always)
private func blendWindow8(_ dst: UnsafeMutablePointer<UInt8>, samples: UnsafePointer<UInt16>, alpha: UnsafePointer<UInt8>,
                          keep: Window, opacity: UInt8) {
    let old = UnsafeRawPointer(dst).loadUnaligned(as: Window.self)
    let d = widen(old)
    var a = widen(UnsafeRawPointer(alpha).loadUnaligned(as: Window.self))
    var p = UnsafeRawPointer(samples).loadUnaligned(as: Lanes.self)
    if opacity != 255 {
        let factor = Lanes(repeating: UInt16(opacity))
        p = divideBy255(p &* factor)
        a = divideBy255(a &* factor)
    }
    let sum = p &+ divideBy255(d &* (255 &- a))
    // Saturate at 255 (a sum of 256…511 has bit 8 set and becomes 0xFF), as the scalar min
    // does; with P ≤ A it never rises above 255. Shifts and masks, because a lane select or
    // `pointwiseMin` here came out of LLVM partly scalar or as a call.
    let blended = Window(truncatingIfNeeded: sum | (0 &- (sum &>> 8)))
    UnsafeMutableRawPointer(dst).storeBytes(of: (blended & ~keep) | (old & keep), as: Window.self)
}

/// Sixteen zero bytes, then sixteen 0xFF: the masks of `lanesBelow`.
private let laneMaskSource: (UInt64, UInt64, UInt64, UInt64) = (0, 0, ~0, ~0)

/// A window with 0xFF in lanes 0 ..< `count` (0…16) and zero above.
@inline(__always)
private func lanesBelow(_ count: Int) -> Window {
    withUnsafeBytes(of: laneMaskSource) { ~$0.loadUnaligned(fromByteOffset: 16 - count, as: Window.self) }
}

/// Zero-extends a window to `Lanes`. Written lane by lane because LLVM turns this into two
/// unpack instructions inline, whereas the standard library's generic
/// `init(truncatingIfNeeded:)` stays an out-of-line call in the loop.
@inline(__always)
private func widen(_ bytes: Window) -> Lanes {
    var lanes = Lanes()
    for i in lanes.indices { lanes[i] = UInt16(bytes[i]) }
    return lanes
}

/// The exact rounded x / 255 of every lane, for x ≤ 255·255 (see the scalar `divideBy255`).
@inline(__always)
private func divideBy255(_ x: Lanes) -> Lanes {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

/// The 8-bit blend of one sample, `min(255, P + D·(255 − A) / 255)` after opacity scaling.
@inline(__always)
private func blendSample8(_ d: UInt8, sample: UInt16, alpha: UInt8, opacity: UInt8) -> UInt8 {
    var a = UInt32(alpha), p = UInt32(sample)
    if opacity != 255 {
        a = UInt32(divideBy255(a * UInt32(opacity)))
        p = UInt32(divideBy255(p * UInt32(opacity)))
    }
    return UInt8(truncatingIfNeeded: min(255, p + UInt32(divideBy255(UInt32(d) * (255 - a)))))
}
