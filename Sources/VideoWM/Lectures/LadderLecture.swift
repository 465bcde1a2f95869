import Animation
import Overlay
import Foundation

/// A lecture with renditions (`Lecture.Kind.ladder`: a ladder, captions, audio groups) through
/// `LectureLadder` (docs/design/hls.md §15).
///
/// - **The lecture** is one `LectureLadder`: the input indexed once, the ladder resolved, the
///   captions read; its shared files (each rendition's initialization segment and unmarked
///   segments, audio, WebVTT) are the same bytes for every student.
/// - **A student** is a `LadderRow` bound to their variables: which segments of each video
///   rendition are theirs is known before anything is rendered.
/// - **A file** is `LadderRow.render(rendition:segment:)` (their own) or the lecture's
///   `sharedSegment`/`initializationSegment` (everyone's).
///
/// One student's copy of a lecture with a variant layer made alone (`Audience.oneStudent`) is a
/// ladder too: every rendition encoded and cut every period, the layer drawing the student's
/// codeword's variant period by period in each (`VariantCopy`) — one encode per rendition instead
/// of the class's q.
///
/// Resources: `RENDITION/init.mp4`, `RENDITION/K.m4s` (video and audio renditions),
/// `RENDITION/K.vtt` (captions), with the ladder's rendition ids (`720p`, `audio-en`, `subs-en`).
final class LadderLecture: PreparedLecture, @unchecked Sendable {
    let definition: LectureDefinition
    let ladder: LectureLadder
    let config: WatermarkConfig
    let images = ImageCache()
    let notices: OnceNotices
    /// Whether the config's variant layer is drawn per student (a copy made alone).
    let drawsVariants: Bool

    init(definition: LectureDefinition, config: WatermarkConfig, segment: PresentationTime, notices: OnceNotices) throws {
        self.definition = definition
        self.config = config
        self.notices = notices
        drawsVariants = config.variantLayer != nil
        precondition(!drawsVariants || definition.audience == .oneStudent, "a class's variant ladder is a VariantLadderLecture")
        var made = definition
        if drawsVariants {
            // The layer shows on every frame: every rendition encoded, cut every period.
            made.render = .full
        }
        ladder = try Self.makeLadder(of: made, segment: segment, warn: notices.say)
        // CODECS in every multivariant playlist reads the initialization segments: made here,
        // once, so no playlist waits for one.
        for rendition in ladder.renditions where rendition.kind != .subtitles {
            _ = try ladder.initializationSegment(of: rendition.id)
        }
    }

    /// The lecture's ladder (captions alone make a ladder of the input's size); `variantLayer` as
    /// `LectureLadder` takes it.
    static func makeLadder(of definition: LectureDefinition, segment: PresentationTime, variantLayer: VariantLayerSource? = nil,
                           warn: @escaping WarningHandler) throws -> LectureLadder {
        try LectureLadder(input: definition.video, ladder: definition.ladder ?? .input, subtitles: definition.captions,
                          settings: definition.settings, segment: segment, damagePolicy: definition.damagePolicy,
                          render: definition.render, subject: definition.origin == .options ? "--ladder" : "lecture.json ladder", variantLayer: variantLayer, warn: warn)
    }

    func resource(rendition id: String, file: String) -> Resource? {
        Self.resource(in: ladder, rendition: id, file: file)
    }

    /// The resource a file of a ladder's rendition names: an initialization segment or media
    /// segment of a video or audio rendition, a WebVTT segment of a caption rendition.
    static func resource(in ladder: LectureLadder, rendition id: String, file: String) -> Resource? {
        guard let rendition = ladder.rendition(id), let parsed = Resource.plainFile(named: file) else { return nil }
        let count = ladder.segments.count
        switch (rendition.kind, parsed) {
        case (.video, .initialization), (.audio, .initialization): return Resource(rendition: id, file: parsed)
        case (.video, .segment(let k)), (.audio, .segment(let k)), (.subtitles, .captions(let k)):
            return (0..<count).contains(k) ? Resource(rendition: id, file: parsed) : nil
        default: return nil
        }
    }

