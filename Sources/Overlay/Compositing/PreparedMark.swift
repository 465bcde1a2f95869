/// A sprite ready to blend many times: the premultiplied RGBA pixels, plus planar YUV
/// conversions made on first use for each frame format and kept for the rest of the job.
///
/// One instance per layer per job; not safe to share between threads (the cache mutates).
public final class PreparedMark {
    public let sprite: Sprite
    /// Where the mark's white lands on a PQ or HLG frame, in cd/m² (see `GraphicsWhiteMapping`).
    public let graphicsWhiteNits: Double
    private var planarCache: [PlanarKey: PlanarMark] = [:]
    private var signalCache: [FrameColorSpace: PremultipliedRGBAImage] = [:]

    public init(sprite: Sprite, graphicsWhiteNits: Double = GraphicsWhiteMapping.defaultWhiteNits) {
        self.sprite = sprite
        self.graphicsWhiteNits = graphicsWhiteNits
    }

    /// The sprite's pixels in the signal of a frame in `colorSpace`: the sprite itself for SDR.
    func rgba(for colorSpace: FrameColorSpace) -> PremultipliedRGBAImage {
        guard colorSpace.isHDR else { return sprite.image }
        if let cached = signalCache[colorSpace] { return cached }
        var signal = MarkSignal(mapping: GraphicsWhiteMapping(colorSpace: colorSpace, whiteNits: graphicsWhiteNits))
        let made = signal.convert(sprite.image)
        signalCache[colorSpace] = made
        return made
    }

    struct PlanarKey: Hashable {
        var matrix: YUVColorMatrix
        var colorSpace: FrameColorSpace = .sdr
        var bitDepth: Int
        var chromaShiftX: Int
        var chromaShiftY: Int
        /// Where the sprite's origin falls inside a chroma block (0 ..< 1 << shift).
        var phaseX: Int
        var phaseY: Int
    }

    func planar(for key: PlanarKey) -> PlanarMark {
        if let cached = planarCache[key] { return cached }
        let made = PlanarMark(image: sprite.image, key: key,
                              mapping: GraphicsWhiteMapping(colorSpace: key.colorSpace, whiteNits: graphicsWhiteNits))
        planarCache[key] = made
        return made
    }
}

/// A sprite converted to one planar YUV layout: premultiplied samples and alpha at luma
/// resolution, and chroma samples (premultiplied, alpha averaged over the chroma block)
/// for one placement phase.
struct PlanarMark {
    /// Premultiplied luma, alpha 0…255, both width × height.
    ///
    /// Every sample (here and in chroma) is zero where its alpha is: the 8-bit blend relies on
    /// it to pass over transparent columns without changing them.
    var luma: [UInt16]
    var lumaAlpha: [UInt8]
    /// Chroma grid covering the sprite for the key's phase: its origin is the chroma sample of
    /// the sprite's origin; size chromaWidth × chromaHeight.
    var chromaU: [UInt16]
    var chromaV: [UInt16]
    var chromaAlpha: [UInt8]
    var width: Int
    var height: Int
    var chromaWidth: Int
    var chromaHeight: Int
    /// Where luma and chroma alpha are non-zero, row by row.
    var lumaSpans: CoverageSpans
    var chromaSpans: CoverageSpans

    init(image: PremultipliedRGBAImage, key: PreparedMark.PlanarKey, mapping: GraphicsWhiteMapping) {
        width = image.width
        height = image.height
        let count = width * height
        var y = [UInt16](repeating: 0, count: count)
        var u = [Float](repeating: 0, count: count)
        var v = [Float](repeating: 0, count: count)
        var alpha = [UInt8](repeating: 0, count: count)
        let k = key.matrix.linearCoefficients(bitDepth: key.bitDepth)
        var signal = MarkSignal(mapping: mapping)
        // A premultiplied sample is at most α·max: full-range chroma of a saturated blue or
        // red comes to max + ½ and would round past the sample's range.
        let maxValue = Float((1 << key.bitDepth) - 1)
        func clamped(_ value: Float, alpha: UInt8) -> UInt16 {
            UInt16(max(0, min(value.rounded(), (maxValue * Float(alpha) / 255).rounded())))
        }
        image.pixels.withUnsafeBufferPointer { p in
            y.withUnsafeMutableBufferPointer { y in
                u.withUnsafeMutableBufferPointer { u in
                    v.withUnsafeMutableBufferPointer { v in
                        alpha.withUnsafeMutableBufferPointer { alpha in
                            for i in 0..<count {
                                let a = p[i * 4 + 3]
                                alpha[i] = a
                                if a == 0 { continue }
                                let px = signal.premultipliedSignal(red: p[i * 4], green: p[i * 4 + 1], blue: p[i * 4 + 2], alpha: a)
                                y[i] = clamped((px * k.y).sum(), alpha: a)
                                u[i] = (px * k.u).sum()
                                v[i] = (px * k.v).sum()
                            }
                        }
                    }
                }
            }
        }
        luma = y
        lumaAlpha = alpha

        // Chroma: a sprite placed with its origin at phase (px, py) inside a chroma block
        // covers chroma samples whose blocks start `phase` pixels before the origin.
        let blockW = 1 << key.chromaShiftX, blockH = 1 << key.chromaShiftY
        chromaWidth = (key.phaseX + width + blockW - 1) >> key.chromaShiftX
        chromaHeight = (key.phaseY + height + blockH - 1) >> key.chromaShiftY
        let chromaCount = chromaWidth * chromaHeight
        var cu = [UInt16](repeating: 0, count: chromaCount)
        var cv = [UInt16](repeating: 0, count: chromaCount)
        var ca = [UInt8](repeating: 0, count: chromaCount)
        let samples = Float(blockW * blockH)
        for cy in 0..<chromaHeight {
            for cx in 0..<chromaWidth {
                var su: Float = 0, sv: Float = 0, sa: Float = 0
                for dy in 0..<blockH {
                    let sy = cy * blockH + dy - key.phaseY
                    guard sy >= 0 && sy < height else { continue }
                    for dx in 0..<blockW {
                        let sx = cx * blockW + dx - key.phaseX
                        guard sx >= 0 && sx < width else { continue }
                        let i = sy * width + sx
                        su += u[i]; sv += v[i]; sa += Float(alpha[i])
                    }
                }
                let o = cy * chromaWidth + cx
                ca[o] = UInt8(min(255, (sa / samples).rounded()))
                // Where the averaged alpha rounds to zero the samples stay zero, like luma's.
                guard ca[o] != 0 else { continue }
                cu[o] = clamped(su / samples, alpha: ca[o])
                cv[o] = clamped(sv / samples, alpha: ca[o])
            }
        }
        chromaU = cu
        chromaV = cv
        chromaAlpha = ca
        let (w, h, cw, ch) = (width, height, chromaWidth, chromaHeight)
        lumaSpans = alpha.withUnsafeBufferPointer { CoverageSpans(alpha: $0, width: w, height: h) }
        chromaSpans = ca.withUnsafeBufferPointer { CoverageSpans(alpha: $0, width: cw, height: ch) }
    }
}
