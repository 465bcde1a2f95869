import Animation
import Foundation

/// A lecture prepared once from its definition: the input indexed, the kind of lecture decided
/// (the input's rendition, a ladder of renditions with captions, a variant layer over either), its
/// segment plan, renditions and variants, what every student shares and what is each one's own —
/// and every combination that cannot work refused, here, with the same error for the command line,
/// a server and a library user. Like FFmpeg's scheduler for `fftools/ffmpeg`, it is the one place
/// that knows the whole graph; `transcode`, `batch` and `serve` only drive it (write every resource
/// of some copies, write one, serve one on request).
///
/// Immutable once made apart from caches behind locks: share it across threads.
public final class Lecture: PreparedLecture, @unchecked Sendable {
    public let definition: LectureDefinition
    /// The marks, loaded and bound to the marks' key.
    public let config: WatermarkConfig
    /// The segment length the lecture is cut at (`definition.segment`, else a variant layer's
    /// period, else HLS's default).
    public let segment: PresentationTime
    let kind: Kind
    let notices: OnceNotices

    /// The kinds of lecture, each behind the same protocol.
    enum Kind {
        /// The input's own rendition: a media playlist; segments no mark shows in are the input's packets.
        case plain(PlainLecture)
        /// Renditions (a ladder, captions, audio groups) behind a multivariant playlist.
        case ladder(LadderLecture)
        /// A variant layer over the input's rendition (docs/design/variant-marks.md).
        case variants(VariantLayerLecture)
        /// A variant layer over a ladder.
        case variantLadder(VariantLadderLecture)
    }

    /// The kind's own implementation of the protocol.
    private var implementation: any PreparedLecture {
        switch kind {
        case .plain(let lecture): lecture
        case .ladder(let lecture): lecture
        case .variants(let lecture): lecture
        case .variantLadder(let lecture): lecture
        }
    }

    /// Prepares `definition`: loads and keys its marks (a config given as a file), checks what the
    /// combination of input, marks and options allows, and indexes the input.
    /// - Parameters:
    ///   - definition: the lecture: its name, video, marks and options (lecture.json's fields).
    ///   - markKey: the key a config file is bound to (keyed mark paths, variant codes); a config
    ///     given loaded is keyed already.
    ///   - warn: notices about the lecture (streams left out, a font fallback), each said once.
    public static func prepare(_ definition: LectureDefinition, markKey: SecretKey? = nil,
                               warn: @escaping WarningHandler) throws -> Lecture {
        try Lecture(definition, markKey: markKey, notices: OnceNotices(prefix: "", warn: warn))
    }

    init(_ given: LectureDefinition, markKey: SecretKey?, notices: OnceNotices) throws {
        var definition = given
        self.notices = notices
        let config: WatermarkConfig
        switch definition.marks {
        case .file(let path):
            let loaded = try WatermarkConfig.load(path: path, warn: notices.say)
            config = try markKey.map { loaded.keyed(with: try KeyedDerivation(key: $0)) } ?? loaded
        case .loaded(let given):
            config = given
        }
        self.config = config
        if config.variantLayer != nil {
            // Every kind of variant lecture encodes as one: no B-frames (a student's own segments
            // then cost what a plain row's spans cost; docs/design/variant-marks.md §10).
            definition.settings = definition.settings.forVariantLecture
        }
        self.definition = definition
        if config.variantLayer != nil {
            let period = try Self.variantPeriod(of: definition, config: config, notices: notices)
            segment = period
            switch (definition.audience, definition.hasRenditions) {
            case (.classOfStudents, true):
                kind = .variantLadder(try VariantLadderLecture(definition: definition, config: config, period: period, notices: notices))
            case (.classOfStudents, false):
                kind = .variants(try VariantLayerLecture(definition: definition, config: config, period: period, notices: notices))
            // One student's copy made alone draws their variants in one render, not the class's q.
            case (.oneStudent, true): kind = .ladder(try LadderLecture(definition: definition, config: config, segment: period, notices: notices))
            case (.oneStudent, false): kind = .plain(try PlainLecture(definition: definition, config: config, segment: period, notices: notices))
            }
        } else {
            segment = definition.segment ?? HLSSettings.defaultSegmentDuration
            kind = definition.hasRenditions
                ? .ladder(try LadderLecture(definition: definition, config: config, segment: segment, notices: notices))
                : .plain(try PlainLecture(definition: definition, config: config, segment: segment, notices: notices))
        }
    }