    /// Every rendition's initialization segment, then segment by segment each rendition's unmarked
    /// copy and caption file — but the input-sized rendition's, which is the input's own packets.
    /// A segment in which every student's mark shows is made too (unused, and evicted first when a
    /// server's cache fills): which segments a student owns is known only with their variables.
    func sharedWork() -> [SharedWork] {
        let initializations = ladder.renditions.filter { $0.kind != .subtitles }
            .map { SharedWork.file(Resource(rendition: $0.id, file: .initialization)) }
        let segments = ladder.segments.indices.flatMap { k in
            ladder.renditions.filter { !$0.copiesInput }.map { rendition in
                SharedWork.file(Resource(rendition: rendition.id, file: rendition.kind == .subtitles ? .captions(k) : .segment(k)))
            }
        }
        return initializations + segments
    }

    func renderShared(_ resource: Resource) throws -> [UInt8] {
        switch resource.file {
        case .initialization: try ladder.initializationSegment(of: resource.rendition)
        case .segment(let k), .captions(let k): try ladder.sharedSegment(of: resource.rendition, index: k)
        case .variant: preconditionFailure("a ladder without a variant layer has no \(resource)")
        }
    }

    func student(variables: [String: String]) throws -> any StudentCopy { try copy(variables: variables) }

    func copy(variables: [String: String]) throws -> LadderCopy {
        try LadderCopy(lecture: ladder, rows: { try self.makeRow(variables: variables) })
    }

    func makeRow(variables: [String: String]) throws -> LadderRow {
        let compositor = try Compositor.forJob(config: config, variables: definition.jobValues.merging(variables) { _, given in given },
                                               images: images, warn: notices.say)
        if drawsVariants {
            compositor.variantSchedule = try VariantCopy.schedule(config: config, input: definition.video, periodStarts: ladder.segments.map(\.start),
                                                                  own: ladder.ownSegments(markedBy: compositor), variables: variables)
        }
        return try ladder.student(compositor: compositor, warn: notices.say)
    }
}

/// One student's copy of a lecture with renditions (with a variant layer or without): their
/// segments of every rendition (known at once), and rows to render their own with, lent one
/// thread at a time (a request and a render ahead may run together).
final class LadderCopy: StudentCopy, @unchecked Sendable {
    let lecture: LectureLadder
    /// Per rendition id, its segments with whose each is and (a variant ladder's video) which variant.
    let segments: [String: [LadderSegment]]
    let outcome: RenderOutcome
    private let rows: RowLending<LadderRow>
    /// A variant ladder's lecture (its shared video segments are variant renders, made in groups);
    /// nil without a variant layer.
    private let variants: VariantLadderLecture?

    init(lecture: LectureLadder, rows makeRow: @escaping () throws -> LadderRow, variants: VariantLadderLecture? = nil) throws {
        self.lecture = lecture
        let row = try makeRow()
        var segments: [String: [LadderSegment]] = [:]
        for rendition in lecture.renditions { segments[rendition.id] = row.segments(of: rendition.id) }
        self.segments = segments
        outcome = row.outcome
        rows = RowLending(first: row, make: makeRow)
        self.variants = variants
    }

    /// A row of this copy, lent for `body`.
    func withRow<T>(_ body: (LadderRow) throws -> T) throws -> T { try rows.with(body) }

    var renditions: [String] { lecture.renditions.map(\.id) }

