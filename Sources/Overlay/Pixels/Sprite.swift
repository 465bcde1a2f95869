/// A prepared mark: premultiplied pixels plus the rectangle that placement aligns.
///
/// The layout box is where the mark "is" for positioning: for text it runs from the top of
/// the capitals of the first line to the baseline of the last, so margins look equal on
/// every side; outline, shadow and descenders may lie outside it. Coordinates are in the
/// image's pixels and may be negative or exceed the image.
public struct Sprite: Equatable, Sendable {
    public var image: PremultipliedRGBAImage
    public var layoutBox: PixelRect

    public init(image: PremultipliedRGBAImage, layoutBox: PixelRect) {
        self.image = image
        self.layoutBox = layoutBox
    }
}
