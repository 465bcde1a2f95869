internal import CFFmpeg
import Glibc

/// How far one decoded picture is from another of the same size and planar YUV format: the sum of
/// squared sample differences over all three planes, for PSNR. Smart rendering's quality trial
/// compares its own re-encoded pictures with the input's this way.
package struct PictureDifference: Equatable {
    var sumOfSquares: Double
    var samples: Int
    /// The largest sample value (255 for 8-bit samples).
    var peak: Double

    /// Peak signal-to-noise ratio in dB (99 for identical pictures).
    package var psnr: Double {
        guard sumOfSquares > 0, samples > 0 else { return 99 }
        return 10 * log10(peak * peak * Double(samples) / sumOfSquares)
    }

    /// nil when the frames differ in size or format, or the format is not planar YUV.
    package init?(_ a: Frame, _ b: Frame) {
        guard a.width == b.width, a.height == b.height, a.pixelFormat == b.pixelFormat, let layout = a.pixelFormat.planarLayout else { return nil }
        var sum = 0.0, count = 0
        for index in 0..<3 {
            let size = layout.planeSize(index, width: a.width, height: a.height)
            // Both frames' pixels reached inside their scopes.
            let planeSum = a.withPlane(index) { pa in
                b.withPlane(index) { pb in Self.sumOfSquares(pa, pb, width: size.width, height: size.height, bytesPerSample: layout.bytesPerSample) }
            }
            guard let planeSum, let planeSum else { return nil }
            sum += planeSum
            count += size.width * size.height
        }
        sumOfSquares = sum
        samples = count
        peak = Double((1 << layout.bitDepth) - 1)
    }

    private static func sumOfSquares(_ pa: Frame.Plane, _ pb: Frame.Plane, width: Int, height: Int, bytesPerSample: Int) -> Double {
        var sum = 0.0
        for row in 0..<height {
            var rowSum: Int64 = 0
            if bytesPerSample == 1 {
                let ra = pa.base + row * pa.bytesPerRow, rb = pb.base + row * pb.bytesPerRow
                for x in 0..<width {
                    let d = Int64(ra[x]) - Int64(rb[x])
                    rowSum += d * d
                }
            } else {
                let ra = UnsafeRawPointer(pa.base + row * pa.bytesPerRow).assumingMemoryBound(to: UInt16.self)
                let rb = UnsafeRawPointer(pb.base + row * pb.bytesPerRow).assumingMemoryBound(to: UInt16.self)
                for x in 0..<width {
                    let d = Int64(ra[x]) - Int64(rb[x])
                    rowSum += d * d
                }
            }
            sum += Double(rowSum)
        }
        return sum
    }
}
