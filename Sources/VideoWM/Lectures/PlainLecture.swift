import Animation
import Overlay
import Foundation

/// A lecture of the input's own rendition (`Lecture.Kind.plain`): one media playlist per student.
///
/// - **The lecture** is indexed once (`PresentationSource`: one demux pass, the segment plans),
///   with its config loaded and its images decoded once.
/// - **A student** is a `PresentationRow` bound to their variables, its rendering decided as the
///   lecture's audience wants it (a class shares segments wherever the input allows; one student's
///   copy made alone renders in full where marks cover most of it): which segments are theirs is
///   known before anything is rendered, so the playlist can be written first.
/// - **A segment** is `row.render(segment:)`: the input's packets where no mark of theirs shows
///   (the same bytes for every student: one shared file), their GOPs decoded, marked and encoded
///   where one does — byte for byte the segment a whole presentation has at that place.
///
/// One student's copy of a lecture with a variant layer made alone (`Audience.oneStudent`) is a
/// plain lecture too: cut every period, every segment encoded, the layer drawing their codeword's
/// variant period by period (`VariantCopy`) — one full render instead of the class's q.
///
/// Resources: rendition `source`, `init.mp4` and `K.m4s`.
final class PlainLecture: PreparedLecture, @unchecked Sendable {
    static let rendition = "source"
    let definition: LectureDefinition
    let source: PresentationSource
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
        precondition(!drawsVariants || definition.audience == .oneStudent, "a class's variant lecture is a VariantLayerLecture")
        source = try PresentationSource(input: definition.video, settings: definition.settings,
                                        segment: segment, damagePolicy: definition.damagePolicy, warn: notices.say)
    }

    func resource(rendition: String, file: String) -> Resource? {
        guard rendition == Self.rendition, let file = Resource.plainFile(named: file) else { return nil }
        switch file {
        case .initialization, .segment: return Resource(rendition: rendition, file: file)
        case .captions, .variant: return nil
        }
    }

    func student(variables: [String: String]) throws -> any StudentCopy { try copy(variables: variables) }

    /// The student's copy, as its concrete type (the writers of whole presentations use its rows).
    func copy(variables: [String: String]) throws -> PlainCopy {
        try PlainCopy(lecture: self, variables: variables)
    }

    /// A row of the student with `variables` (the lecture's `{date}` and `{time}` where they give
    /// none); `rendering` as decided before, else decided here.
    func makeRow(variables: [String: String], rendering: PresentationRendering? = nil) throws -> PresentationRow {
        let compositor = try Compositor.forJob(config: config, variables: values(variables), images: images, warn: notices.say)
        if drawsVariants {
            // The layer shows on every frame: every segment is encoded, one a period.
            let plan = source.plan(.encoded)
            compositor.variantSchedule = try VariantCopy.schedule(config: config, input: definition.video, periodStarts: plan.plannedSegments.map(\.start),
                                                                  own: source.ownSegments(plan, by: compositor), variables: variables)
            return try PresentationRow(source: source, compositor: compositor, rendering: .encoded, warn: notices.say)
        }
        return try PresentationRow(source: source, compositor: compositor, rendering: rendering, mode: definition.render,
                                   forBatch: definition.audience == .classOfStudents, warn: notices.say)
    }
}

/// One student's copy of a plain lecture: their segments (known at once), and rows to render
/// them with. A row renders on one thread at a time, and a student may have two renders running
/// (a request and a render ahead), so rows are lent out, made as needed and kept while idle.
final class PlainCopy: StudentCopy, @unchecked Sendable {
    let lecture: PlainLecture
    let variables: [String: String]
    let segments: [RowSegment]
    let rendering: PresentationRendering
    let outcome: RenderOutcome
    private let rows: RowLending<PresentationRow>

    init(lecture: PlainLecture, variables: [String: String]) throws {
        self.lecture = lecture
        self.variables = variables
        let row = try lecture.makeRow(variables: variables)
        segments = row.segments
        rendering = row.rendering
        outcome = row.outcome
        // Every later row takes the first one's rendering: the copy's segments do not change.
        rows = RowLending(first: row) { [rendering] in try lecture.makeRow(variables: variables, rendering: rendering) }
    }

    private var rendition: String { PlainLecture.rendition }
    var renditions: [String] { [rendition] }

    /// The initialization segment is every student's where the rendering copies the input's
    /// video (its sample description the same for all); a full render's is the student's own.
    private var initializationOwnership: ResourceOwnership { rendering == .encoded ? .student : .shared }

    /// A row of this copy, lent for `body` (a row is used by one thread at a time).
    func withRow<T>(_ body: (PresentationRow) throws -> T) throws -> T { try rows.with(body) }

    func playbackPlaylist(mediaPlaylistURI: (String) -> String, resourceURI: (Resource, ResourceOwnership) -> String) -> PlaybackPlaylist {
        PlaybackPlaylist(text: playlist(uri: resourceURI), mediaPlaylistOf: rendition)
    }

    func mediaPlaylist(rendition: String, uri: (Resource, ResourceOwnership) -> String) -> String? {
        rendition == self.rendition ? playlist(uri: uri) : nil
    }

    private func playlist(uri: (Resource, ResourceOwnership) -> String) -> String {
        let initialization = uri(Resource(rendition: rendition, file: .initialization), initializationOwnership)
        // `playlist` reads only what the row decided when it was made; no render touches it.
        let text = try? withRow { row in
            row.playlist(initializationURI: initialization) { segment in
                uri(Resource(rendition: rendition, file: .segment(segment.index)), segment.isShared ? .shared : .student)
            }
        }
        guard let text else { preconditionFailure("a student's first row is kept idle until lent") }
        return text
    }

    func ownership(of resource: Resource) -> ResourceOwnership? {
        guard resource.rendition == rendition else { return nil }
        switch resource.file {
        case .initialization: return initializationOwnership
        case .segment(let k) where segments.indices.contains(k): return segments[k].isShared ? .shared : .student
        default: return nil
        }
    }

    func nextResourceAhead(in rendition: String, after resource: Resource?) -> (resource: Resource, ownership: ResourceOwnership)? {
        guard rendition == self.rendition else { return nil }
        let start = resource?.segment.map { $0 + 1 } ?? 0
        guard let next = segments.dropFirst(start).first(where: { !$0.isShared }) else { return nil }
        return (Resource(rendition: rendition, file: .segment(next.index)), .student)
    }

    func render(_ resource: Resource) throws -> RenderedResource {
        switch resource.file {
        case .initialization: return RenderedResource(bytes: try withRow { try $0.initializationSegment().bytes })
        case .segment(let k) where ownership(of: resource) != nil:
            let made = try withRow { try $0.render(segment: k) }
            return RenderedResource(bytes: made.bytes, decodedPictures: made.decodedPictures, encodedPictures: made.encodedPictures,
                                    videoSamples: made.videoSamples)
        default: preconditionFailure("render of \(resource), which the copy does not list")
        }
    }
}
