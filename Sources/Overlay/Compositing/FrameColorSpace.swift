#if canImport(Glibc)
import Glibc
#endif

/// The colour space a frame's R′G′B′ (or Y′CbCr) signal is in: its primaries and transfer.
///
/// Marks are drawn in SDR sRGB (config colours, PNG logos). On an SDR frame they are used as
/// they are, exactly as before this type existed. On a PQ or HLG frame they are mapped to the
/// frame's signal (`GraphicsWhiteMapping`), so white text sits at graphics white instead of at
/// the display's peak.
public struct FrameColorSpace: Hashable, Sendable {
    public enum Transfer: Hashable, Sendable {
        /// BT.709/BT.1886, sRGB, and anything not known to be HDR.
        case sdr
        /// SMPTE ST 2084 (perceptual quantiser), absolute: signal 1.0 is 10 000 cd/m².
        case pq
        /// ARIB STD-B67 / BT.2100 hybrid log-gamma, relative to the display's peak.
        case hlg
    }

    public enum Primaries: Hashable, Sendable {
        /// BT.709 / sRGB primaries, and anything unknown.
        case bt709
        case bt2020
    }

    public var transfer: Transfer
    public var primaries: Primaries

    public init(transfer: Transfer, primaries: Primaries) {
        self.transfer = transfer
        self.primaries = primaries
    }

    /// What every frame was treated as before: marks' sRGB values written unchanged.
    public static let sdr = FrameColorSpace(transfer: .sdr, primaries: .bt709)
    public static let pqBT2020 = FrameColorSpace(transfer: .pq, primaries: .bt2020)
    public static let hlgBT2020 = FrameColorSpace(transfer: .hlg, primaries: .bt2020)

    public var isHDR: Bool { transfer != .sdr }
}

/// Maps an SDR sRGB colour into an HDR frame's signal the way ITU-R BT.2408 places graphics:
/// sRGB white at `whiteNits` of display light (203 cd/m² by default, BT.2408's graphics white).
///
/// The steps, per colour: the sRGB values are linearised with the sRGB EOTF (IEC 61966-2-1;
/// they are sRGB colours, so not BT.1886's 2.4 gamma), scaled so white is `whiteNits`,
/// converted from BT.709 to BT.2020 primaries (BT.2087's matrix) when the frame is BT.2020,
/// and encoded:
/// - PQ: the SMPTE ST 2084 inverse EOTF of the absolute luminance, so 203 nits is signal 0.5807
///   (10-bit limited: code 573).
/// - HLG: BT.2100's inverse OOTF for a 1000 cd/m² nominal peak display (system gamma 1.2),
///   then the HLG OETF: BT.2408's reference, where 203 nits lands at signal 0.75 (code 721).
///   Whites above 1000 nits clip at signal 1.
///
/// Nothing here runs per video frame: a prepared mark maps each of its pixels once per frame
/// format and keeps the result (`PreparedMark`).
public struct GraphicsWhiteMapping: Hashable, Sendable {
    /// BT.2408's reference level for graphics white, in cd/m².
    public static let defaultWhiteNits = 203.0
    /// The HLG display the mapping assumes: BT.2100's nominal peak, for which system gamma is 1.2.
    static let hlgNominalPeakNits = 1000.0
    static let hlgSystemGamma = 1.2

    public var colorSpace: FrameColorSpace
    public var whiteNits: Double

    public init(colorSpace: FrameColorSpace, whiteNits: Double = Self.defaultWhiteNits) {
        self.colorSpace = colorSpace
        self.whiteNits = whiteNits.isFinite && whiteNits > 0 ? whiteNits : Self.defaultWhiteNits
    }

    /// Whether colours go through unchanged (an SDR frame).
    public var isIdentity: Bool { !colorSpace.isHDR }

    /// The frame's R′G′B′ signal (0…1) for a straight sRGB colour given as 0…1 values.
    public func signal(red: Double, green: Double, blue: Double) -> SIMD3<Double> {
        let srgb = SIMD3(red, green, blue)
        guard colorSpace.isHDR else { return srgb }
        var linear = SIMD3(Self.srgbToLinear(red), Self.srgbToLinear(green), Self.srgbToLinear(blue))
        if colorSpace.primaries == .bt2020 { linear = Self.bt709ToBT2020(linear) }
        let nits = linear * whiteNits
        switch colorSpace.transfer {
        case .sdr:
            return srgb
        case .pq:
            return SIMD3(Self.pqInverseEOTF(nits.x), Self.pqInverseEOTF(nits.y), Self.pqInverseEOTF(nits.z))
        case .hlg:
            let scene = Self.hlgInverseOOTF(displayNits: nits, luminanceWeights: colorSpace.primaries == .bt2020
                                            ? SIMD3(0.2627, 0.6780, 0.0593) : SIMD3(0.2126, 0.7152, 0.0722))
            return SIMD3(Self.hlgOETF(scene.x), Self.hlgOETF(scene.y), Self.hlgOETF(scene.z))
        }
    }

    /// sRGB's EOTF (IEC 61966-2-1).
    static func srgbToLinear(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear BT.709 RGB to linear BT.2020 RGB (ITU-R BT.2087, table 2). An sRGB colour stays
    /// inside BT.2020's gamut, so no component goes negative.
    static func bt709ToBT2020(_ c: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(0.6274 * c.x + 0.3293 * c.y + 0.0433 * c.z,
              0.0691 * c.x + 0.9195 * c.y + 0.0114 * c.z,
              0.0164 * c.x + 0.0880 * c.y + 0.8956 * c.z)
    }

    /// SMPTE ST 2084's inverse EOTF: absolute luminance (cd/m²) to signal 0…1.
    static func pqInverseEOTF(_ nits: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let y = pow(min(max(nits / 10_000, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// BT.2100's inverse OOTF for HLG: display light (cd/m²) to normalised scene light 0…1,
    /// on a display of `hlgNominalPeakNits` (black level 0). `Es = Fd/Lw · (Yd/Lw)^((1−γ)/γ)`.
    static func hlgInverseOOTF(displayNits: SIMD3<Double>, luminanceWeights: SIMD3<Double>) -> SIMD3<Double> {
        let peak = hlgNominalPeakNits, gamma = hlgSystemGamma
        let normalised = displayNits / peak
        let luminance = (normalised * luminanceWeights).sum()
        guard luminance > 0 else { return .zero }
        let scene = normalised * pow(luminance, (1 - gamma) / gamma)
        return scene.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1))
    }

    /// The HLG OETF (ARIB STD-B67, BT.2100): normalised scene light 0…1 to signal 0…1.
    static func hlgOETF(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        return e <= 1.0 / 12 ? (3 * e).squareRoot() : a * log(12 * e - b) + c
    }
}
