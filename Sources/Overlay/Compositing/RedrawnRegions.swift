/// A timed text layer's mark in the rectangles its redraws changed, kept by what decides those
/// pixels: the rectangle and the glyphs painting in or near it (`TextDrawing.glyphs(paintingNear:reach:)`).
///
/// A timecode shows the same few glyphs in the same places over and over (the last digit cycles
/// through ten), so after its first second or so a frame's changed rectangle is one seen before:
/// its pixels, and their YUV conversions, are copied back instead of drawn, composed and
/// converted again. With the drawing's style and the layer's opacity fixed, the key decides the
/// pixels (the rectangle's own, and those a chroma block reaches beyond it), so a copy is exactly
/// what drawing again gives.
final class RedrawnRegions {
    struct Key: Hashable {
        var rectangle: PixelRect
        var glyphs: [TextDrawing.GlyphPlacement]
    }

    private var kept: [Key: PreparedMark.Region] = [:]
    private var byteCount = 0

    /// Beyond this the regions kept are dropped and kept again as they come (a timecode needs a
    /// few hundred kilobytes; a text whose every frame differs would otherwise grow without end).
    static let byteLimit = 4 << 20

    subscript(key: Key) -> PreparedMark.Region? { kept[key] }

    func keep(_ region: PreparedMark.Region, for key: Key) {
        if byteCount + Self.bytes(region, key) > Self.byteLimit {
            kept.removeAll(keepingCapacity: true)
            byteCount = 0
        }
        if let previous = kept.updateValue(region, forKey: key) { byteCount -= Self.bytes(previous, key) }
        byteCount += Self.bytes(region, key)
    }

    /// What one kept region takes, its key and the dictionary's entry counted roughly.
    private static func bytes(_ region: PreparedMark.Region, _ key: Key) -> Int {
        region.byteCount + 32 * key.glyphs.count + 128
    }
}
