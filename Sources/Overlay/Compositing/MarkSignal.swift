/// A mark's premultiplied pixels in a frame's signal: what the YUV conversion and the RGBA
/// blend start from.
///
/// On an SDR frame these are the sprite's own bytes. On an HDR frame each pixel's straight
/// colour (its premultiplied value divided by alpha, kept as a fraction rather than rounded to
/// a byte) goes through `GraphicsWhiteMapping` and is multiplied by alpha again. Alpha
/// blending onto the frame then stays where it always was, in the signal domain (PQ or HLG
/// values are mixed as numbers, as every broadcast keyer does with graphics): blending in
/// linear light would need the frame's pixels converted per frame, which the compositor
/// avoids by design, and only antialiased edges and translucent marks differ.
struct MarkSignal {
    let mapping: GraphicsWhiteMapping
    /// A direct-mapped cache of converted pixels, keyed by the packed premultiplied pixel:
    /// text and tiles hold few distinct values, so most pixels skip the transcendental maths.
    private var keys: [UInt32]
    private var values: [SIMD4<Float>]
    private static let cacheBits = 12

    init(mapping: GraphicsWhiteMapping) {
        self.mapping = mapping
        keys = mapping.isIdentity ? [] : [UInt32](repeating: 0, count: 1 << Self.cacheBits)
        values = mapping.isIdentity ? [] : [SIMD4<Float>](repeating: .zero, count: 1 << Self.cacheBits)
    }

    /// The premultiplied signal of one pixel on the 0…255 scale of its bytes: (R′, G′, B′, A)
    /// with each colour at most A. Alpha must not be zero.
    @inline(__always)
    mutating func premultipliedSignal(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) -> SIMD4<Float> {
        if mapping.isIdentity { return SIMD4(Float(red), Float(green), Float(blue), Float(alpha)) }
        let packed = UInt32(red) | UInt32(green) << 8 | UInt32(blue) << 16 | UInt32(alpha) << 24
        // Fibonacci hashing of the packed pixel; slot 0's initial key 0 is a transparent pixel, never asked for.
        let slot = Int((packed &* 0x9E37_79B1) >> UInt32(32 - Self.cacheBits))
        if keys[slot] == packed { return values[slot] }
        let a = Double(alpha)
        // The straight colour, clamped: a premultiplied channel above its alpha is not a colour.
        let straight = SIMD3(min(Double(red), a), min(Double(green), a), min(Double(blue), a)) / a
        let signal = mapping.signal(red: straight.x, green: straight.y, blue: straight.z) * a
        let value = SIMD4(Float(signal.x), Float(signal.y), Float(signal.z), Float(alpha))
        keys[slot] = packed
        values[slot] = value
        return value
    }

    /// The whole image in the frame's signal as 8-bit premultiplied RGBA (for RGBA canvases:
    /// stills whose pixels are PQ or HLG coded). The sprite itself on an SDR frame.
    mutating func convert(_ image: PremultipliedRGBAImage) -> PremultipliedRGBAImage {
        if mapping.isIdentity { return image }
        var out = image.pixels
        for i in stride(from: 0, to: out.count, by: 4) where out[i + 3] != 0 {
            let s = premultipliedSignal(red: out[i], green: out[i + 1], blue: out[i + 2], alpha: out[i + 3])
            func byte(_ v: Float) -> UInt8 { UInt8(min(max(v.rounded(), 0), s.w)) }
            out[i] = byte(s.x); out[i + 1] = byte(s.y); out[i + 2] = byte(s.z)
        }
        return PremultipliedRGBAImage(width: image.width, height: image.height, pixels: out)
    }
}
