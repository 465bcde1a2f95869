import Foundation
import VideoWM

/// One lecture of the library, read from `LIBRARY/NAME/lecture.json`:
/// `{ "video": "lecture.mp4", "config": "marks.json", "ladder": "auto", "segment": 4,
///    "subtitles": [ { "file": "en.srt", "language": "en", "name": "English" } ],
///    "preset": "veryfast", "crf": 23 }`.
/// Paths are relative to the lecture's folder; everything but `video` and `config` is
/// optional (defaults as for `batch`; `preset` and `crf` are batch's `--preset` and `--crf`
/// for the marked segments, the speed a server renders at against their size). `revision` changes whenever anything the presentation
/// is made from changes, and is part of every URL and cache path, so a cached file always
/// belongs to the lecture as it was when it was made.
public struct LectureDefinition: Sendable, Equatable {
    public struct Subtitles: Sendable, Equatable {
        public let file: String
        public let language: String?
        public let name: String?
    }

    public let name: String
    public let folder: String
    public let video: String
    public let config: String
    /// `auto`, or heights with optional rates (`720:2500k,360`), as `--ladder` takes; nil: the input's rendition only.
    public let ladder: String?
    public let segmentSeconds: Double?
    public let subtitles: [Subtitles]
    /// x264's preset and CRF for re-encoded segments (`--preset`, `--crf`); nil: batch's defaults.
    public let preset: String?
    public let crf: Int?
    /// `{date}` and `{time}` for this lecture's marks when a token's variables do not give them:
    /// the video file's modification time, so every process, restart and segment of a student
    /// shows the same (a render's own clock would differ from segment to segment).
    public let jobValues: [String: String]
    public let revision: String
}

/// Why a lecture cannot be served (one log line; its URLs answer 404).
public struct LectureProblem: Error, Sendable, CustomStringConvertible, Equatable {
    public let file: String
    public let problem: String
    public var description: String { "\(file): \(problem)" }
}

extension LectureDefinition {
    static let fields: Set<String> = ["video", "config", "ladder", "segment", "subtitles", "preset", "crf"]
    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    static let subtitleFields: Set<String> = ["file", "language", "name"]

    /// Reads and checks `folder/lecture.json` and the files it names. `salt` goes into the
    /// revision (the marks' key fingerprint and the program's version: either changes the bytes).
    static func read(name: String, folder: String, salt: [UInt8]) throws(LectureProblem) -> LectureDefinition {
        let file = (folder as NSString).appendingPathComponent("lecture.json")
        guard let bytes = FileManager.default.contents(atPath: file) else {
            throw LectureProblem(file: file, problem: "cannot be read")
        }
        guard let object = try? JSONSerialization.jsonObject(with: bytes), let fields = object as? [String: Any] else {
            throw LectureProblem(file: file, problem: "is not a JSON object")
        }
        if let unknown = fields.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw LectureProblem(file: file, problem: "unknown field '\(unknown)' (known: config, crf, ladder, preset, segment, subtitles, video)")
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
        if let ladder = decoded.ladder {
            do {
                _ = try LadderRequest(parsing: ladder)
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
        var subtitles: [Subtitles] = []
        for (index, entry) in (decoded.subtitles ?? []).enumerated() {
            let path = try resolve(entry.file, at: "subtitles[\(index)].file")
            do {
                _ = try SidecarCaptions(file: path, language: entry.language, name: entry.name)
            } catch {
                throw LectureProblem(file: file, problem: "subtitles[\(index)]: \(error.problem)")
            }
            subtitles.append(Subtitles(file: path, language: entry.language, name: entry.name))
        }
        let ladder = decoded.ladder
        let segment = decoded.segment
        var revisionInput = salt + bytes
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
        for (media, field) in [(video, "video")] + subtitles.enumerated().map({ ($0.element.file, "subtitles[\($0.offset)].file") }) {
            guard let identity = FileIdentity(path: media) else {
                throw LectureProblem(file: media, problem: "cannot be read (named by \(file), \(field))")
            }
            revisionInput += identity.bytes
        }
        return LectureDefinition(name: name, folder: folder, video: video, config: config, ladder: ladder, segmentSeconds: segment,
                                 subtitles: subtitles, preset: decoded.preset, crf: decoded.crf, jobValues: jobValues, revision: Hex.string(ContentDigest.sha256(revisionInput).prefix(6)))
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
