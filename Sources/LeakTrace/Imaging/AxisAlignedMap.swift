/// A rectangle in continuous pixel units: [minX, maxX) × [minY, maxY).
public struct PlaneRect: Sendable, Equatable, CustomStringConvertible {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(minX: x, minY: y, maxX: x + width, maxY: y + height)
    }

    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }
    public var area: Double { max(width, 0) * max(height, 0) }

    /// The overlap of two rectangles; empty (zero area) when they do not meet.
    public func intersection(_ other: PlaneRect) -> PlaneRect {
        PlaneRect(minX: max(minX, other.minX), minY: max(minY, other.minY),
                  maxX: max(max(minX, other.minX), min(maxX, other.maxX)),
                  maxY: max(max(minY, other.minY), min(maxY, other.maxY)))
    }

    /// The smallest rectangle holding both.
    public func union(_ other: PlaneRect) -> PlaneRect {
        PlaneRect(minX: min(minX, other.minX), minY: min(minY, other.minY), maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    /// Shrunk by `dx` on the left and right and `dy` at the top and bottom (grown when negative).
    public func insetBy(dx: Double, dy: Double) -> PlaneRect {
        PlaneRect(minX: minX + dx, minY: minY + dy, maxX: maxX - dx, maxY: maxY - dy)
    }

    public var description: String {
        "(\(minX), \(minY))–(\(maxX), \(maxY))"
    }
}

/// How one picture's coordinates map onto another's when it was only scaled, cropped or
/// padded — no rotation: x' = scaleX·x + offsetX, y' = scaleY·y + offsetY.
///
/// A leak made by cropping the original, scaling it (each axis by its own factor when the
/// sides were cropped unevenly) and perhaps adding bars is exactly such a map from the
/// original's display pixels to the leak's.
public struct AxisAlignedMap: Sendable, Equatable, CustomStringConvertible {
    public var scaleX: Double
    public var scaleY: Double
    public var offsetX: Double
    public var offsetY: Double

    public init(scaleX: Double, scaleY: Double, offsetX: Double, offsetY: Double) {
        precondition(scaleX > 0 && scaleY > 0, "an axis-aligned map keeps orientation")
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    public static let identity = AxisAlignedMap(scaleX: 1, scaleY: 1, offsetX: 0, offsetY: 0)

    /// The map that takes `source` onto `target` corner to corner.
    public init(mapping source: PlaneRect, onto target: PlaneRect) {
        let sx = target.width / source.width, sy = target.height / source.height
        self.init(scaleX: sx, scaleY: sy, offsetX: target.minX - sx * source.minX, offsetY: target.minY - sy * source.minY)
    }

    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (scaleX * x + offsetX, scaleY * y + offsetY)
    }

    public func apply(_ rect: PlaneRect) -> PlaneRect {
        PlaneRect(minX: scaleX * rect.minX + offsetX, minY: scaleY * rect.minY + offsetY,
                  maxX: scaleX * rect.maxX + offsetX, maxY: scaleY * rect.maxY + offsetY)
    }

    public var inverse: AxisAlignedMap {
        AxisAlignedMap(scaleX: 1 / scaleX, scaleY: 1 / scaleY, offsetX: -offsetX / scaleX, offsetY: -offsetY / scaleY)
    }

    /// This map followed by `next`.
    public func followed(by next: AxisAlignedMap) -> AxisAlignedMap {
        AxisAlignedMap(scaleX: next.scaleX * scaleX, scaleY: next.scaleY * scaleY,
                       offsetX: next.scaleX * offsetX + next.offsetX, offsetY: next.scaleY * offsetY + next.offsetY)
    }

    public var description: String {
        "x' = \(scaleX)·x + \(offsetX), y' = \(scaleY)·y + \(offsetY)"
    }
}
