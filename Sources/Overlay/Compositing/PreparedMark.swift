/// A sprite ready to blend many times: the premultiplied RGBA pixels, plus planar YUV
/// conversions made on first use for each frame format and kept for the rest of the job.
///
/// One instance per layer per job; not safe to share between threads (the cache mutates).
public final class PreparedMark {
    public private(set) var sprite: Sprite
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

    /// Changes this mark's pixels where `update` changes them, all inside `region`, in place: its
    /// YUV layouts are converted again there only, its HDR signals made again when next asked for.
    /// A timed text's mark is redrawn every frame this way, without copying the whole sprite.
    func replacePixels(in region: PixelRect, by update: (inout PremultipliedRGBAImage) -> Void) {
        update(&sprite.image)
        signalCache = [:]
        for key in Array(planarCache.keys) {
            // Taken out of the dictionary first, so the arrays are not shared and change in place.
            guard var planar = planarCache.removeValue(forKey: key) else { continue }
            planar.convert(sprite.image, region: region, key: key,
                           mapping: GraphicsWhiteMapping(colorSpace: key.colorSpace, whiteNits: graphicsWhiteNits))
            planarCache[key] = planar
        }
    }

    /// The mark's pixels in a rectangle, as drawn and in every YUV layout converted so far: what
    /// `restore` puts back when the same glyphs paint the same rectangle again.
    struct Region {
        var rgba: [UInt8]
        var planar: [PlanarKey: PlanarMark.Region]

        var byteCount: Int { rgba.count + planar.values.reduce(0) { $0 + $1.byteCount } }
    }

    /// How far outside a rectangle converting it reads the sprite: a chroma block that touches
    /// the rectangle averages all its pixels (0 before any YUV layout is converted).
    var conversionReach: Int {
        planarCache.keys.reduce(0) { max($0, (1 << $1.chromaShiftX) - 1, (1 << $1.chromaShiftY) - 1) }
    }

    /// The mark's pixels in `region` (which must lie inside the sprite), in every layout converted so far.
    func saved(_ region: PixelRect) -> Region {
        precondition(region.intersection(PixelRect(x: 0, y: 0, width: sprite.image.width, height: sprite.image.height)) == region,
                     "a saved region lies inside the mark")
        let pixels = PixelRect(x: region.x * 4, y: region.y, width: region.width * 4, height: region.height)
        let planar = Dictionary(uniqueKeysWithValues: planarCache.map { key, mark in (key, mark.saved(region, key: key)) })
        return Region(rgba: PlanarMark.copy(pixels, of: sprite.image.pixels, width: sprite.image.width * 4), planar: planar)
    }

    /// Puts back pixels `saved` from this mark's `region` when it last showed what it must show
    /// now, with every YUV layout's coverage found again there: the same pixels converting them
    /// afresh gives. Returns false, changing nothing, when they lack a layout converted since.
    func restore(_ saved: Region, in region: PixelRect) -> Bool {
        guard planarCache.keys.allSatisfy({ saved.planar[$0] != nil }) else { return false }
        let pixels = PixelRect(x: region.x * 4, y: region.y, width: region.width * 4, height: region.height)
        PlanarMark.paste(saved.rgba, into: &sprite.image.pixels, rect: pixels, width: sprite.image.width * 4)
        signalCache = [:]
        for key in Array(planarCache.keys) {
            // Taken out of the dictionary first, so the arrays are not shared and change in place.
            guard var planar = planarCache.removeValue(forKey: key), let part = saved.planar[key] else { continue }
            planar.restore(part)
            planarCache[key] = planar
        }
        return true
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
        let blockW = 1 << key.chromaShiftX, blockH = 1 << key.chromaShiftY
        chromaWidth = (key.phaseX + width + blockW - 1) >> key.chromaShiftX
        chromaHeight = (key.phaseY + height + blockH - 1) >> key.chromaShiftY
        luma = [UInt16](repeating: 0, count: width * height)
        lumaAlpha = [UInt8](repeating: 0, count: width * height)
        chromaU = [UInt16](repeating: 0, count: chromaWidth * chromaHeight)
        chromaV = chromaU
        chromaAlpha = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
        lumaSpans = CoverageSpans(emptyRows: height)
        chromaSpans = CoverageSpans(emptyRows: chromaHeight)
        convert(image, region: PixelRect(x: 0, y: 0, width: width, height: height), key: key, mapping: mapping)
    }

