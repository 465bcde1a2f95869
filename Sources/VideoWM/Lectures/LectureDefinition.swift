import Animation
import Foundation

/// What a lecture is made from: the input, its marks, how it is delivered (a ladder, captions,
/// the segment length, the encode settings) and who it is for. `Lecture.prepare` turns it into a
/// `Lecture` once; every student's copy, and every driver (transcode, batch, serve), starts there.
///
/// A server reads one from `LIBRARY/NAME/lecture.json` (`read(name:folder:salt:)`); the command
/// line builds one from its options.
public struct LectureDefinition: Sendable {
    /// Where the marks come from.
    public enum Marks: Sendable {
        /// A config file, loaded (and bound to the marks' key) when the lecture is prepared.
        case file(String)
        /// A config already loaded (and keyed) by the caller.
        case loaded(WatermarkConfig)
    }

    /// Who the lecture is prepared for: the choice between sharing and quality where they differ.
    public enum Audience: Sendable, Equatable {
        /// A class (batch, serve): segments shared wherever the input allows, each student's
        /// copy made of the class's shared files and their own.
        case classOfStudents
        /// One student's copy made alone (`transcode`): `--render auto` renders in full where
        /// marks cover most of the video, and a variant layer is drawn in one full render rather
        /// than the class's q shared renders.
        case oneStudent
    }

    /// Names the lecture in messages, and (with a variant layer) in its shared renders' keyed names.
    public var name: String
    public var video: String
    public var marks: Marks
    /// Where the definition was written: how messages name its fields.
    public enum Origin: Sendable, Equatable {
        /// Command-line options (`--segment`, `--ladder`).
        case options
        /// A server library's `lecture.json` (its `segment`, `ladder`).
        case lectureFile
    }

    /// Renditions (`--ladder`; `.input` with captions alone); nil: the input's own rendition only.
    public var ladder: LadderRequest?
    public var origin: Origin = .options
    public var captions: [SidecarCaptions]
    /// The segment length asked for; nil: the default (6 s), or a variant layer's period.
    public var segment: PresentationTime?
    public var settings: EncodeSettings
    public var render: RenderMode
    public var damagePolicy: DamagePolicy
    public var audience: Audience
    /// `{date}` and `{time}` for the marks when a student's variables do not give them.
    public var jobValues: [String: String]
    /// Changes whenever anything the lecture's bytes are made from changes (a server's URLs and
    /// cache carry it); "" where nothing is kept between runs.
    public var revision: String
    /// A served lecture's encryption (`lecture.json`'s `encryption`); nil: served in the clear.
    public var encryption: LectureEncryption?

    public init(name: String, video: String, marks: Marks, ladder: LadderRequest? = nil, captions: [SidecarCaptions] = [],
                segment: PresentationTime? = nil, settings: EncodeSettings = EncodeSettings(), render: RenderMode = .auto,
                damagePolicy: DamagePolicy = .warn, audience: Audience = .classOfStudents, jobValues: [String: String] = [:],
                revision: String = "") {
        self.name = name
        self.video = video
        self.marks = marks
        self.ladder = ladder
        self.captions = captions
        self.segment = segment
        self.settings = settings
        self.render = render
        self.damagePolicy = damagePolicy
        self.audience = audience
        self.jobValues = jobValues
        self.revision = revision
    }

    /// How messages name a field of the definition: `--segment` or `lecture.json's segment`.
    func subject(option: String, field: String) -> String {
        origin == .options ? option : "lecture.json's \(field)"
    }

    func from(_ origin: Origin) -> LectureDefinition {
        var copy = self
        copy.origin = origin
        return copy
    }

    /// Whether the lecture has renditions beside the input's own (a ladder, or captions).
    var hasRenditions: Bool { ladder != nil || !captions.isEmpty }

    /// The config file's path, for messages and revisions (nil for a config loaded by the caller
    /// from elsewhere: its own `file`).
    var configPath: String {
        switch marks {
        case .file(let path): path
        case .loaded(let config): config.file
        }
    }
}