    /// What every lecture with a variant layer needs, for every driver alike: the marks' key
    /// (without it anybody could compute, and forge, a student's variants), a segment length equal
    /// to the layer's period (a segment is a period) and no smart rendering (the layer shows on
    /// every frame). Says once when the code names the lecture by the video's file name. Returns
    /// the period.
    static func variantPeriod(of definition: LectureDefinition, config: WatermarkConfig, notices: OnceNotices) throws -> PresentationTime {
        guard let layer = config.variantLayer, let variants = layer.variants else { preconditionFailure("a variant lecture needs a variant layer") }
        guard config.pathKey != nil else { throw VariantCode.keyNeeded(config: config) }
        let period = PresentationTime(seconds: variants.periodSeconds)
        if let segment = definition.segment, abs(segment.seconds - period.seconds) > 1e-6 {
            throw RequestError(subject: nil, problem: "\(definition.subject(option: "--segment", field: "segment")) \(segment.seconds) differs from the variant layer's period (\(config.file): \(layer.path).variants.seconds = \(variants.periodSeconds)): with a variant layer a segment is a period; leave it out or give the same")
        }
        if definition.render == .smart {
            throw RequestError(subject: "--render smart",
                               problem: "smart rendering copies the input's packets, but a variant layer (\(config.file): \(layer.path).variants) is drawn on every frame; leave --render out")
        }
        if variants.lecture == nil && definition.audience == .classOfStudents {
            let file = (definition.video as NSString).lastPathComponent
            notices.say("the variant layer (\(config.file): \(layer.path).variants) names no lecture: its code is derived for the video's file name '\(file)', as batch and trace derive it for a file of that name (set variants.lecture when lectures share a file name)")
        }
        return period
    }

    // MARK: PreparedLecture

    public func resource(rendition: String, file: String) -> Resource? { implementation.resource(rendition: rendition, file: file) }
    public func fileName(of resource: Resource) -> String { implementation.fileName(of: resource) }
    public func student(variables: [String: String]) throws -> any StudentCopy { try implementation.student(variables: variables) }
    public func sharedWork() -> [SharedWork] { implementation.sharedWork() }
    public func renderShared(_ resource: Resource) throws -> [UInt8] { try implementation.renderShared(resource) }
    public func renderShared(_ group: RenderGroup) throws -> [[UInt8]] { try implementation.renderShared(group) }

    /// The resource a name of the command line's `--only-segment` names: `RENDITION/FILE`
    /// ("720p/3.m4s", "subs-en/0.vtt", a variant render's name), or for a lecture of one rendition
    /// its file alone ("3.m4s", "init.mp4") or segment number ("3", "init").
    public func resource(named text: String) -> Resource? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2 { return resource(rendition: parts[0], file: parts[1]) }
        guard parts.count == 1, case .plain = kind else { return nil }
        let file = text == "init" ? "init.mp4" : text.allSatisfy(\.isNumber) && !text.isEmpty ? text + ".m4s" : text
        return resource(rendition: PlainLecture.rendition, file: file)
    }
}

/// `Lecture.prepare` behind the protocol a server takes.
public struct LecturePreparer: LecturePreparing {
    /// The marks' key (keyed mark paths, variant codes), or nil.
    let markKey: SecretKey?
    let warn: WarningHandler

