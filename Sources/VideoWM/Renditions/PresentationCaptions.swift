import Foundation
import Animation

/// Every caption track of a presentation, read once per lecture: the input's text subtitle
/// streams first (in stream order), then the sidecar files in the order given. Bitmap subtitle
/// streams are left out with one notice naming them. Names are made unique ("English",
/// "English (2)") since players list renditions by name.
public struct PresentationCaptions: Sendable, Equatable {
    /// The caption tracks, the input's first, then the sidecar files'.
    public var tracks: [CaptionTrack]
    /// What was left out (bitmap subtitles), one line each.
    public var notices: [String]

    /// Captions already read.
    public init(tracks: [CaptionTrack], notices: [String]) {
        self.tracks = tracks
        self.notices = notices
    }

    /// - Parameters:
    ///   - input: the video; its text subtitle streams are read (nil: none).
    ///   - sidecars: `--subtitles` files.
    ///   - warn: hears what a caption file's reader notices (cues it skips or mends).
    public static func load(input: String?, sidecars: [SidecarCaptions], warn: WarningHandler) throws -> PresentationCaptions {
        var tracks: [CaptionTrack] = []
        var notices: [String] = []
        if let input {
            let read = try TextSubtitleReader.read(path: input)
            let origin = read.firstVideoTime ?? .zero
            for stream in read.streams {
                let language = stream.language.map(LanguageTag.preferred) ?? "und"
                let title = stream.title.map { String($0.unicodeScalars.filter { $0 != "\"" && $0.properties.generalCategory != .control }) }
                let name = title.flatMap { $0.isEmpty ? nil : String($0.prefix(64)) } ?? LanguageTag.name(of: language) ?? language
                let cues = stream.cues.map { CaptionCue(start: $0.start - origin, end: $0.end - origin, text: $0.text) }
                tracks.append(CaptionTrack(language: language, name: name, cues: cues, origin: "\(input) subtitle stream \(stream.index)"))
            }
            if !read.bitmapStreams.isEmpty {
                let list = read.bitmapStreams.map { "stream \($0.index) (\($0.codec))" }.joined(separator: ", ")
                notices.append("\(input): bitmap subtitles left out of the HLS presentation (only text becomes WebVTT captions): \(list)")
            }
        }
        for sidecar in sidecars { tracks.append(try sidecar.load(warn: warn)) }
        var seen: [String: Int] = [:]
        for index in tracks.indices {
            let name = tracks[index].name
            let count = seen[name, default: 0] + 1
            seen[name] = count
            if count > 1 { tracks[index].name = "\(name) (\(count))" }
        }
        return PresentationCaptions(tracks: tracks, notices: notices)
    }
}
