import Animation
import Foundation
import VideoWM

/// VideoWM's segment API behind the server's protocol: what `batch` does for a CSV row, done
/// for a token's variables, one segment at a time.
///
/// - **A lecture, indexed once** (`PresentationSource`: one demux pass, the segment plans) and
///   kept while its revision lasts, with its config loaded and its images decoded once.
/// - **A student** is a `PresentationRow` bound to the token's variables — as a batch row is
///   (same rendering decision, same encoder set-up), so each of their segments is byte for byte
///   the one `batch` writes for that row. Which segments are theirs is known before anything is
///   rendered: the playlist is written first.
/// - **A segment** is `row.render(segment:)`: the input's packets where no mark of theirs shows
///   (the same bytes for every student: one shared file), their GOPs decoded, marked and
///   encoded where one does.
///
/// Resource names: `source/init.mp4`, `source/K.m4s` (K from 0) — one rendition, the input's
/// picture. A lecture with a ladder or captions goes through E's `LectureLadder` instead
/// (`LadderLecture`, LadderPresentations.swift), one with a variant layer through
/// `VariantLecture` (`VariantLectureServing`, VariantPresentations.swift).
public struct PresentationIndexer: LectureIndexer {
    /// The marks' key (keyed mark paths, issue 27), or nil.
    let markKey: SecretKey?
    let warn: WarningHandler

    /// - Parameter warn: notices about a lecture (streams left out, a font fallback), each said once per lecture revision.
    public init(markKey: SecretKey? = nil, warn: @escaping WarningHandler) {
        self.markKey = markKey
        self.warn = warn
    }

    public func index(_ lecture: LectureDefinition) throws -> any IndexedLecture {
        let notices = OnceNotices(lecture: lecture.name, warn: warn)
        let config = try MarkKeying.keyed(WatermarkConfig.load(path: lecture.config, warn: notices.say), with: markKey)
        // As batch's --preset/--crf: the same settings give the same bytes as batch for a row.
        let settings = EncodeSettings(crf: lecture.crf, preset: lecture.preset)
        let hasRenditions = lecture.ladder != nil || !lecture.subtitles.isEmpty
        // A variant layer (issue 29): each student's segments picked by their codeword (VariantPresentations.swift,
        // with renditions VariantLadderPresentations.swift).
        if config.variantLayer != nil {
            if hasRenditions { return try VariantLadderServing(definition: lecture, config: config, settings: settings, notices: notices) }
            return try VariantLectureServing(definition: lecture, config: config, settings: settings, notices: notices)
        }
        let segment = lecture.segmentSeconds.map { PresentationTime(milliseconds: Int64(($0 * 1000).rounded())) } ?? HLSSettings.defaultSegmentDuration
        if hasRenditions {
            let ladder = try LadderLecture.makeLadder(of: lecture, settings: settings, segment: segment, warn: notices.say)
            return try LadderLecture(definition: lecture, ladder: ladder, config: config, notices: notices)
        }
        let source = try PresentationSource(input: lecture.video, settings: settings, segment: segment, warn: notices.say)
        return PresentationLecture(definition: lecture, source: source, config: config, notices: notices)
    }
}

/// A lecture.json the segment API cannot serve yet.
struct PresentationUnavailable: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// Keyed mark paths (issue 27): the config bound to the marks' key as the marking commands
/// bind theirs (`--key-file`), so a student's random mark path is the one batch draws for
/// their row with the same key.
enum MarkKeying {
    static func keyed(_ config: WatermarkConfig, with key: SecretKey?) throws -> WatermarkConfig {
        guard let key else { return config }
        return config.keyed(with: try KeyedDerivation(key: key))
    }
}

/// Says each distinct notice about one lecture once (a row's font fallback would otherwise be
/// said for every student).
final class OnceNotices: @unchecked Sendable {
    private let lecture: String
    private let warn: WarningHandler
    private let lock = NSLock()
    private var said: Set<String> = []

    init(lecture: String, warn: @escaping WarningHandler) {
        self.lecture = lecture
        self.warn = warn
    }

    var say: WarningHandler {
        { [self] text in
            guard lock.withLock({ said.count < 256 && said.insert(text).inserted }) else { return }
            warn("lecture \(lecture): \(text)")
        }
    }
}

/// One lecture revision, indexed: everything students share.
final class PresentationLecture: IndexedLecture, @unchecked Sendable {
    static let rendition = "source"
    let definition: LectureDefinition
    let source: PresentationSource
    let config: WatermarkConfig
    let images = ImageCache()
    let notices: OnceNotices

