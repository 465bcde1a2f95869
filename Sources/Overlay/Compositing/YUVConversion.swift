/// The RGB→YUV matrix and range a video frame uses, so a mark converted once per job
/// lands on the frame with the same colour a player shows for the still.
public struct YUVColorMatrix: Hashable, Sendable {
    public enum Coefficients: Hashable, Sendable {
        case bt601, bt709, bt2020

        var kr: Double { switch self { case .bt601: 0.299; case .bt709: 0.2126; case .bt2020: 0.2627 } }
        var kb: Double { switch self { case .bt601: 0.114; case .bt709: 0.0722; case .bt2020: 0.0593 } }
    }

    public var coefficients: Coefficients
    /// Full range ("JPEG", 0…max) rather than the usual limited range (16…235 at 8 bits).
    public var isFullRange: Bool

    public init(coefficients: Coefficients, isFullRange: Bool) {
        self.coefficients = coefficients
        self.isFullRange = isFullRange
    }

    /// The conversion as three linear rows over premultiplied (R′, G′, B′, A) bytes:
    /// `Y′ = y.0·R′ + y.1·G′ + y.2·B′ + y.3·A`, likewise U′ and V′, at `bitDepth`. Exactly
    /// `premultipliedYUV`, evaluated with four multiply-adds per sample.
    func linearCoefficients(bitDepth: Int) -> (y: SIMD4<Float>, u: SIMD4<Float>, v: SIMD4<Float>) {
        func row(_ f: (UInt8, UInt8, UInt8, UInt8) -> Double) -> SIMD4<Float> {
            let base = f(0, 0, 0, 0)
            // Each output is linear in the four inputs, so unit steps give the coefficients.
            return SIMD4(Float(f(255, 0, 0, 0) - base), Float(f(0, 255, 0, 0) - base),
                         Float(f(0, 0, 255, 0) - base), Float(f(0, 0, 0, 255) - base)) / 255
        }
        return (row { premultipliedYUV(red: $0, green: $1, blue: $2, alpha: $3, bitDepth: bitDepth).y },
                row { premultipliedYUV(red: $0, green: $1, blue: $2, alpha: $3, bitDepth: bitDepth).u },
                row { premultipliedYUV(red: $0, green: $1, blue: $2, alpha: $3, bitDepth: bitDepth).v })
    }

    /// Converts a premultiplied colour to premultiplied Y, U, V at `bitDepth`, where
    /// "premultiplied" includes the range offsets (Y′ = α·Y). Blending is then
    /// `out = P + D·(1 − α)`, the same equation as for RGB.
    func premultipliedYUV(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8, bitDepth: Int) -> (y: Double, u: Double, v: Double) {
        let a = Double(alpha) / 255
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let kr = coefficients.kr, kb = coefficients.kb, kg = 1 - kr - kb
        let luma = kr * r + kg * g + kb * b
        let cb = (b - luma) / (2 * (1 - kb))
        let cr = (r - luma) / (2 * (1 - kr))
        let scale = Double(1 << (bitDepth - 8))
        if isFullRange {
            let maxValue = Double((1 << bitDepth) - 1)
            let mid = Double(1 << (bitDepth - 1))
            return (luma * maxValue, a * mid + cb * maxValue, a * mid + cr * maxValue)
        }
        return (a * 16 * scale + luma * 219 * scale, a * 128 * scale + cb * 224 * scale, a * 128 * scale + cr * 224 * scale)
    }
}
