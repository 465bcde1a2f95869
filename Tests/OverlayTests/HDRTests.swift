import Animation
import Testing
@testable import Overlay

/// Marks on PQ and HLG frames: SDR sRGB colours placed at BT.2408 graphics white, checked
/// against the published reference points of the transfer functions and against code values
/// worked out by hand for 10-bit limited-range BT.2020 frames.
@Suite("HDR marks")
struct HDRTests {
    /// A 10-bit 4:2:0 limited-range BT.2020 frame filled with black (Y 64, Cb Cr 512), with
    /// `mark` blended at (2, 2); returns the luma and chroma planes.
    static func blend10Bit(_ mark: PreparedMark, colorSpace: FrameColorSpace, opacity: UInt8 = 255,
                           width: Int = 16, height: Int = 16) -> (luma: [UInt16], cb: [UInt16], cr: [UInt16]) {
        var luma = [UInt16](repeating: 64, count: width * height)
        var cb = [UInt16](repeating: 512, count: width * height / 4)
        var cr = [UInt16](repeating: 512, count: width * height / 4)
        luma.withUnsafeMutableBytes { y in
            cb.withUnsafeMutableBytes { u in
                cr.withUnsafeMutableBytes { v in
                    let canvas = PlanarYUVCanvas(
                        width: width, height: height,
                        luma: .init(base: y.baseAddress!, bytesPerRow: width * 2),
                        u: .init(base: u.baseAddress!, bytesPerRow: width), v: .init(base: v.baseAddress!, bytesPerRow: width),
                        chromaShiftX: 1, chromaShiftY: 1, bitDepth: 10,
                        matrix: YUVColorMatrix(coefficients: .bt2020, isFullRange: false), colorSpace: colorSpace)
                    canvas.blend(mark, atX: 2, y: 2, opacity: opacity)
                }
            }
        }
        return (luma, cb, cr)
    }

    static func solid(_ color: RGBAColor, whiteNits: Double = GraphicsWhiteMapping.defaultWhiteNits) -> PreparedMark {
        let image = StraightRGBAImage(width: 4, height: 4, fill: color).premultiplied()
        return PreparedMark(sprite: Sprite(image: image, layoutBox: PixelRect(x: 0, y: 0, width: 4, height: 4)),
                            graphicsWhiteNits: whiteNits)
    }

    /// SMPTE ST 2084 and BT.2100 reference points: PQ 100 nits ≈ 0.5081, 203 ≈ 0.5807,
    /// 1000 ≈ 0.7518, 10 000 = 1; HLG's OETF gives 0.5 at 1/12 and 1 at 1.
    @Test func transferFunctionsMeetTheirPublishedReferencePoints() {
        #expect(abs(GraphicsWhiteMapping.pqInverseEOTF(100) - 0.5081) < 0.0002)
        #expect(abs(GraphicsWhiteMapping.pqInverseEOTF(203) - 0.5807) < 0.0002)
        #expect(abs(GraphicsWhiteMapping.pqInverseEOTF(1000) - 0.7518) < 0.0002)
        #expect(abs(GraphicsWhiteMapping.pqInverseEOTF(10_000) - 1) < 1e-9)
        #expect(GraphicsWhiteMapping.pqInverseEOTF(0) < 1e-6)
        #expect(abs(GraphicsWhiteMapping.hlgOETF(1.0 / 12) - 0.5) < 1e-9)
        #expect(abs(GraphicsWhiteMapping.hlgOETF(1) - 1) < 1e-6)
        #expect(abs(GraphicsWhiteMapping.srgbToLinear(1) - 1) < 1e-12)
        #expect(abs(GraphicsWhiteMapping.srgbToLinear(0.5) - 0.2140) < 0.0001)
    }

