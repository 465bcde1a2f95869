#if canImport(Glibc)
import Glibc
#endif

/// An HDR picture (PQ or HLG R′G′B′) rendered for an SDR display, as a still of it is seen
/// on the web or in a file browser: sRGB pixels with BT.709 primaries.
///
/// The steps, per pixel:
/// 1. Display light. PQ: SMPTE ST 2084's EOTF (absolute cd/m²). HLG: BT.2100's inverse OETF
///    and its OOTF for the 1000 cd/m² reference display (system gamma 1.2, on the luminance),
///    so HLG is placed as BT.2408 places it: reference white (signal 0.75) at 203 cd/m².
/// 2. ITU-R BT.2390's EETF (its reference tone curve, BT.2390-10 §5.4), on each component in
///    the PQ domain, from the source's peak (`sourcePeakNits`: the mastering display's or the
///    content's brightest, 1000 cd/m² when the file does not say, and always for HLG) to an
///    SDR display of `sdrPeakNits`: unchanged up to the knee (88 cd/m² for a 1000-nit
///    source), highlights rolled off by its Hermite spline so the source peak lands at SDR white.
///    With 203 cd/m² as SDR white (BT.2408's reference white, as libplacebo and mpv take SDR),
///    HDR reference and graphics white (203 cd/m²) come out at 159 cd/m², 78 % of SDR white
///    (sRGB 229 of 255), and 18 % grey (26 cd/m²) unchanged, at 13 % (sRGB 100).
/// 3. BT.2020 primaries to BT.709 (the inverse of BT.2087's matrix) in linear light, colours
///    outside BT.709 clipped; then the sRGB OETF (IEC 61966-2-1), to 8 bits.
///
/// The curves are sampled into tables once per mapping, so a 4K thumbnail costs a few table
/// look-ups per pixel, not powers.
public struct HDRToneMapping: Sendable {
    /// SDR white, the EETF's target peak, in cd/m².
    public static let sdrPeakNits = 203.0
    /// The source peak assumed for PQ without mastering metadata, and HLG's reference display.
    public static let defaultSourcePeakNits = 1000.0

    public let colorSpace: FrameColorSpace
    public let sourcePeakNits: Double

    /// PQ: 16-bit code to display light (cd/m²). HLG: 16-bit code to scene light (0…1).
    private let signalTable: [Float]
    /// The EETF from display light to SDR linear light (0…1), sampled at √(nits / peak).
    private let toneTable: [Float]
    /// SDR linear light (0…1) to an 8-bit sRGB code, at `srgbSteps` even steps.
    private let srgbTable: [UInt8]
    private static let toneSteps = 4096
    private static let srgbSteps = 16384

    /// `sourcePeakNits` applies to PQ (nil: 1000); HLG always uses its 1000 cd/m² reference display.
    public init(colorSpace: FrameColorSpace, sourcePeakNits: Double? = nil) {
        precondition(colorSpace.isHDR, "tone mapping is for PQ and HLG pictures")
        self.colorSpace = colorSpace
        let peak = colorSpace.transfer == .pq ? sourcePeakNits.map { min(max($0, Self.sdrPeakNits), 10_000) } : nil
        self.sourcePeakNits = peak ?? Self.defaultSourcePeakNits
        let isPQ = colorSpace.transfer == .pq
        signalTable = (0...65535).map { code in
            let e = Double(code) / 65535
            return Float(isPQ ? Self.pqEOTF(e) : Self.hlgInverseOETF(e))
        }
        let sourcePeak = self.sourcePeakNits
        toneTable = (0...Self.toneSteps).map { step in
            let u = Double(step) / Double(Self.toneSteps)
            return Float(Self.toneMappedNits(u * u * sourcePeak, sourcePeakNits: sourcePeak, targetPeakNits: Self.sdrPeakNits) / Self.sdrPeakNits)
        }
        srgbTable = (0...Self.srgbSteps).map { step in
            UInt8((Self.srgbOETF(Double(step) / Double(Self.srgbSteps)) * 255).rounded())
        }
    }

    // MARK: The curves

