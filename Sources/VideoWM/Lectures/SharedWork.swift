import VideoWM

// What each kind of lecture shares with every student and can make before anyone asks
// (`serve --warm`, `LectureWarmer`): the files a first request would otherwise wait for.

extension LadderLecture {
    /// Every rendition's initialization segment, then segment by segment each rendition's
    /// unmarked copy and caption file — but the input-sized rendition's, which is the input's
    /// own packets. A segment in which every student's mark shows is made too (unused, and
    /// evicted first when the cache fills): which segments a student owns is known only with
    /// their variables.
    func sharedWork() -> [SharedWork] {
        let initializations = ladder.renditions.filter { $0.kind != .subtitles }
            .map { SharedWork.file(ResourceName(rendition: $0.id, file: "init.mp4")) }
        let encoded = ladder.renditions.filter { !$0.copiesInput }
        let segments = ladder.segments.indices.flatMap { k in
            encoded.map { SharedWork.file(ResourceName(rendition: $0.id, file: "\(k).\(Self.fileExtension(of: $0.kind))")) }
        }
        return initializations + segments
    }

    func renderShared(_ resource: ResourceName) throws -> [UInt8] {
        if resource.file == "init.mp4" { return try ladder.initializationSegment(of: resource.rendition) }
        guard let index = Int(resource.file.prefix { $0 != "." }) else { preconditionFailure("render of \(resource), which names no segment") }
        return try ladder.sharedSegment(of: resource.rendition, index: index)
    }
}

extension VariantLadderServing {
    /// Every video and audio rendition's initialization segment (made at indexing already), then
    /// segment by segment each video rendition's variant group and each audio and caption file.
    func sharedWork() -> [SharedWork] {
        let initializations = ladder.renditions.filter { $0.kind != .subtitles }
            .map { SharedWork.file(ResourceName(rendition: $0.id, file: "init.mp4")) }
        let segments = ladder.segments.indices.flatMap { k in
            ladder.renditions.map { rendition -> SharedWork in
                rendition.kind == .video ? .group(group(ofSegment: k, rendition: rendition.id))
                    : .file(ResourceName(rendition: rendition.id, file: "\(k).\(LadderLecture.fileExtension(of: rendition.kind))"))
            }
        }
        return initializations + segments
    }

    func renderShared(_ resource: ResourceName) throws -> [UInt8] {
        if resource.file == "init.mp4" { return try ladder.initializationSegment(of: resource.rendition) }
        guard let index = Int(resource.file.prefix { $0 != "." }) else { preconditionFailure("render of \(resource), which names no segment") }
        return try ladder.sharedSegment(of: resource.rendition, index: index)
    }

    func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        guard let first = group.members.first, let k = variant(named: first.file)?.segment, self.group(ofSegment: k, rendition: group.rendition) == group else {
            preconditionFailure("render of \(group.name), which the lecture does not group")
        }
        return try ladder.sharedVariants(of: group.rendition, segment: k)
    }
}

extension VariantLectureServing {
    /// Every segment's variant group (its q variants, and with segment 0 the initialization segment).
    func sharedWork() -> [SharedWork] {
        (0..<lecture.periodCount).map { .group(group(ofSegment: $0)) }
    }

    func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        guard let first = group.members.first, let k = groupSegment(of: first.file), self.group(ofSegment: k) == group else {
            preconditionFailure("render of \(group.name), which the lecture does not group")
        }
        return try sharedFiles(ofSegment: k)
    }
}
