import Foundation

/// The files every student of a lecture shares, made on request and remembered.
extension LectureLadder {
    // MARK: Shared files

    /// The initialization segment of video or audio rendition `id`: the same for every student.
    public func initializationSegment(of id: String) throws -> [UInt8] {
        if let known = lock.withLock({ initializations[id] }) { return known }
        let made = try sharedRow(id).initializationSegment().bytes
        lock.withLock { initializations[id] = made }
        return made
    }

    /// Records an initialization segment made in a whole pass (the batch's).
    func remember(initialization bytes: [UInt8], of id: String) {
        lock.withLock { if initializations[id] == nil { initializations[id] = bytes } }
    }

    /// Unmarked segment `index` of rendition `id` (video: the input's packets or the clean
    /// encode; audio; WebVTT): the bytes every student's playlist lists there. A variant
    /// ladder's video segments are its variants (`sharedVariants`).
    public func sharedSegment(of id: String, index: Int) throws -> [UInt8] {
        let rendition = rendition(id, of: [.video, .audio, .subtitles])
        precondition(plan.cuts.indices.contains(index), "segment \(index) of a ladder of \(plan.segmentCount)")
        precondition(rendition.kind != .video || variantCount == nil, "a variant ladder's video segment is one of its variants")
        let bytes: [UInt8]
        switch rendition.kind {
        case .subtitles: bytes = try captions(of: id)[index].bytes
        case .video, .audio: bytes = try sharedRow(id).render(segment: index).bytes
        }
        remember(size: bytes.count, of: id, segment: index)
        return bytes
    }

    func remember(size: Int, of id: String, segment k: Int) {
        lock.withLock { measuredSizes[id, default: [:]][k] = size }
    }

    /// Sizes of rendition `id`'s shared segments measured so far, by index.
    func measuredSizes(of id: String) -> [Int: Int] {
        lock.withLock { measuredSizes[id] ?? [:] }
    }

    /// Renders every shared segment of every rendition once (one pass over the input, each
    /// segment decoded once for all encoded renditions; a variant ladder's every variant), so
    /// declared rates use their measured sizes: for a server at indexing.
    public func measureSharedSegments() throws {
        let ids = renditions.filter { $0.kind != .subtitles }.map(\.id)
        try LadderWriter.makeShared(of: self, renditions: ids) { id, k, bytes in self.remember(size: bytes.count, of: id, segment: k) }
        for id in renditions.filter({ $0.kind == .subtitles }).map(\.id) {
            for (k, segment) in try captions(of: id).enumerated() { remember(size: segment.bytes.count, of: id, segment: k) }
        }
    }

    /// Measures the shared segments that cost only a read (the input's packets, audio), when not known yet.
    func measureCopiedSegments() throws {
        let cheap = renditions.filter { ($0.kind == .video && $0.copiesInput) || $0.kind == .audio }.map(\.id)
            .filter { measuredSizes(of: $0).count < plan.segmentCount }
        guard !cheap.isEmpty else { return }
        try LadderWriter.makeShared(of: self, renditions: cheap) { id, k, bytes in self.remember(size: bytes.count, of: id, segment: k) }
    }

    /// The WebVTT segments of subtitle rendition `id`.
    func captions(of id: String) throws -> [WebVTTSegments.Segment] {
        try captionSegments.entry(id, "caption segments of rendition \(id)")
    }
}