    /// - Parameters:
    ///   - markKey: the key config files are bound to (keyed mark paths, variant codes), or nil.
    ///   - warn: notices about a lecture (streams left out, a font fallback), each said
    ///     once per lecture revision, prefixed "lecture NAME: ".
    public init(markKey: SecretKey? = nil, warn: @escaping WarningHandler) {
        self.markKey = markKey
        self.warn = warn
    }

    public func prepare(_ definition: LectureDefinition) throws -> any PreparedLecture {
        try Lecture(definition, markKey: markKey, notices: OnceNotices(prefix: "lecture \(definition.name): ", warn: warn))
    }
}

/// Says each distinct notice about one lecture once (a row's font fallback would otherwise be
/// said for every student).
final class OnceNotices: @unchecked Sendable {
    private let prefix: String
    private let warn: WarningHandler
    private let lock = NSLock()
    private var said: Set<String> = []

    init(prefix: String, warn: @escaping WarningHandler) {
        self.prefix = prefix
        self.warn = warn
    }

    var say: WarningHandler {
        { [self] text in
            guard lock.withLock({ said.count < 256 && said.insert(text).inserted }) else { return }
            warn(prefix + text)
        }
    }
}

extension Lecture {
    /// The input indexed for the lecture.
    var source: PresentationSource {
        switch kind {
        case .plain(let lecture): lecture.source
        case .ladder(let lecture): lecture.ladder.source
        case .variants(let lecture): lecture.lecture.source
        case .variantLadder(let lecture): lecture.ladder.source
        }
    }

    /// How long the lecture plays.
    public var duration: PresentationTime { source.duration }

    /// Streams of the input no copy carries, with a notice each ("stream 2 (subtitle, hdmv_pgs_subtitle)").
    public var droppedStreams: [String] { source.droppedStreams }

    /// One file of a student's copy, as `--only-segment` names it.
    public enum Part {
        /// A playlist, every file named by its `RENDITION/FILE` name.
        case playlist(String)
        /// A media, initialization or caption segment; with its place among its rendition's
        /// segments (for what `-v` says) when it is one.
        case resource(Resource, segment: (index: Int, of: Int)?)
    }

    /// The file of `copy` that `name` names: `playlist.m3u8` (the playback playlist), `RENDITION.m3u8`
    /// (a media playlist), `RENDITION/FILE`, or for a lecture of one rendition `K` or `init`.
    /// Throws `RequestError` (64) naming what the lecture has when it names nothing of the copy.
    public func part(named name: String, of copy: any StudentCopy) throws -> Part {
        let subject = "--only-segment \(name)"
        let naming = { (resource: Resource, _: ResourceOwnership) in "\(resource.rendition)/\(self.fileName(of: resource))" }
        if name == "playlist.m3u8" {
            return .playlist(try copy.playbackPlaylist(mediaPlaylistURI: { "\($0).m3u8" }, resourceURI: naming).text)
        }
        if name.hasSuffix(".m3u8"), let text = copy.mediaPlaylist(rendition: String(name.dropLast(5)), uri: naming) {
            return .playlist(text)
        }
        guard let resource = resource(named: name) else {
            throw RequestError(subject: subject, problem: "names no file of this presentation (its renditions: \(copy.renditions.joined(separator: ", ")); files are named RENDITION/FILE, such as \(copy.renditions[0])/init.mp4 or \(copy.renditions[0])/0.m4s, and playlists playlist.m3u8 or RENDITION.m3u8)")
        }
        let count = copy.resources().filter { $0.resource.rendition == resource.rendition && $0.resource.segment != nil }.count
        guard copy.ownership(of: resource) != nil else {
            if let k = resource.segment, k >= count {
                throw RequestError(subject: subject, problem: "\(definition.video) makes \(count) segment\(count == 1 ? "" : "s") (0 to \(count - 1)) at --segment \(segment.secondsText(decimals: 3))")
            }
            throw RequestError(subject: subject, problem: "is not a file of this student's copy (their playlist lists another in its place)")
        }
        return .resource(resource, segment: resource.segment.map { ($0, count) })
    }
}