    /// Converts the pixels of `image` (the same size as this mark's) inside `region` again, and
    /// the chroma blocks that touch it: the result is what converting all of `image` gives.
    mutating func convert(_ image: PremultipliedRGBAImage, region: PixelRect, key: PreparedMark.PlanarKey, mapping: GraphicsWhiteMapping) {
        precondition(image.width == width && image.height == height, "a mark is patched with an image of its own size")
        let area = region.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !area.isEmpty else { return }
        let k = key.matrix.linearCoefficients(bitDepth: key.bitDepth)
        var signal = MarkSignal(mapping: mapping)
        // A premultiplied sample is at most α·max: full-range chroma of a saturated blue or
        // red comes to max + ½ and would round past the sample's range.
        let maxValue = Float((1 << key.bitDepth) - 1)
        func clamped(_ value: Float, alpha: UInt8) -> UInt16 {
            UInt16(max(0, min(value.rounded(), (maxValue * Float(alpha) / 255).rounded())))
        }
        let w = width
        image.pixels.withUnsafeBufferPointer { p in
            luma.withUnsafeMutableBufferPointer { y in
                lumaAlpha.withUnsafeMutableBufferPointer { alpha in
                    for row in area.y..<area.maxY {
                        for i in (row * w + area.x)..<(row * w + area.maxX) {
                            let a = p[i * 4 + 3]
                            alpha[i] = a
                            y[i] = 0
                            if a == 0 { continue }
                            let px = signal.premultipliedSignal(red: p[i * 4], green: p[i * 4 + 1], blue: p[i * 4 + 2], alpha: a)
                            y[i] = clamped((px * k.y).sum(), alpha: a)
                        }
                    }
                }
            }
        }

        // Chroma: a sprite placed with its origin at phase (px, py) inside a chroma block
        // covers chroma samples whose blocks start `phase` pixels before the origin. Each block
        // averages the premultiplied U and V of its pixels (zero where alpha is).
        let blockW = 1 << key.chromaShiftX, blockH = 1 << key.chromaShiftY
        let samples = Float(blockW * blockH)
        let blocks = Self.chromaBlocks(touching: area, key: key)
        let firstX = blocks.x, lastX = blocks.maxX - 1, firstY = blocks.y, lastY = blocks.maxY - 1
        image.pixels.withUnsafeBufferPointer { p in
            for cy in firstY...lastY {
                for cx in firstX...lastX {
                    var su: Float = 0, sv: Float = 0, sa: Float = 0
                    for dy in 0..<blockH {
                        let sy = cy * blockH + dy - key.phaseY
                        guard sy >= 0 && sy < height else { continue }
                        for dx in 0..<blockW {
                            let sx = cx * blockW + dx - key.phaseX
                            guard sx >= 0 && sx < width else { continue }
                            let i = sy * width + sx
                            let a = p[i * 4 + 3]
                            guard a != 0 else { continue }
                            let px = signal.premultipliedSignal(red: p[i * 4], green: p[i * 4 + 1], blue: p[i * 4 + 2], alpha: a)
                            su += (px * k.u).sum(); sv += (px * k.v).sum(); sa += Float(a)
                        }
                    }
                    let o = cy * chromaWidth + cx
                    chromaAlpha[o] = UInt8(min(255, (sa / samples).rounded()))
                    // Where the averaged alpha rounds to zero the samples stay zero, like luma's.
                    guard chromaAlpha[o] != 0 else { chromaU[o] = 0; chromaV[o] = 0; continue }
                    chromaU[o] = clamped(su / samples, alpha: chromaAlpha[o])
                    chromaV[o] = clamped(sv / samples, alpha: chromaAlpha[o])
                }
            }
        }
        updateSpans(area: area, chroma: blocks)
    }

