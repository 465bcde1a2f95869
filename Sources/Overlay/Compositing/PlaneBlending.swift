// The per-plane blend kernels of `PlanarYUVCanvas`: the hot loop of every marked video frame.

/// Blends premultiplied samples over one plane: `out = P + D·(255 − A) / 255`, with P and A
/// scaled by `opacity` first, changing only the runs where the mark has alpha. Division by
/// 255 is integer, rounded to nearest (`divideBy255` for 8-bit planes).
func blendPlane(_ plane: PlanarYUVCanvas.Plane, planeWidth: Int, planeHeight: Int,
                        samples: UnsafeBufferPointer<UInt16>, alpha: UnsafeBufferPointer<UInt8>, spans: CoverageSpans,
                        markWidth: Int, markHeight: Int, atX x: Int, y: Int, opacity: UInt8, wide: Bool) {
    let area = PixelRect(x: x, y: y, width: markWidth, height: markHeight)
        .intersection(PixelRect(x: 0, y: 0, width: planeWidth, height: planeHeight))
    guard !area.isEmpty, let samples = samples.baseAddress, let alpha = alpha.baseAddress else { return }
    // The mark columns that land on the plane; the plane column is mark column + x.
    let room = (area.x - x) ..< (area.maxX - x)
    for row in area.y..<area.maxY {
        let markRow = row - y
        let source = markRow * markWidth
        let rowBase = plane.base + row * plane.bytesPerRow
        if wide {
            let dst = rowBase.assumingMemoryBound(to: UInt16.self) + x
            spans.forEachRun(inRow: markRow, clippedTo: room.lowerBound, room.upperBound) { start, end in
                blendRun16(dst + start, samples: samples + source + start, alpha: alpha + source + start,
                           count: end - start, opacity: opacity)
            }
        } else {
            blendRow8(rowBase.assumingMemoryBound(to: UInt8.self) + x, samples: samples + source, alpha: alpha + source,
                      spans: spans, markRow: markRow, room: room, opacity: opacity)
        }
    }
}

/// One run of a 9–16-bit plane (samples in 16-bit words).
private func blendRun16(_ dst: UnsafeMutablePointer<UInt16>, samples: UnsafePointer<UInt16>,
                        alpha: UnsafePointer<UInt8>, count: Int, opacity: UInt8) {
    let factor = UInt32(opacity)
    for column in 0..<count {
        var a = UInt32(alpha[column])
        var p = UInt32(samples[column])
        if factor != 255 {
            a = (a * factor + 127) / 255
            p = (p * factor + 127) / 255
        }
        dst[column] = UInt16(truncatingIfNeeded: p + (UInt32(dst[column]) * (255 - a) + 127) / 255)
    }
}

/// Sixteen neighbouring 8-bit columns: the unit of the vectorised 8-bit blend.
private typealias Window = SIMD16<UInt8>
/// A `Window` widened to 16 bits a lane, where the blend is computed.
private typealias Lanes = SIMD16<UInt16>

/// The runs of one row of an 8-bit plane (pointers at mark column 0), sixteen columns at a
/// time, giving exactly the bytes of `blendSample8`.
///
/// Runs are a few pixels long on text, so a window is not kept to one run: it covers every
/// column from where the last one stopped, possibly several runs and the gaps between them.
/// Gap columns are stored back unchanged, since a zero alpha has a zero sample (see
/// `PlanarMark`) and 0 + D·255 / 255 = D. A window stays inside `room`, the mark's columns
/// on the plane: at its right end it starts early, over finished columns, which it masks off.
private func blendRow8(_ dst: UnsafeMutablePointer<UInt8>, samples: UnsafePointer<UInt16>, alpha: UnsafePointer<UInt8>,
                       spans: CoverageSpans, markRow: Int, room: Range<Int>, opacity: UInt8) {
    let width = Window.scalarCount
    // No window fits (a mark nearly off the plane, or a tiny one): column by column.
    guard room.count >= width else {
        spans.forEachRun(inRow: markRow, clippedTo: room.lowerBound, room.upperBound) { start, end in
            for column in start..<end {
                dst[column] = blendSample8(dst[column], sample: samples[column], alpha: alpha[column], opacity: opacity)
            }
        }
        return
    }
    var done = room.lowerBound
    spans.forEachRun(inRow: markRow, clippedTo: room.lowerBound, room.upperBound) { start, end in
        var column = max(start, done)
        while column < end {
            let window = min(column, room.upperBound - width)
            blendWindow8(dst + window, samples: samples + window, alpha: alpha + window,
                         keep: lanesBelow(column - window), opacity: opacity)
            column = window + width
        }
        done = column
    }
}

