import Foundation

/// A segment's encodes for several rows, side by side (`SideBySide`): each row's encoder used by
/// one thread at a time and given its pictures in order, so the bytes are those of the encodes made
/// one after another. A libx264 encode capped by a decoder buffer runs on one thread
/// (`X264Determinism`), so a group of rows encoded one after another used one core of two.
enum SideBySideEncodes {
    /// A row's picture, marked (`SegmentEncoder.mark`) and waiting for its encode.
    struct Picture {
        let row: Int
        let encoder: SegmentEncoder
        let frame: Frame
    }

    /// Encodes each picture with its row's encoder; returns the rows whose encode failed.
    static func encode(_ pictures: [Picture], exclusive: Bool) -> [(row: Int, error: Error)] {
        SideBySide.run(pictures) { try $0.encoder.encode($0.frame, exclusive: exclusive) }.map { (pictures[$0.index].row, $0.error) }
    }

    /// Drains each row's encoder (`SegmentEncoder.finish`, which keeps the packets): with a
    /// lookahead, most of a short segment's pictures are encoded here. Returns the rows that failed.
    static func finish(_ encoders: [Int: SegmentEncoder]) -> [(row: Int, error: Error)] {
        let rows = encoders.sorted { $0.key < $1.key }
        return SideBySide.run(rows) { _ = try $0.value.finish() }.map { (rows[$0.index].key, $0.error) }
    }
}
