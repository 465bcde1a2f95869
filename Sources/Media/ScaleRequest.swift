/// `--scale WxH | --width W | --height H | --max-size N`: the size of the output picture, in
/// display orientation (what a person sees: a phone's portrait video is taller than wide),
/// the shape always kept. Without `--upscale`, a request larger than the input keeps the
/// input's size.
///
/// Pictures are scaled with swscale's Lanczos filter (3 lobes), before the marks are drawn,
/// so marks are laid out and rasterised at the output size: a 720p output of a 1080p input
/// carries the same mark pixels as marking a 720p input. Lanczos rather than bicubic because
/// scaling here is mostly down (720p copies, thumbnails of 12 MP photos), where its sharper
/// cut-off keeps fine detail (small text) that bicubic softens, at a cost measured here of
/// about 5 ms a frame more for 1080p → 720p.
public enum ScaleRequest: Sendable, Hashable, CustomStringConvertible {
    /// The largest size inside the box.
    case fit(width: Int, height: Int)
    /// This many pixels wide, the height following the shape.
    case width(Int)
    /// This many pixels tall, the width following the shape.
    case height(Int)
    /// The longer side.
    case longestSide(Int)

    /// Parses one of the options; nil when the value is not a positive size (at most 16384).
    public init?(option: String, value: String) {
        func size(_ text: Substring) -> Int? {
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), text.count <= 5, let n = Int(text), (1...16384).contains(n) else { return nil }
            return n
        }
        switch option {
        case "--scale":
            let parts = value.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = size(parts[0]), let h = size(parts[1]) else { return nil }
            self = .fit(width: w, height: h)
        case "--width": guard let w = size(value[...]) else { return nil }; self = .width(w)
        case "--height": guard let h = size(value[...]) else { return nil }; self = .height(h)
        case "--max-size": guard let n = size(value[...]) else { return nil }; self = .longestSide(n)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .fit(let w, let h): "--scale \(w)x\(h)"
        case .width(let w): "--width \(w)"
        case .height(let h): "--height \(h)"
        case .longestSide(let n): "--max-size \(n)"
        }
    }

    /// The output size for a picture shown at `width`×`height` (square pixels), each side a
    /// multiple of `unit` (2 for 4:2:0 video, 1 for stills) and at least `unit`; nil when the
    /// picture keeps its size (the request is its own size, or larger and `upscale` is off).
    public func outputSize(width: Int, height: Int, unit: Int, upscale: Bool) -> (width: Int, height: Int)? {
        precondition(width > 0 && height > 0 && unit > 0)
        // The side that limits, and its new length: that side is met exactly (down to the
        // unit), the other follows the shape. A fraction, so 1920×1080 → height 720 is exact.
        let limitedByWidth: Bool, target: Int
        switch self {
        case .fit(let w, let h): (limitedByWidth, target) = w * height <= h * width ? (true, w) : (false, h)
        case .width(let w): (limitedByWidth, target) = (true, w)
        case .height(let h): (limitedByWidth, target) = (false, h)
        case .longestSide(let n): (limitedByWidth, target) = (width >= height, n)
        }
        let source = limitedByWidth ? width : height
        guard target != source, upscale || target < source else { return nil }
        let exact = max(unit, target / unit * unit)
        let other = Double(limitedByWidth ? height : width) * Double(target) / Double(source)
        let follows = max(unit, Int((other / Double(unit)).rounded(.toNearestOrEven)) * unit)
        return limitedByWidth ? (exact, follows) : (follows, exact)
    }
}