    /// The resource segment `segment` of `rendition` is in this copy, and whose it is.
    func listed(_ segment: LadderSegment, of rendition: LadderRendition) -> (Resource, ResourceOwnership) {
        let k = segment.index
        switch rendition.kind {
        case .video where segment.isShared && variants != nil:
            return (Resource(rendition: rendition.id, file: .variant(segment: k, variant: segment.variant)), .shared)
        case .video where segment.isShared: return (Resource(rendition: rendition.id, file: .segment(k)), .shared)
        case .video: return (Resource(rendition: rendition.id, file: .segment(k)), .student)
        case .audio: return (Resource(rendition: rendition.id, file: .segment(k)), .shared)
        case .subtitles: return (Resource(rendition: rendition.id, file: .captions(k)), .shared)
        }
    }

    func playbackPlaylist(mediaPlaylistURI: (String) -> String, resourceURI: (Resource, ResourceOwnership) -> String) throws -> PlaybackPlaylist {
        // BANDWIDTH declared (LadderRow.declaredBitRates): known before the student's own segments exist.
        PlaybackPlaylist(text: try withRow { row in try row.multivariantPlaylist(uri: { mediaPlaylistURI($0.id) }) }, mediaPlaylistOf: nil)
    }

    func mediaPlaylist(rendition id: String, uri: (Resource, ResourceOwnership) -> String) -> String? {
        guard let rendition = lecture.rendition(id) else { return nil }
        let initialization = rendition.kind == .subtitles ? nil : uri(Resource(rendition: id, file: .initialization), .shared)
        return try? withRow { row in
            row.mediaPlaylist(rendition: id, initializationURI: initialization) { segment in
                let (resource, ownership) = listed(segment, of: rendition)
                return uri(resource, ownership)
            }
        }
    }

    func ownership(of resource: Resource) -> ResourceOwnership? {
        guard let rendition = lecture.rendition(resource.rendition) else { return nil }
        if resource.file == .initialization { return rendition.kind == .subtitles ? nil : .shared }
        guard let k = resource.segment, let list = segments[rendition.id], list.indices.contains(k) else { return nil }
        let (listedResource, ownership) = listed(list[k], of: rendition)
        return listedResource == resource ? ownership : nil
    }

    func nextResourceAhead(in id: String, after resource: Resource?) -> (resource: Resource, ownership: ResourceOwnership)? {
        guard let rendition = lecture.rendition(id), rendition.kind == .video, let list = segments[id] else { return nil }
        let start = resource?.segment.map { $0 + 1 } ?? 0
        // With a variant layer every video segment costs encodes on its first request (a variant
        // group or an own segment): the next one, whichever. Without, only the student's own do.
        let next = variants == nil ? list.dropFirst(start).first(where: { !$0.isShared })
                                          : list.indices.contains(start) ? list[start] : nil
        return next.map { listed($0, of: rendition) }
    }

    func renderGroup(containing resource: Resource) -> RenderGroup? {
        guard let variants, case .variant(let k, _) = resource.file else { return nil }
        return variants.group(ofSegment: k, rendition: resource.rendition)
    }

    func render(_ group: RenderGroup) throws -> [[UInt8]] {
        guard let variants else { preconditionFailure("render of \(group.name), which the copy does not group") }
        return try variants.renderShared(group)
    }

    func render(_ resource: Resource) throws -> RenderedResource {
        guard let ownership = ownership(of: resource) else { preconditionFailure("render of \(resource), which the copy does not list") }
        if let group = renderGroup(containing: resource), let position = group.members.firstIndex(of: resource) {
            return RenderedResource(bytes: try render(group)[position])
        }
        switch (resource.file, ownership) {
        case (.initialization, _): return RenderedResource(bytes: try lecture.initializationSegment(of: resource.rendition))
        case (.segment(let k), .student):
            return RenderedResource(bytes: try withRow { try $0.render(rendition: resource.rendition, segment: k) })
        case (.segment(let k), .shared), (.captions(let k), _):
            return RenderedResource(bytes: try lecture.sharedSegment(of: resource.rendition, index: k))
        case (.variant, _): preconditionFailure("\(resource) without its render group")
        }
    }
}