    /// BT.2408: graphics white is PQ ≈ 58 % and HLG 75 % (on its 1000-nit reference display).
    @Test func whiteLandsAtGraphicsWhite() {
        let pq = GraphicsWhiteMapping(colorSpace: .pqBT2020).signal(red: 1, green: 1, blue: 1)
        let hlg = GraphicsWhiteMapping(colorSpace: .hlgBT2020).signal(red: 1, green: 1, blue: 1)
        for c in [pq.x, pq.y, pq.z] { #expect(abs(c - 0.5807) < 0.0003) }
        for c in [hlg.x, hlg.y, hlg.z] { #expect(abs(c - 0.75) < 0.002) }
        // A user's hdrWhite of 1000 nits is HLG's nominal peak: signal 1.
        let peak = GraphicsWhiteMapping(colorSpace: .hlgBT2020, whiteNits: 1000).signal(red: 1, green: 1, blue: 1)
        #expect(abs(peak.x - 1) < 1e-6)
        // SDR: untouched.
        #expect(GraphicsWhiteMapping(colorSpace: .sdr).signal(red: 0.2, green: 0.4, blue: 0.6) == SIMD3(0.2, 0.4, 0.6))
    }

    /// sRGB red on a BT.2020 PQ frame is BT.2087's (0.6274, 0.0691, 0.0164) of graphics white:
    /// a less saturated red in the wider gamut, not BT.2020's own primary.
    @Test func coloursAreConvertedToBT2020Primaries() {
        let red = GraphicsWhiteMapping(colorSpace: .pqBT2020).signal(red: 1, green: 0, blue: 0)
        #expect(abs(red.x - GraphicsWhiteMapping.pqInverseEOTF(0.6274 * 203)) < 1e-9)
        #expect(abs(red.y - GraphicsWhiteMapping.pqInverseEOTF(0.0691 * 203)) < 1e-9)
        #expect(abs(red.z - GraphicsWhiteMapping.pqInverseEOTF(0.0164 * 203)) < 1e-9)
        // Black stays black on both transfers.
        #expect(GraphicsWhiteMapping(colorSpace: .hlgBT2020).signal(red: 0, green: 0, blue: 0) == .zero)
    }

    /// The targets: white text on 10-bit limited PQ → luma 573 ± 25, HLG → 721 ± 25.
    /// By hand: 64 + 876 × 0.5807 = 572.7 and 64 + 876 × 0.7496 = 720.7. Chroma stays neutral.
    @Test func opaqueWhiteOnTenBitLimitedFrames() {
        let pq = Self.blend10Bit(Self.solid(.white), colorSpace: .pqBT2020)
        #expect(pq.luma[2 * 16 + 2] == 573)
        #expect(pq.cb[1 * 8 + 1] == 512 && pq.cr[1 * 8 + 1] == 512)
        let hlg = Self.blend10Bit(Self.solid(.white), colorSpace: .hlgBT2020)
        #expect(hlg.luma[2 * 16 + 2] == 721)
        // Today's behaviour, kept for SDR: white is the top of the range (940).
        let sdr = Self.blend10Bit(Self.solid(.white), colorSpace: .sdr)
        #expect(sdr.luma[2 * 16 + 2] == 940)
        // Pixels outside the mark are untouched.
        #expect(pq.luma[0] == 64 && pq.luma[15 * 16 + 15] == 64)
    }

    /// Blending stays in the signal domain: half-opaque white over black is half-way between
    /// the codes, (64 + 573) / 2 on PQ.
    @Test func translucentMarksBlendInTheSignalDomain() {
        let pq = Self.blend10Bit(Self.solid(.white), colorSpace: .pqBT2020, opacity: 128)
        let expected = 64 + (573.0 - 64) * 128 / 255
        #expect(abs(Double(pq.luma[2 * 16 + 2]) - expected) <= 1)
    }

    /// `hdrWhite` moves the mark's white: 100 nits on PQ is signal 0.5081, code 509.
    @Test func hdrWhiteChoosesTheLevel() {
        let pq = Self.blend10Bit(Self.solid(.white, whiteNits: 100), colorSpace: .pqBT2020)
        #expect(pq.luma[2 * 16 + 2] == 509)
    }

    /// RGBA stills whose values are PQ-coded get the mapped colours too: white → 0.5807 · 255 = 148.
    @Test func rgbaCanvasesMapToo() {
        var frame = StraightRGBAImage(width: 8, height: 8, fill: .black)
        frame.withCanvas(colorSpace: .pqBT2020) { $0.blend(Self.solid(.white), atX: 2, y: 2, opacity: 255) }
        #expect(frame.pixel(x: 3, y: 3) == RGBAColor(red: 148, green: 148, blue: 148))
        #expect(frame.pixel(x: 0, y: 0) == .black)
        var sdr = StraightRGBAImage(width: 8, height: 8, fill: .black)
        sdr.withCanvas { $0.blend(Self.solid(.white), atX: 2, y: 2, opacity: 255) }
        #expect(sdr.pixel(x: 3, y: 3) == .white)
    }

    /// A text layer through the compositor: the brightest luma of white text on a PQ frame is
    /// graphics white, with the layer's `hdrWhiteNits`.
    @Test func textThroughTheCompositor() throws {
        let layer = LayerSpec(content: .text("HDR"), sizeFraction: 0.3, opacity: 1, timeline: LayerTimeline(xPercent: 50, yPercent: 50))
        let compositor = Compositor(layers: [layer], fonts: try FontLibrary())
        let width = 64, height = 64
        var luma = [UInt16](repeating: 64, count: width * height)
        var chroma = [UInt16](repeating: 512, count: width * height / 2)
        try luma.withUnsafeMutableBytes { y in
            try chroma.withUnsafeMutableBytes { c in
                let canvas = PlanarYUVCanvas(
                    width: width, height: height, luma: .init(base: y.baseAddress!, bytesPerRow: width * 2),
                    u: .init(base: c.baseAddress!, bytesPerRow: width), v: .init(base: c.baseAddress! + width * height / 4 * 2, bytesPerRow: width),
                    chromaShiftX: 1, chromaShiftY: 1, bitDepth: 10,
                    matrix: YUVColorMatrix(coefficients: .bt2020, isFullRange: false), colorSpace: .pqBT2020)
                try compositor.composite(onto: canvas, at: .zero)
            }
        }
        #expect(luma.max() == 573)
    }
}

/// HDR video frames shown on SDR: BT.2390's EETF and the picture conversion around it.
@Suite("HDR to SDR tone mapping")
struct HDRToneMappingTests {
    @Test("BT.2390's EETF: unchanged below the knee, the source peak at the target peak, monotone and continuous")
    func eetfShape() {
        let tone = { (nits: Double) in HDRToneMapping.toneMappedNits(nits, sourcePeakNits: 1000, targetPeakNits: 203) }
        // The knee of a 1000-nit source for a 203-nit display is at 87.8 cd/m².
        for nits in [0.0, 1, 10, 26, 50, 87] { #expect(abs(tone(nits) - nits) < 1e-6 * max(nits, 1), "\(nits) cd/m²") }
        #expect(abs(tone(1000) - 203) < 1e-6 && abs(tone(4000) - 203) < 1e-6, "at and above the source peak: the target peak")
        var previous = 0.0
        for step in 1...2000 {
            let value = tone(Double(step) / 2)
            #expect(value >= previous - 1e-9, "monotone at \(Double(step) / 2)")
            #expect(value - previous < 0.51, "continuous at \(Double(step) / 2)")
            previous = value
        }
        // HDR reference white, 203 cd/m², is rolled off to 158.8 (worked out from BT.2390-10 §5.4.1).
        #expect(abs(tone(203) - 158.8) < 0.5)
        // No roll-off needed when the display is as bright as the source.
        #expect(abs(HDRToneMapping.toneMappedNits(600, sourcePeakNits: 1000, targetPeakNits: 1000) - 600) < 1e-6)
    }

    /// 16-bit R′G′B′ greys through the whole picture path against the curves composed by hand.
    @Test("a grey of each signal becomes the sRGB grey of its tone-mapped light", arguments: [FrameColorSpace.pqBT2020, .hlgBT2020])
    func greys(colorSpace: FrameColorSpace) {
        let mapping = HDRToneMapping(colorSpace: colorSpace)
        let codes: [UInt16] = [0, 1000, 20000, 25186, 38000, 49151, 65535]
        let samples = codes.flatMap { [$0, $0, $0] }
        let image = samples.withUnsafeBufferPointer { mapping.sdrImage(rgb48: $0, width: codes.count, height: 1) }
        for (index, code) in codes.enumerated() {
            let signal = Double(code) / 65535
            let nits = colorSpace.transfer == .pq ? HDRToneMapping.pqEOTF(signal)
                : HDRToneMapping.hlgDisplayNits(scene: SIMD3(repeating: HDRToneMapping.hlgInverseOETF(signal)),
                                                luminanceWeights: SIMD3(0.2627, 0.6780, 0.0593)).x
            let expected = HDRToneMapping.srgbOETF(HDRToneMapping.toneMappedNits(nits, sourcePeakNits: 1000, targetPeakNits: 203) / 203) * 255
            for channel in 0..<3 {
                #expect(abs(Double(image.pixels[index * 4 + channel]) - expected) <= 1, "code \(code): \(image.pixels[index * 4 + channel]), expected \(expected)")
            }
            #expect(image.pixels[index * 4 + 3] == 255)
        }
    }

    @Test("BT.2020 to BT.709 keeps white and grey, and a PQ picture's peak from its metadata is bounded")
    func primariesAndPeak() {
        let white = HDRToneMapping.bt2020ToBT709(SIMD3(repeating: 1))
        #expect(abs(white.x - 1) < 2e-3 && abs(white.y - 1) < 2e-3 && abs(white.z - 1) < 2e-3)
        #expect(HDRToneMapping(colorSpace: .pqBT2020, sourcePeakNits: 4000).sourcePeakNits == 4000)
        #expect(HDRToneMapping(colorSpace: .pqBT2020, sourcePeakNits: 50).sourcePeakNits == 203, "never below SDR white")
        #expect(HDRToneMapping(colorSpace: .hlgBT2020, sourcePeakNits: 4000).sourcePeakNits == 1000, "HLG: its reference display")
    }
}