/// `blendSample8` on the sixteen columns from `dst`, except in the lanes set in `keep`.
///
/// 16-bit lanes cannot overflow: 8-bit samples are at most 255 (`PlanarMark` keeps each at
/// most its alpha), so P·opacity ≤ 255·254, D·(255 − A) ≤ 255·255, and `divideBy255` of
/// anything up to 255·255 stays below 65536 on the way.
@inline(__always)
private func blendWindow8(_ dst: UnsafeMutablePointer<UInt8>, samples: UnsafePointer<UInt16>, alpha: UnsafePointer<UInt8>,
                          keep: Window, opacity: UInt8) {
    let old = UnsafeRawPointer(dst).loadUnaligned(as: Window.self)
    let d = widen(old)
    var a = widen(UnsafeRawPointer(alpha).loadUnaligned(as: Window.self))
    var p = UnsafeRawPointer(samples).loadUnaligned(as: Lanes.self)
    if opacity != 255 {
        let factor = Lanes(repeating: UInt16(opacity))
        p = divideBy255(p &* factor)
        a = divideBy255(a &* factor)
    }
    let sum = p &+ divideBy255(d &* (255 &- a))
    // Saturate at 255 (a sum of 256…511 has bit 8 set and becomes 0xFF), as the scalar min
    // does; with P ≤ A it never rises above 255. Shifts and masks, because a lane select or
    // `pointwiseMin` here came out of LLVM partly scalar or as a call.
    let blended = Window(truncatingIfNeeded: sum | (0 &- (sum &>> 8)))
    UnsafeMutableRawPointer(dst).storeBytes(of: (blended & ~keep) | (old & keep), as: Window.self)
}

/// Sixteen zero bytes, then sixteen 0xFF: the masks of `lanesBelow`.
private let laneMaskSource: (UInt64, UInt64, UInt64, UInt64) = (0, 0, ~0, ~0)

/// A window with 0xFF in lanes 0 ..< `count` (0…16) and zero above.
@inline(__always)
private func lanesBelow(_ count: Int) -> Window {
    withUnsafeBytes(of: laneMaskSource) { ~$0.loadUnaligned(fromByteOffset: 16 - count, as: Window.self) }
}

/// Zero-extends a window to `Lanes`. Written lane by lane because LLVM turns this into two
/// unpack instructions inline, whereas the standard library's generic
/// `init(truncatingIfNeeded:)` stays an out-of-line call in the loop.
@inline(__always)
private func widen(_ bytes: Window) -> Lanes {
    var lanes = Lanes()
    for i in lanes.indices { lanes[i] = UInt16(bytes[i]) }
    return lanes
}

/// The exact rounded x / 255 of every lane, for x ≤ 255·255 (see the scalar `divideBy255`).
@inline(__always)
private func divideBy255(_ x: Lanes) -> Lanes {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

/// The 8-bit blend of one sample, `min(255, P + D·(255 − A) / 255)` after opacity scaling.
@inline(__always)
private func blendSample8(_ d: UInt8, sample: UInt16, alpha: UInt8, opacity: UInt8) -> UInt8 {
    var a = UInt32(alpha), p = UInt32(sample)
    if opacity != 255 {
        a = UInt32(divideBy255(a * UInt32(opacity)))
        p = UInt32(divideBy255(p * UInt32(opacity)))
    }
    return UInt8(truncatingIfNeeded: min(255, p + UInt32(divideBy255(UInt32(d) * (255 - a)))))
}
