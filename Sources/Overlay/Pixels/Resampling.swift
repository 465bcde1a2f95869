extension PremultipliedRGBAImage {
    /// This image resampled to `width`×`height` with a separable Lanczos-3 filter (widened
    /// when shrinking, so downscales average every source pixel instead of skipping some).
    ///
    /// Works on premultiplied pixels so transparent pixels lend no colour to their
    /// neighbours, and clamps each colour channel to its alpha so the result stays valid.
    public func resized(width newWidth: Int, height newHeight: Int) -> PremultipliedRGBAImage {
        precondition(newWidth > 0 && newHeight > 0, "resize to an empty image")
        if newWidth == width && newHeight == height { return self }
        let horizontal = ResamplingWeights(sourceLength: width, targetLength: newWidth)
        let vertical = ResamplingWeights(sourceLength: height, targetLength: newHeight)

        // Pass 1: rows, into a float buffer of newWidth × height.
        var intermediate = [Float](repeating: 0, count: newWidth * height * 4)
        pixels.withUnsafeBufferPointer { src in
            intermediate.withUnsafeMutableBufferPointer { dst in
                horizontal.weights.withUnsafeBufferPointer { weights in
                    for y in 0..<height {
                        let srcRow = y * width * 4
                        let dstRow = y * newWidth * 4
                        for x in 0..<newWidth {
                            let first = horizontal.first[x], offset = horizontal.offset[x]
                            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                            for k in 0..<horizontal.count[x] {
                                let w = weights[offset + k]
                                let i = srcRow + (first + k) * 4
                                r += w * Float(src[i]); g += w * Float(src[i + 1])
                                b += w * Float(src[i + 2]); a += w * Float(src[i + 3])
                            }
                            let o = dstRow + x * 4
                            dst[o] = r; dst[o + 1] = g; dst[o + 2] = b; dst[o + 3] = a
                        }
                    }
                }
            }
        }
        // Pass 2: columns, into bytes.
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
        intermediate.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                vertical.weights.withUnsafeBufferPointer { weights in
                    for y in 0..<newHeight {
                        let first = vertical.first[y], offset = vertical.offset[y], count = vertical.count[y]
                        for x in 0..<newWidth {
                            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                            for k in 0..<count {
                                let w = weights[offset + k]
                                let i = ((first + k) * newWidth + x) * 4
                                r += w * src[i]; g += w * src[i + 1]; b += w * src[i + 2]; a += w * src[i + 3]
                            }
                            let alpha = clampToByte(a)
                            let o = (y * newWidth + x) * 4
                            dst[o] = min(clampToByte(r), alpha)
                            dst[o + 1] = min(clampToByte(g), alpha)
                            dst[o + 2] = min(clampToByte(b), alpha)
                            dst[o + 3] = alpha
                        }
                    }
                }
            }
        }
        return PremultipliedRGBAImage(width: newWidth, height: newHeight, pixels: out)
    }

    /// This image turned clockwise by `quarterTurns` × 90°.
    public func rotated(clockwiseQuarterTurns quarterTurns: Int) -> PremultipliedRGBAImage {
        let turns = ((quarterTurns % 4) + 4) % 4
        if turns == 0 { return self }
        let newWidth = turns == 2 ? width : height
        let newHeight = turns == 2 ? height : width
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let (nx, ny): (Int, Int)
                switch turns {
                case 1: (nx, ny) = (height - 1 - y, x)
                case 2: (nx, ny) = (width - 1 - x, height - 1 - y)
                default: (nx, ny) = (y, width - 1 - x)
                }
                let s = (y * width + x) * 4, d = (ny * newWidth + nx) * 4
                out[d] = pixels[s]; out[d + 1] = pixels[s + 1]; out[d + 2] = pixels[s + 2]; out[d + 3] = pixels[s + 3]
            }
        }
        return PremultipliedRGBAImage(width: newWidth, height: newHeight, pixels: out)
    }
}

@inline(__always)
private func clampToByte(_ v: Float) -> UInt8 {
    UInt8(max(0, min(255, v.rounded())))
}

/// Precomputed filter taps for one axis of a resize: output sample `i` is the weighted sum
/// of `count[i]` source samples from `first[i]`, with weights `weights[offset[i]...]`
/// (one flat array, so the inner loops touch no per-sample objects).
private struct ResamplingWeights {
    var first: [Int] = []
    var count: [Int] = []
    var offset: [Int] = []
    var weights: [Float] = []

    init(sourceLength: Int, targetLength: Int) {
        let scale = Double(targetLength) / Double(sourceLength)
        // When shrinking, stretch the kernel over the source so every pixel contributes.
        let support = 3.0 * max(1.0, 1.0 / scale)
        let kernelScale = min(1.0, scale)
        for i in 0..<targetLength {
            let center = (Double(i) + 0.5) / scale
            let first = max(0, Int((center - support).rounded(.down)))
            let last = min(sourceLength - 1, Int((center + support).rounded(.up)))
            var taps: [Double] = []
            for j in first...max(first, last) {
                taps.append(lanczos3((Double(j) + 0.5 - center) * kernelScale))
            }
            let total = taps.reduce(0, +)
            self.first.append(first)
            self.count.append(taps.count)
            self.offset.append(weights.count)
            weights.append(contentsOf: taps.map { Float(total == 0 ? 0 : $0 / total) })
        }
    }
}

private func lanczos3(_ x: Double) -> Double {
    if x == 0 { return 1 }
    if abs(x) >= 3 { return 0 }
    let px = Double.pi * x
    return 3 * sin(px) * sin(px / 3) / (px * px)
}

#if canImport(Glibc)
import Glibc
#endif