    init(definition: LectureDefinition, source: PresentationSource, config: WatermarkConfig, notices: OnceNotices) {
        self.definition = definition
        self.source = source
        self.config = config
        self.notices = notices
    }

    func presentation(for variables: [String: String]) throws -> any StudentPresentation {
        // `{date}` and `{time}` fixed per lecture unless the token gives them (a batch row's are the job's start).
        let values = definition.jobValues.merging(variables) { _, given in given }
        return try StudentRows(lecture: self, variables: values)
    }

    func makeRow(variables: [String: String]) throws -> PresentationRow {
        try PresentationRow(source: source, config: config, variables: variables, images: images, warn: notices.say)
    }
}

/// One student's presentation of one lecture: their segments (known at once), and rows to
/// render them with. A row renders on one thread at a time, and a student may have two
/// renders running (a request and a render ahead), so rows are lent out, made as needed and
/// kept while idle (at most two).
final class StudentRows: StudentPresentation, @unchecked Sendable {
    let lecture: PresentationLecture
    let variables: [String: String]
    let segments: [RowSegment]
    let rendering: PresentationRendering
    private let rows: RowLending<PresentationRow>

    init(lecture: PresentationLecture, variables: [String: String]) throws {
        self.lecture = lecture
        self.variables = variables
        let row = try lecture.makeRow(variables: variables)
        segments = row.segments
        rendering = row.rendering
        rows = RowLending(first: row) { try lecture.makeRow(variables: variables) }
    }

    private var rendition: String { PresentationLecture.rendition }

    /// The initialization segment is every student's where the rendering copies the input's
    /// video (its sample description the same for all); a full render's is the row's own.
    private var initializationOwnership: ResourceOwnership { rendering == .encoded ? .student : .shared }

    private func withRow<T>(_ body: (PresentationRow) throws -> T) throws -> T { try rows.with(body) }

    func masterPlaylist(mediaPlaylistURI: (String) -> String, resourceURI: (ResourceName, ResourceOwnership) -> String) -> MasterPlaylist {
        MasterPlaylist(text: playlist(uri: resourceURI), mediaPlaylistOf: rendition)
    }

    func mediaPlaylist(rendition: String, uri: (ResourceName, ResourceOwnership) -> String) -> String? {
        rendition == self.rendition ? playlist(uri: uri) : nil
    }

    private func playlist(uri: (ResourceName, ResourceOwnership) -> String) -> String {
        let initialization = uri(ResourceName(rendition: rendition, file: "init.mp4"), initializationOwnership)
        // `playlist` reads only what the row decided when it was made; no render touches it.
        let text = try? withRow { row in
            row.playlist(initializationURI: initialization) { segment in
                uri(ResourceName(rendition: rendition, file: "\(segment.index).m4s"), segment.isShared ? .shared : .student)
            }
        }
        guard let text else { preconditionFailure("a student's first row is kept idle until lent") }
        return text
    }

    /// The segment a file name names ("12.m4s": decimal, no leading zero), or nil.
    private func segmentIndex(_ file: String) -> Int? {
        guard file.hasSuffix(".m4s") else { return nil }
        let digits = file.dropLast(4)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits == "0" || !digits.hasPrefix("0"),
              digits.count <= 9, let index = Int(digits), segments.indices.contains(index) else { return nil }
        return index
    }

    func ownership(of resource: ResourceName) -> ResourceOwnership? {
        guard resource.rendition == rendition else { return nil }
        if resource.file == "init.mp4" { return initializationOwnership }
        return segmentIndex(resource.file).map { segments[$0].isShared ? .shared : .student }
    }

    func nextOwnResource(in rendition: String, after file: String?) -> ResourceName? {
        guard rendition == self.rendition else { return nil }
        let start = file.flatMap(segmentIndex).map { $0 + 1 } ?? 0
        guard let next = segments.dropFirst(start).first(where: { !$0.isShared }) else { return nil }
        return ResourceName(rendition: rendition, file: "\(next.index).m4s")
    }

    func render(_ resource: ResourceName) throws -> [UInt8] {
        guard resource.rendition == rendition else { preconditionFailure("render of \(resource), which the presentation does not list") }
        if resource.file == "init.mp4" {
            return try withRow { try $0.initializationSegment().bytes }
        }
        guard let index = segmentIndex(resource.file) else { preconditionFailure("render of \(resource), which the presentation does not list") }
        return try withRow { try $0.render(segment: index).bytes }
    }
}