    /// SMPTE ST 2084's EOTF: signal 0…1 to absolute luminance (cd/m²).
    public static func pqEOTF(_ e: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let p = pow(min(max(e, 0), 1), 1 / m2)
        return 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// SMPTE ST 2084's inverse EOTF: absolute luminance (cd/m²) to signal 0…1.
    public static func pqInverseEOTF(_ nits: Double) -> Double { GraphicsWhiteMapping.pqInverseEOTF(nits) }

    /// BT.2100's HLG inverse OETF: signal 0…1 to normalised scene light 0…1.
    public static func hlgInverseOETF(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        let v = min(max(e, 0), 1)
        return v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
    }

    /// HLG's OOTF on the reference display: scene light (0…1 per component) to display light
    /// (cd/m²), `Fd = Lw · Ys^(γ−1) · Es` with Lw 1000 cd/m² and γ 1.2.
    public static func hlgDisplayNits(scene: SIMD3<Double>, luminanceWeights: SIMD3<Double>) -> SIMD3<Double> {
        let luminance = (scene * luminanceWeights).sum()
        guard luminance > 0 else { return .zero }
        return scene * (defaultSourcePeakNits * pow(luminance, GraphicsWhiteMapping.hlgSystemGamma - 1))
    }

    /// BT.2390's EETF on display light: from a source whose peak is `sourcePeakNits` to a
    /// display whose peak is `targetPeakNits` (black 0 on both), in the PQ domain.
    public static func toneMappedNits(_ nits: Double, sourcePeakNits: Double, targetPeakNits: Double) -> Double {
        let sourcePeak = pqInverseEOTF(sourcePeakNits)
        guard sourcePeak > 0 else { return 0 }
        let e1 = min(pqInverseEOTF(nits) / sourcePeak, 1)
        let maxLum = pqInverseEOTF(targetPeakNits) / sourcePeak
        let kneeStart = 1.5 * maxLum - 0.5
        let e2: Double
        if e1 < kneeStart || maxLum >= 1 {
            e2 = e1
        } else {
            // The Hermite spline from the knee to the source peak, ending at the target peak.
            let t = (e1 - kneeStart) / (1 - kneeStart), t2 = t * t, t3 = t2 * t
            e2 = (2 * t3 - 3 * t2 + 1) * kneeStart + (t3 - 2 * t2 + t) * (1 - kneeStart) + (-2 * t3 + 3 * t2) * maxLum
        }
        return pqEOTF(e2 * sourcePeak)
    }

    /// The sRGB OETF (IEC 61966-2-1): linear light 0…1 to signal 0…1.
    public static func srgbOETF(_ v: Double) -> Double {
        let x = min(max(v, 0), 1)
        return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    }

    /// Linear BT.2020 RGB to linear BT.709 RGB (the inverse of BT.2087's matrix).
    public static func bt2020ToBT709(_ c: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(1.6605 * c.x - 0.5876 * c.y - 0.0728 * c.z,
              -0.1246 * c.x + 1.1329 * c.y - 0.0083 * c.z,
              -0.0182 * c.x - 0.1006 * c.y + 1.1187 * c.z)
    }

    // MARK: Pictures

    /// The SDR picture of `width`×`height` 16-bit R′G′B′ samples (three per pixel, rows packed).
    public func sdrImage(rgb48 samples: UnsafeBufferPointer<UInt16>, width: Int, height: Int) -> StraightRGBAImage {
        precondition(samples.count >= width * height * 3, "fewer samples than pixels")
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let isPQ = colorSpace.transfer == .pq, isBT2020 = colorSpace.primaries == .bt2020
        let (wr, wg, wb): (Float, Float, Float) = isBT2020 ? (0.2627, 0.6780, 0.0593) : (0.2126, 0.7152, 0.0722)
        let inversePeak = Float(1 / sourcePeakNits), hlgPeak = Float(Self.defaultSourcePeakNits)
        let gammaMinusOne = Float(GraphicsWhiteMapping.hlgSystemGamma - 1)
        let toneSteps = Float(Self.toneSteps), srgbSteps = Float(Self.srgbSteps), lastTone = Self.toneSteps - 1
        // Plain scalars and buffer pointers: this runs per pixel (8 million for a 4K thumbnail).
        signalTable.withUnsafeBufferPointer { signal in
            toneTable.withUnsafeBufferPointer { tone in
                srgbTable.withUnsafeBufferPointer { srgb in
                    pixels.withUnsafeMutableBufferPointer { out in
                        for i in 0..<(width * height) {
                            var r = signal[Int(samples[3 * i])], g = signal[Int(samples[3 * i + 1])], b = signal[Int(samples[3 * i + 2])]
                            if !isPQ {
                                let luminance = wr * r + wg * g + wb * b
                                let scale = luminance > 0 ? hlgPeak * pow(luminance, gammaMinusOne) : 0
                                r *= scale; g *= scale; b *= scale
                            }
                            // The tone curve, interpolated between samples at √(nits / peak).
                            var position = min(max(r * inversePeak, 0), 1).squareRoot() * toneSteps
                            var index = min(Int(position), lastTone)
                            r = tone[index] + (tone[index + 1] - tone[index]) * (position - Float(index))
                            position = min(max(g * inversePeak, 0), 1).squareRoot() * toneSteps
                            index = min(Int(position), lastTone)
                            g = tone[index] + (tone[index + 1] - tone[index]) * (position - Float(index))
                            position = min(max(b * inversePeak, 0), 1).squareRoot() * toneSteps
                            index = min(Int(position), lastTone)
                            b = tone[index] + (tone[index + 1] - tone[index]) * (position - Float(index))
                            if isBT2020 {
                                (r, g, b) = (1.6605 * r - 0.5876 * g - 0.0728 * b, -0.1246 * r + 1.1329 * g - 0.0083 * b,
                                             -0.0182 * r - 0.1006 * g + 1.1187 * b)
                            }
                            out[4 * i] = srgb[Int(min(max(r, 0), 1) * srgbSteps + 0.5)]
                            out[4 * i + 1] = srgb[Int(min(max(g, 0), 1) * srgbSteps + 0.5)]
                            out[4 * i + 2] = srgb[Int(min(max(b, 0), 1) * srgbSteps + 0.5)]
                        }
                    }
                }
            }
        }
        return StraightRGBAImage(width: width, height: height, pixels: pixels)
    }
}