    /// The chroma samples whose blocks touch `area` (pixels inside the mark), in chroma coordinates.
    static func chromaBlocks(touching area: PixelRect, key: PreparedMark.PlanarKey) -> PixelRect {
        let firstX = (area.x + key.phaseX) >> key.chromaShiftX, lastX = (area.maxX - 1 + key.phaseX) >> key.chromaShiftX
        let firstY = (area.y + key.phaseY) >> key.chromaShiftY, lastY = (area.maxY - 1 + key.phaseY) >> key.chromaShiftY
        return PixelRect(x: firstX, y: firstY, width: lastX - firstX + 1, height: lastY - firstY + 1)
    }

    /// Finds the runs of the rows that changed again.
    private mutating func updateSpans(area: PixelRect, chroma: PixelRect) {
        let w = width, cw = chromaWidth
        lumaAlpha.withUnsafeBufferPointer { lumaSpans.update(rows: area.y..<area.maxY, alpha: $0, width: w) }
        chromaAlpha.withUnsafeBufferPointer { chromaSpans.update(rows: chroma.y..<chroma.maxY, alpha: $0, width: cw) }
    }

    /// One layout's samples in a rectangle of the mark: luma and its alpha inside it, chroma in the
    /// blocks that touch it (whose averages read pixels up to a block beyond it).
    struct Region {
        var area: PixelRect
        var chroma: PixelRect
        var luma: [UInt16]
        var lumaAlpha: [UInt8]
        var chromaU: [UInt16]
        var chromaV: [UInt16]
        var chromaAlpha: [UInt8]

        var byteCount: Int { luma.count * 2 + lumaAlpha.count + chromaU.count * 4 + chromaAlpha.count }
    }

    func saved(_ region: PixelRect, key: PreparedMark.PlanarKey) -> Region {
        let chroma = Self.chromaBlocks(touching: region, key: key)
        return Region(area: region, chroma: chroma,
                      luma: Self.copy(region, of: luma, width: width), lumaAlpha: Self.copy(region, of: lumaAlpha, width: width),
                      chromaU: Self.copy(chroma, of: chromaU, width: chromaWidth), chromaV: Self.copy(chroma, of: chromaV, width: chromaWidth),
                      chromaAlpha: Self.copy(chroma, of: chromaAlpha, width: chromaWidth))
    }

    mutating func restore(_ saved: Region) {
        Self.paste(saved.luma, into: &luma, rect: saved.area, width: width)
        Self.paste(saved.lumaAlpha, into: &lumaAlpha, rect: saved.area, width: width)
        Self.paste(saved.chromaU, into: &chromaU, rect: saved.chroma, width: chromaWidth)
        Self.paste(saved.chromaV, into: &chromaV, rect: saved.chroma, width: chromaWidth)
        Self.paste(saved.chromaAlpha, into: &chromaAlpha, rect: saved.chroma, width: chromaWidth)
        updateSpans(area: saved.area, chroma: saved.chroma)
    }

    /// The samples of `rect` in a plane `width` samples wide, row after row.
    static func copy<Sample>(_ rect: PixelRect, of plane: [Sample], width: Int) -> [Sample] {
        var out: [Sample] = []
        out.reserveCapacity(rect.width * rect.height)
        for row in rect.y..<rect.maxY { out.append(contentsOf: plane[(row * width + rect.x)..<(row * width + rect.maxX)]) }
        return out
    }

    /// Writes `samples` (as `copy` gives them) back into `rect` of a plane `width` samples wide.
    static func paste<Sample>(_ samples: [Sample], into plane: inout [Sample], rect: PixelRect, width: Int) {
        precondition(samples.count == rect.width * rect.height, "pasted samples fill their rectangle")
        samples.withUnsafeBufferPointer { source in
            plane.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for row in 0..<rect.height {
                    (to + (rect.y + row) * width + rect.x).update(from: from + row * rect.width, count: rect.width)
                }
            }
        }
    }
}
