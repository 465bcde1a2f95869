import Foundation
import Overlay

/// A lecture with a variant layer (issue 29, docs/design/variant-marks.md §6) as a ladder: each segment's
/// shared files of a video rendition are its q variants — the variant layer alone, variant k all
/// along, at the rendition's size — padded to one size; a student lists their codeword's.
extension LectureLadder {
    /// How many sets of the variant layer alone are kept idle between renders (a server's workers
    /// take one each; more are made when they are all taken, and dropped afterwards).
    static let idleVariantLayerSets = 4

    /// The variant layer alone, one compositor per variant (variant v at v), sharing one thread's fonts.
    private func makeVariantLayers() throws -> [Compositor] {
        guard let variantLayer, let variantCount else { preconditionFailure("variant layers of a ladder without a variant layer") }
        let layer = try variantLayer.make()
        return (0..<variantCount).map { v in
            guard let alone = layer.variantLayerAlone(showing: v) else { preconditionFailure("the variant layer went") }
            return alone
        }
    }

    /// The rows that make video rendition `id`'s shared segments, for one thread: the lecture's
    /// clean row, or with a variant layer each variant's (variant v at v), drawn by `layers` (one
    /// compositor per variant) or by a set made for them.
    func sharedVideoRows(_ id: String, layers: [Compositor]? = nil) throws -> [PresentationRow] {
        guard variantLayer != nil else { return [try cleanRow(id)] }
        return try (layers ?? makeVariantLayers()).map { try videoRow(id, compositor: $0, reencodes: nil, warn: { _ in }) }
    }

    /// With a variant layer, the segments a student marked by `compositor` re-encodes: those a
    /// mark of theirs other than the variant layer shows in.
    public func ownSegments(markedBy compositor: Compositor) -> [Bool] { source.ownSegments(plan, by: compositor) }

    /// Segment `k` of video rendition `id` in a lecture with a variant layer: its q variants (in
    /// variant order), made by one render — the reader seeks to the segment's GOPs, decodes them
    /// once, converts each picture to the rendition's size once and encodes each variant — and
    /// padded to one size (`sharedFiles`): byte for byte the files a batch writes there
    /// (`LadderWriter`), of which a student's is whichever their codeword says. The variant
    /// layers are lent from render to render, so each variant's tile is drawn once per size.
    public func sharedVariants(of id: String, segment k: Int) throws -> [[UInt8]] {
        precondition(variantCount != nil && rendition(id, of: [.video]).kind == .video, "variants of a variant ladder's video rendition")
        precondition(plan.cuts.indices.contains(k), "segment \(k) of a ladder of \(plan.segmentCount)")
        let layers = try lock.withLock({ idleVariantLayers.popLast() }) ?? makeVariantLayers()
        defer { lock.withLock { if idleVariantLayers.count < Self.idleVariantLayerSets { idleVariantLayers.append(layers) } } }
        let maker = try SegmentMaker(source: source, plan: plan, rows: try sharedVideoRows(id, layers: layers))
        let files = sharedFiles(try maker.render(segment: k, seeking: true).map { try $0.get().segment.bytes })
        remember(size: files[0].count, of: id, segment: k)
        return files
    }

    /// A video rendition's shared files of one segment from its shared rows' renders: the clean
    /// render alone, or the q variants padded to one size (`VariantLecture.padded`: a `free` box
    /// after the `mdat`), so a file's size does not say which variant it is.
    func sharedFiles(_ renders: [[UInt8]]) -> [[UInt8]] {
        variantCount == nil ? renders : VariantLecture.padded(renders)
    }
}
