/// A grey picture as floating-point luma (0…255 for 8-bit sources), row by row.
///
/// The tracer's working image: whoever decodes the leak and the original turns their frames
/// into these (usually already scaled down), and every comparison happens on them. Pixel
/// (x, y) covers the square [x, x + 1) × [y, y + 1), so its centre is at (x + 0.5, y + 0.5).
public struct LumaImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [Float]

    public init(width: Int, height: Int, pixels: [Float]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "LumaImage needs width × height pixels")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, filledWith value: Float = 0) {
        self.init(width: width, height: height, pixels: [Float](repeating: value, count: width * height))
    }

    /// An 8-bit plane with `bytesPerRow` bytes from one row's start to the next.
    public init(width: Int, height: Int, bytes: UnsafeBufferPointer<UInt8>, bytesPerRow: Int) {
        precondition(bytesPerRow >= width && bytes.count >= bytesPerRow * (height - 1) + width, "plane too small")
        var pixels = [Float](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = y * bytesPerRow
                for x in 0..<width { out[y * width + x] = Float(bytes[row + x]) }
            }
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    public subscript(x: Int, y: Int) -> Float {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// The whole picture as a rectangle.
    public var bounds: PlaneRect { PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)) }

    /// The mean of every pixel.
    public var mean: Float {
        pixels.withUnsafeBufferPointer { p in
            var sum: Double = 0
            for value in p { sum += Double(value) }
            return Float(sum / Double(p.count))
        }
    }

    /// The region `source` (in this picture's pixel units; it may reach past the edges, which
    /// repeat) resampled onto a `width`×`height` grid.
    ///
    /// Each output pixel is the area-weighted mean of the source pixels its footprint covers,
    /// so shrinking does not alias; where the footprint is narrower than one source pixel
    /// (enlarging), it is interpolated linearly instead. This one routine makes thumbnails,
    /// crops, and the warp of an original frame into the leak's geometry.
    public func resampled(from source: PlaneRect, width outWidth: Int, height outHeight: Int) -> LumaImage {
        let columns = ResamplingWeights(sourceCount: width, from: source.minX, to: source.maxX, outputCount: outWidth)
        let rows = ResamplingWeights(sourceCount: height, from: source.minY, to: source.maxY, outputCount: outHeight)
        return resampled(columns: columns, rows: rows)
    }

    /// Resampling with weights prepared once, for callers that resample many pictures alike.
    func resampled(columns: ResamplingWeights, rows: ResamplingWeights) -> LumaImage {
        let outWidth = columns.outputCount, outHeight = rows.outputCount
        // Vertical pass into outHeight rows of full width, then the horizontal pass.
        var vertical = [Float](repeating: 0, count: outHeight * width)
        pixels.withUnsafeBufferPointer { src in
            vertical.withUnsafeMutableBufferPointer { dst in
                rows.forEachOutput { y, taps, weights in
                    let to = dst.baseAddress! + y * width
                    for t in 0..<taps.count {
                        let from = src.baseAddress! + taps[t] * width
                        let w = weights[t]
                        for x in 0..<width { to[x] += from[x] * w }
                    }
                }
            }
        }
        var output = [Float](repeating: 0, count: outWidth * outHeight)
        vertical.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                columns.forEachOutput { x, taps, weights in
                    for y in 0..<outHeight {
                        let row = src.baseAddress! + y * width
                        var sum: Float = 0
                        for t in 0..<taps.count { sum += row[taps[t]] * weights[t] }
                        dst[y * outWidth + x] = sum
                    }
                }
            }
        }
        return LumaImage(width: outWidth, height: outHeight, pixels: output)
    }

    /// The picture shrunk (or enlarged) as a whole to `width`×`height`.
    public func resized(width: Int, height: Int) -> LumaImage {
        resampled(from: bounds, width: width, height: height)
    }

    /// The picture turned clockwise by `quarterTurns` quarter turns (a phone video's stored
    /// frame into the upright picture a viewer sees).
    public func rotated(clockwiseQuarterTurns quarterTurns: Int) -> LumaImage {
        let turns = ((quarterTurns % 4) + 4) % 4
        guard turns != 0 else { return self }
        let (outWidth, outHeight) = turns % 2 == 1 ? (height, width) : (width, height)
        var output = [Float](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let (u, v): (Int, Int)
                switch turns {
                case 1: (u, v) = (height - 1 - y, x)
                case 2: (u, v) = (width - 1 - x, height - 1 - y)
                default: (u, v) = (y, width - 1 - x)
                }
                output[v * outWidth + u] = pixels[y * width + x]
            }
        }
        return LumaImage(width: outWidth, height: outHeight, pixels: output)
    }

    /// Each pixel replaced by the mean of the (2·radius + 1)² square around it, edges repeated:
    /// evens out the last pixel of misregistration and the blockiness of heavy compression.
    public func boxBlurred(radius: Int) -> LumaImage {
        guard radius > 0 else { return self }
        var horizontal = [Float](repeating: 0, count: pixels.count)
        var output = [Float](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            horizontal.withUnsafeMutableBufferPointer { dst in
                Self.boxPass(src.baseAddress!, dst.baseAddress!, lines: height, length: width, step: 1, lineStep: width, radius: radius)
            }
        }
        horizontal.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                Self.boxPass(src.baseAddress!, dst.baseAddress!, lines: width, length: height, step: width, lineStep: 1, radius: radius)
            }
        }
        return LumaImage(width: width, height: height, pixels: output)
    }

    /// One direction of the box blur: a running sum along each line, the edge sample repeated.
    private static func boxPass(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>,
                                lines: Int, length: Int, step: Int, lineStep: Int, radius: Int) {
        let scale = 1 / Float(2 * radius + 1)
        for line in 0..<lines {
            let base = line * lineStep
            var sum: Float = 0
            for i in -radius...radius { sum += src[base + min(max(i, 0), length - 1) * step] }
            for i in 0..<length {
                dst[base + i * step] = sum * scale
                sum += src[base + min(i + radius + 1, length - 1) * step] - src[base + max(i - radius, 0) * step]
            }
        }
    }
}

