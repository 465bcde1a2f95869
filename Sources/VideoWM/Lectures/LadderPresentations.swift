import Animation
import Foundation
import VideoWM

/// A lecture with a ladder or captions (lecture.json `ladder`, `subtitles`) behind the
/// server's protocol, through E's `LectureLadder` (issue 25): what `batch --ladder` does for
/// a CSV row, done for a token's variables one file at a time.
///
/// - **A lecture** is one `LectureLadder` per revision: the input indexed once, the ladder
///   resolved, the captions read; its shared files (each rendition's initialization segment
///   and unmarked segments, audio, WebVTT) are the same bytes for every student.
/// - **A student** is a `LadderRow` bound to the token's variables as batch binds a row: which
///   segments of each video rendition are theirs is known before anything is rendered.
/// - **A file** is `LadderRow.render(rendition:segment:)` (their own) or the lecture's
///   `sharedSegment`/`initializationSegment` (everyone's): byte for byte batch's.
///
/// Resource names: `RENDITION/init.mp4`, `RENDITION/K.m4s` (video and audio renditions),
/// `RENDITION/K.vtt` (captions), with E's rendition ids (`720p`, `audio-en`, `subs-en`).
final class LadderLecture: IndexedLecture, @unchecked Sendable {
    let definition: LectureDefinition
    let ladder: LectureLadder
    let config: WatermarkConfig
    let images = ImageCache()
    let notices: OnceNotices

    init(definition: LectureDefinition, ladder: LectureLadder, config: WatermarkConfig, notices: OnceNotices) throws {
        self.definition = definition
        self.ladder = ladder
        self.config = config
        self.notices = notices
        // CODECS in every multivariant playlist reads the initialization segments: made here,
        // once, on the indexing worker, so no request's playlist waits for one.
        for rendition in ladder.renditions where rendition.kind != .subtitles {
            _ = try ladder.initializationSegment(of: rendition.id)
        }
    }

    func presentation(for variables: [String: String]) throws -> any StudentPresentation {
        let values = definition.jobValues.merging(variables) { _, given in given }
        return try LadderStudent(lecture: self, variables: values)
    }

    func makeRow(variables: [String: String]) throws -> LadderRow {
        try ladder.student(config: config, variables: variables, images: images, warn: notices.say)
    }

    static func fileExtension(of kind: LadderRendition.Kind) -> String { kind == .subtitles ? "vtt" : "m4s" }

    /// The lecture's ladder as batch --ladder/--subtitles makes it (captions alone make a ladder
    /// of the input's size); `variantLayer` as `LectureLadder` takes it.
    static func makeLadder(of lecture: LectureDefinition, settings: EncodeSettings, segment: PresentationTime,
                       variantLayer: VariantLayerSource? = nil, warn: @escaping WarningHandler) throws -> LectureLadder {
        let request = try lecture.ladder.map { try LadderRequest(parsing: $0) } ?? .input
        let captions = try lecture.subtitles.map { try SidecarCaptions(file: $0.file, language: $0.language, name: $0.name) }
        return try LectureLadder(input: lecture.video, ladder: request, subtitles: captions, settings: settings, segment: segment,
                                 subject: "lecture.json ladder", variantLayer: variantLayer, warn: warn)
    }
}

/// One student's ladder: their segments of every rendition (known at once), and rows to render
/// them with, lent one thread at a time (a request and a render ahead may run together).
final class LadderStudent: StudentPresentation, @unchecked Sendable {
    let lecture: LadderLecture
    let variables: [String: String]
    /// Per rendition id, its segments with whose each is.
    let segments: [String: [LadderSegment]]
    private let rows: RowLending<LadderRow>

    init(lecture: LadderLecture, variables: [String: String]) throws {
        self.lecture = lecture
        self.variables = variables
        let row = try lecture.makeRow(variables: variables)
        var segments: [String: [LadderSegment]] = [:]
        for rendition in lecture.ladder.renditions { segments[rendition.id] = row.segments(of: rendition.id) }
        self.segments = segments
        rows = RowLending(first: row) { try lecture.makeRow(variables: variables) }
    }

    private func withRow<T>(_ body: (LadderRow) throws -> T) throws -> T { try rows.with(body) }

    private func rendition(_ id: String) -> LadderRendition? { lecture.ladder.rendition(id) }

    func masterPlaylist(mediaPlaylistURI: (String) -> String, resourceURI: (ResourceName, ResourceOwnership) -> String) throws -> MasterPlaylist {
        // BANDWIDTH declared (LadderRow.declaredBitRates): known before the student's own segments exist.
        let text = try withRow { row in try row.multivariantPlaylist(uri: { mediaPlaylistURI($0.id) }) }
        return MasterPlaylist(text: text, mediaPlaylistOf: nil)
    }

    func mediaPlaylist(rendition id: String, uri: (ResourceName, ResourceOwnership) -> String) -> String? {
        guard let rendition = rendition(id) else { return nil }
        let initialization = rendition.kind == .subtitles ? nil : uri(ResourceName(rendition: id, file: "init.mp4"), .shared)
        let suffix = LadderLecture.fileExtension(of: rendition.kind)
        return try? withRow { row in
            row.mediaPlaylist(rendition: id, initializationURI: initialization) { segment in
                uri(ResourceName(rendition: id, file: "\(segment.index).\(suffix)"), segment.isShared ? .shared : .student)
            }
        }
    }

    /// The segment a file name names ("12.m4s", "3.vtt": decimal, no leading zero) in rendition `id`, or nil.
    private func segmentIndex(_ file: String, of rendition: LadderRendition) -> Int? {
        let suffix = "." + LadderLecture.fileExtension(of: rendition.kind)
        guard file.hasSuffix(suffix) else { return nil }
        let digits = file.dropLast(suffix.count)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits == "0" || !digits.hasPrefix("0"),
              digits.count <= 9, let index = Int(digits), segments[rendition.id]?.indices.contains(index) == true else { return nil }
        return index
    }

    func ownership(of resource: ResourceName) -> ResourceOwnership? {
        guard let rendition = rendition(resource.rendition) else { return nil }
        if resource.file == "init.mp4" { return rendition.kind == .subtitles ? nil : .shared }
        guard let index = segmentIndex(resource.file, of: rendition), let segment = segments[rendition.id]?[index] else { return nil }
        return segment.isShared ? .shared : .student
    }

    func nextOwnResource(in id: String, after file: String?) -> ResourceName? {
        guard let rendition = rendition(id), rendition.kind == .video, let list = segments[id] else { return nil }
        let start = file.flatMap { segmentIndex($0, of: rendition) }.map { $0 + 1 } ?? 0
        guard let next = list.dropFirst(start).first(where: { !$0.isShared }) else { return nil }
        return ResourceName(rendition: id, file: "\(next.index).m4s")
    }

    func render(_ resource: ResourceName) throws -> [UInt8] {
        guard let rendition = rendition(resource.rendition), let ownership = ownership(of: resource) else {
            preconditionFailure("render of \(resource), which the presentation does not list")
        }
        if resource.file == "init.mp4" { return try lecture.ladder.initializationSegment(of: rendition.id) }
        // `ownership` found the index already; init.mp4 is the one resource without one.
        guard let index = segmentIndex(resource.file, of: rendition) else { preconditionFailure("render of \(resource), which has no segment index") }
        switch ownership {
        case .shared: return try lecture.ladder.sharedSegment(of: rendition.id, index: index)
        case .student: return try withRow { try $0.render(rendition: rendition.id, segment: index) }
        }
    }
}