/// Why a lecture cannot be served (one log line; its URLs answer 404).
public struct LectureProblem: Error, Sendable, CustomStringConvertible, Equatable {
    public let file: String
    public let problem: String
    public var description: String { "\(file): \(problem)" }
}

/// `LIBRARY/NAME/lecture.json`:
/// `{ "video": "lecture.mp4", "config": "marks.json", "ladder": "auto", "segment": 4,
///    "subtitles": [ { "file": "en.srt", "language": "en", "name": "English" } ],
///    "preset": "veryfast", "crf": 23, "encryption": { "scheme": "aes-128", "keyFile": "lecture.key" } }`.
/// Paths are relative to the lecture's folder; everything but `video` and `config` is optional
/// (defaults as for `batch`; `preset` and `crf` are batch's `--preset` and `--crf` for the marked
/// segments, the speed a server renders at against their size). `{date}` and `{time}` are the
/// video file's modification time, so every process, restart and segment of a student shows the
/// same (a render's own clock would differ from segment to segment).
extension LectureDefinition {
    static let fields: Set<String> = ["video", "config", "ladder", "segment", "subtitles", "preset", "crf", "encryption"]
    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    static let subtitleFields: Set<String> = ["file", "language", "name"]

    /// Reads and checks `folder/lecture.json` and the files it names. `salt` goes into the
    /// revision (the marks' key fingerprint and the program's version: either changes the bytes).
    public static func read(name: String, folder: String, salt: [UInt8]) throws(LectureProblem) -> LectureDefinition {
        let file = (folder as NSString).appendingPathComponent("lecture.json")
        guard let bytes = FileManager.default.contents(atPath: file) else {
            throw LectureProblem(file: file, problem: "cannot be read")
        }
        guard let object = try? JSONSerialization.jsonObject(with: bytes), let fields = object as? [String: Any] else {
            throw LectureProblem(file: file, problem: "is not a JSON object")
        }
        if let unknown = fields.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw LectureProblem(file: file, problem: "unknown field '\(unknown)' (known: config, crf, encryption, ladder, preset, segment, subtitles, video)")
        }
        struct Subtitle: Decodable { let file: String; let language: String?; let name: String? }
        struct Fields: Decodable {
            let video: String
            let config: String
            let ladder: String?
            let segment: Double?
            let subtitles: [Subtitle]?
            let preset: String?
            let crf: Int?
        }
        if let list = fields["subtitles"] as? [Any] {
            for (index, entry) in list.enumerated() {
                if let values = entry as? [String: Any], let unknown = values.keys.sorted().first(where: { !Self.subtitleFields.contains($0) }) {
                    throw LectureProblem(file: file, problem: "subtitles[\(index)]: unknown field '\(unknown)' (known: file, language, name)")
                }
            }
        }
        let decoded: Fields
        do {
            decoded = try JSONDecoder().decode(Fields.self, from: bytes)
        } catch let DecodingError.keyNotFound(key, context) {
            throw LectureProblem(file: file, problem: "\(Self.jsonPath(context.codingPath + [key])) is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw LectureProblem(file: file, problem: "\(Self.jsonPath(context.codingPath)) has the wrong type (\(Self.expected(context.codingPath)))")
        } catch {
            throw LectureProblem(file: file, problem: "is not valid JSON")
        }
        func resolve(_ value: String, at jsonPath: String) throws(LectureProblem) -> String {
            guard !value.isEmpty else { throw LectureProblem(file: file, problem: "\(jsonPath) must name a file") }
            return value.hasPrefix("/") ? value : (folder as NSString).appendingPathComponent(value)
        }
        let video = try resolve(decoded.video, at: "video")
        let config = try resolve(decoded.config, at: "config")
        var ladder: LadderRequest?
        if let text = decoded.ladder {
            do {
                ladder = try LadderRequest(parsing: text)
            } catch {
                throw LectureProblem(file: file, problem: "ladder \(error.problem)")
            }
        }
        if let segment = decoded.segment, !(1...60).contains(segment) {
            throw LectureProblem(file: file, problem: "segment must be 1…60 seconds")
        }
        if let preset = decoded.preset, !Self.presets.contains(preset) {
            throw LectureProblem(file: file, problem: "preset must be one of \(Self.presets.joined(separator: ", ")), got \"\(preset)\"")
        }
        if let crf = decoded.crf, !(0...51).contains(crf) {
            throw LectureProblem(file: file, problem: "crf must be 0…51, got \(crf)")
        }
        var captions: [SidecarCaptions] = []
        for (index, entry) in (decoded.subtitles ?? []).enumerated() {
            let path = try resolve(entry.file, at: "subtitles[\(index)].file")
            do {
                captions.append(try SidecarCaptions(file: path, language: entry.language, name: entry.name))
            } catch {
                throw LectureProblem(file: file, problem: "subtitles[\(index)]: \(error.problem)")
            }
        }
        let encryption = try fields["encryption"].map { value throws(LectureProblem) in
            try LectureEncryption.read(value, folder: folder, lectureFile: file)
        }
        var revisionInput = salt + bytes
        // A new key makes a new revision: new URLs, so no player or cache mixes files of two keys.
        if let encryption { revisionInput += encryption.fingerprint }
        var modified = stat()
        guard stat(video, &modified) == 0 else { throw LectureProblem(file: video, problem: "cannot be read (named by \(file), video)") }
        let jobValues = TextTokens.jobValues(start: Date(timeIntervalSince1970: Double(modified.st_mtim.tv_sec)))
        for (name, value) in jobValues.sorted(by: { $0.key < $1.key }) { revisionInput += Array("\(name)=\(value)\u{0}".utf8) }
        guard let configBytes = FileManager.default.contents(atPath: config) else {
            throw LectureProblem(file: config, problem: "cannot be read (named by \(file), config)")
        }
        revisionInput += configBytes
        // The files the marks read (a logo, a font file): replacing one makes a new revision.
        let marks = try? WatermarkConfig.parse(configBytes, file: config, baseDirectory: (config as NSString).deletingLastPathComponent, warn: { _ in })
        for read in marks?.localFilesRead ?? [] { revisionInput += FileIdentity(path: read)?.bytes ?? Array("missing \(read)\u{0}".utf8) }
        for (media, field) in [(video, "video")] + captions.enumerated().map({ ($0.element.file, "subtitles[\($0.offset)].file") }) {
            guard let identity = FileIdentity(path: media) else {
                throw LectureProblem(file: media, problem: "cannot be read (named by \(file), \(field))")
            }
            revisionInput += identity.bytes
        }
        // As batch's --preset/--crf: the same settings give the same bytes as batch for a row.
        var definition = LectureDefinition(name: name, video: video, marks: .file(config), ladder: ladder, captions: captions,
                                           segment: decoded.segment.map(HLSSettings.segmentLength(seconds:)),
                                           settings: EncodeSettings(crf: decoded.crf, preset: decoded.preset), jobValues: jobValues,
                                           revision: Hex.string(ContentDigest.sha256(revisionInput).prefix(6)))
            .from(.lectureFile)
        definition.encryption = encryption
        return definition
    }
}

extension LectureDefinition {
    static func jsonPath(_ path: [any CodingKey]) -> String {
        path.reduce("") { text, key in
            if let index = key.intValue { return text + "[\(index)]" }
            return text.isEmpty ? key.stringValue : text + "." + key.stringValue
        }
    }

    static func expected(_ path: [any CodingKey]) -> String {
        switch path.last?.stringValue {
        case "segment": "a number of seconds, 1…60"
        case "crf": "a whole number, 0…51"
        case "subtitles": "a list of { \"file\", \"language\", \"name\" }"
        case .some(let key) where key.hasPrefix("Index"): "an object { \"file\", \"language\", \"name\" }"
        default: "a string"
        }
    }
}

/// What identifies a media file's content cheaply: device, inode, size and modification time
/// (a lecture's video is large; its bytes are not hashed for every revision check).
struct FileIdentity: Equatable {
    let bytes: [UInt8]

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let fields = [UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size), UInt64(info.st_mtim.tv_sec), UInt64(info.st_mtim.tv_nsec)]
        bytes = fields.withUnsafeBytes { Array($0) }
    }
}