/// For each output sample along one axis, the source samples it draws on and their weights
/// (summing to 1); sources beyond the edges are clamped onto the edge sample. Kept in flat
/// arrays so the resampling loops touch nothing but numbers.
struct ResamplingWeights {
    let outputCount: Int
    private var indices: [Int] = []
    private var weights: [Float] = []
    /// Output i uses taps starts[i] ..< starts[i + 1].
    private var starts: [Int] = [0]

    init(sourceCount: Int, from start: Double, to end: Double, outputCount: Int) {
        precondition(outputCount > 0 && sourceCount > 0)
        self.outputCount = outputCount
        let step = (end - start) / Double(outputCount)
        for i in 0..<outputCount {
            let a = start + Double(i) * step, b = a + step
            if abs(step) >= 1 {
                // Area: every source pixel [k, k + 1) overlapping [a, b), weighted by the overlap.
                let low = min(a, b), high = max(a, b)
                var k = Int(low.rounded(.down))
                while Double(k) < high {
                    let overlap = min(high, Double(k + 1)) - max(low, Double(k))
                    if overlap > 1e-9 { add(k, overlap / (high - low), sourceCount) }
                    k += 1
                }
            } else {
                // Linear between the two pixel centres around the footprint's centre.
                let centre = (a + b) / 2 - 0.5
                let k = Int(centre.rounded(.down))
                let f = centre - Double(k)
                add(k, 1 - f, sourceCount)
                add(k + 1, f, sourceCount)
            }
            starts.append(indices.count)
        }
    }

    private mutating func add(_ index: Int, _ weight: Double, _ count: Int) {
        guard weight > 0 else { return }
        indices.append(min(max(index, 0), count - 1))
        weights.append(Float(weight))
    }

    /// Calls `body` with each output's taps: source indices and weights, as buffers.
    func forEachOutput(_ body: (Int, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> Void) {
        indices.withUnsafeBufferPointer { allIndices in
            weights.withUnsafeBufferPointer { allWeights in
                for output in 0..<outputCount {
                    let range = starts[output]..<starts[output + 1]
                    body(output, UnsafeBufferPointer(rebasing: allIndices[range]), UnsafeBufferPointer(rebasing: allWeights[range]))
                }
            }
        }
    }
}

/// A luma picture kept in 8 bits, a quarter of a `LumaImage`'s memory: how the tracer holds
/// leak frames it must keep until the original's matching frames arrive.
public struct CompactLuma: Sendable {
    public let width: Int
    public let height: Int
    private let bytes: [UInt8]

    public init(_ image: LumaImage) {
        width = image.width
        height = image.height
        var bytes = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { from in
            bytes.withUnsafeMutableBufferPointer { to in
                for i in from.indices { to[i] = UInt8(min(max(from[i] + 0.5, 0), 255)) }
            }
        }
        self.bytes = bytes
    }

    public var image: LumaImage {
        var pixels = [Float](repeating: 0, count: bytes.count)
        bytes.withUnsafeBufferPointer { from in
            pixels.withUnsafeMutableBufferPointer { to in
                for i in from.indices { to[i] = Float(from[i]) }
            }
        }
        return LumaImage(width: width, height: height, pixels: pixels)
    }
}
