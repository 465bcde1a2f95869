/// Whose layout rules size and place a layer.
public enum LayoutConvention: Sendable, Equatable {
    /// videowm's own: text sized by its cap height (`sizeFraction`), shrunk to
    /// `maxWidthFraction`, and placed by its box from the top of the capitals to the
    /// baseline; a box larger than the room between the insets is centred on that axis.
    case standard
    /// The TPStreams player SDK's, as its `WatermarkOverlayView` lays out a `UILabel`
    /// (testpress iOSPlayerSDK, Source/Views/UIKit/WatermarkOverlayView.swift):
    /// - text is sized by its em (`sizeFraction` is the point size over the 360-point
    ///   reference short side, `UIFont.systemFont(ofSize: textSize)`), at most the frame
    ///   width less both insets wide (`sizeThatFits(width: W − 2·inset)`; the SDK wraps
    ///   where we shrink), and placed by its line box, from the first line's ascender to the
    ///   last line's descender, as UIKit sizes a label;
    /// - `left = inset + max(W − w − 2·inset, 0)·x/100`, `top = inset + (H − h − 2·inset)·y/100`
    ///   (a box too wide sits at the left inset, one too tall is not clamped).
    case tpStreams
}
