/// Where a mark goes on a frame: the config's percentage placement (docs/design/contract.md) with a safe inset.
///
/// `left = inset + (W − w − 2·inset)·x/100`, likewise for `top`, so x = 0 puts the mark's
/// layout box against the left inset and x = 100 against the right one, and the mark stays
/// whole inside the frame for every x in 0…100.
public enum Placement {
    /// The top-left corner of a `boxWidth`×`boxHeight` layout box on a `frameWidth`×`frameHeight` frame.
    ///
    /// What happens to a box too big to fit between the insets depends on the convention:
    /// `.standard` centres it on that axis; `.tpStreams` does what the SDK's
    /// `positionedFrame(for:at:in:)` does, keeping a too-wide box at the left inset
    /// (`max(W − w − 2·inset, 0)`) and applying the vertical formula unclamped.
    public static func origin(boxWidth: Int, boxHeight: Int, frameWidth: Int, frameHeight: Int,
                              insetPixels: Double, xPercent: Double, yPercent: Double,
                              convention: LayoutConvention = .standard) -> (x: Int, y: Int) {
        func axis(_ box: Int, _ frame: Int, _ percent: Double, vertical: Bool) -> Int {
            var free = Double(frame - box) - 2 * insetPixels
            let p = min(max(percent, 0), 100)
            if free < 0 {
                switch convention {
                case .standard: return Int((Double(frame - box) / 2).rounded(.down))
                case .tpStreams: if !vertical { free = 0 }
                }
            }
            return Int((insetPixels + free * p / 100).rounded())
        }
        return (axis(boxWidth, frameWidth, xPercent, vertical: false), axis(boxHeight, frameHeight, yPercent, vertical: true))
    }
}

/// Orientation bookkeeping between what a viewer sees (display) and how a decoder stores
/// the frame. Phone video is often stored sideways with a rotation flag; marks are laid out
/// in display coordinates and mapped onto the stored pixels.
public struct DisplayRotation: Hashable, Sendable {
    /// Clockwise quarter turns that take the stored frame to the upright picture (0…3).
    public let clockwiseQuarterTurns: Int

    public init(clockwiseQuarterTurns: Int) {
        self.clockwiseQuarterTurns = ((clockwiseQuarterTurns % 4) + 4) % 4
    }

    public static let upright = DisplayRotation(clockwiseQuarterTurns: 0)

    /// Whether width and height swap between storage and display.
    public var swapsAxes: Bool { clockwiseQuarterTurns % 2 == 1 }

    /// The displayed size of a stored `width`×`height` frame.
    public func displaySize(storedWidth: Int, storedHeight: Int) -> (width: Int, height: Int) {
        swapsAxes ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
    }

    /// The stored rectangle of a display rectangle on a frame stored at `storedWidth`×`storedHeight`.
    public func storedRect(ofDisplayRect r: PixelRect, storedWidth: Int, storedHeight: Int) -> PixelRect {
        switch clockwiseQuarterTurns {
        case 1: return PixelRect(x: r.y, y: storedHeight - r.x - r.width, width: r.height, height: r.width)
        case 2: return PixelRect(x: storedWidth - r.x - r.width, y: storedHeight - r.y - r.height, width: r.width, height: r.height)
        case 3: return PixelRect(x: storedWidth - r.y - r.height, y: r.x, width: r.height, height: r.width)
        default: return r
        }
    }
}

/// The shape of a stored pixel: a video's sample aspect ratio. 2:1 means each stored pixel
/// is shown twice as wide as it is tall (anamorphic video), so marks are laid out on the
/// displayed picture and squeezed into the stored one, and look undistorted when played.
public struct PixelAspect: Hashable, Sendable {
    public let numerator: Int
    public let denominator: Int

    /// Unknown or nonsensical ratios (0:1, negative, absurd) mean square pixels, as players assume.
    public init(numerator: Int, denominator: Int) {
        if numerator > 0, denominator > 0, Double(numerator) / Double(denominator) > 0.01, Double(numerator) / Double(denominator) < 100 {
            let g = Self.gcd(numerator, denominator)
            self.numerator = numerator / g
            self.denominator = denominator / g
        } else {
            self.numerator = 1
            self.denominator = 1
        }
    }

    public static let square = PixelAspect(numerator: 1, denominator: 1)

    public var ratio: Double { Double(numerator) / Double(denominator) }
    public var isSquare: Bool { numerator == denominator }

    /// The width in square pixels of `storedWidth` stored pixels.
    public func squareWidth(ofStoredWidth storedWidth: Int) -> Int {
        isSquare ? storedWidth : max(1, Int((Double(storedWidth) * ratio).rounded()))
    }

    /// The stored column of a column in square pixels.
    public func storedX(ofSquareX x: Int) -> Int {
        isSquare ? x : Int((Double(x) / ratio).rounded())
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
