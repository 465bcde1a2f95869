import Animation
import Foundation

/// One rendition of a lecture's ladder, as a multivariant playlist lists it: a video rung, an
/// audio stream or a caption track.
public struct LadderRendition: Sendable, Equatable {
    /// A video rung, an audio stream or a caption track.
    public enum Kind: String, Sendable, Equatable { case video, audio, subtitles }

    /// "720p", "audio-en", "subs-en" ("…-2" when a language repeats): unique within the lecture,
    /// made of RFC 3986 unreserved characters, so it serves as a file-name part and a URL segment.
    public let id: String
    /// Video, audio or subtitles.
    public let kind: Kind
    /// What players list (`NAME`): "720p", "English", "Deutsch (2)".
    public let name: String
    /// RFC 5646 tag, "und" when unknown (audio and subtitles; nil for video).
    public let language: String?
    /// Audio channels, when known.
    public let channels: Int?
    /// The rung's sizes and rate (video only).
    public let video: PlannedRendition?
    /// A video rendition whose unmarked segments are the input's own packets.
    public let copiesInput: Bool

    init(id: String, kind: Kind, name: String, language: String? = nil, channels: Int? = nil, video: PlannedRendition? = nil,
         copiesInput: Bool = false) {
        self.id = id
        self.kind = kind
        self.name = name
        self.language = language
        self.channels = channels
        self.video = video
        self.copiesInput = copiesInput
    }

    /// Whether `text` has the shape of a rendition id (`720p`, `audio-en`, `subs-pt-BR-2`): what a
    /// folder's clean-up may take for another run's rendition. A language starts with a letter,
    /// so `audio-720p` is not one.
    static func isID(_ text: Substring) -> Bool {
        if text.hasSuffix("p"), text.count >= 2, text.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        for prefix in ["audio-", "subs-"] where text.hasPrefix(prefix) {
            let rest = text.dropFirst(prefix.count)
            guard let first = rest.first, first.isASCII && first.isLetter else { return false }
            return rest.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" } && !rest.hasSuffix("-") && !rest.contains("--")
        }
        return false
    }

    /// `base` made unique against `taken` ("audio-en", "audio-en-2", …), and recorded there.
    static func uniqueID(_ base: String, taken: inout Set<String>) -> String {
        var id = base
        var n = 2
        while taken.contains(id) {
            id = "\(base)-\(n)"
            n += 1
        }
        taken.insert(id)
        return id
    }

    /// A language tag as an id part: letters, digits and '-' kept, anything else dropped ("und" if nothing is left).
    static func idPart(language: String) -> String {
        let kept = String(language.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }
            .map(Character.init))
        let trimmed = kept.split(separator: "-").joined(separator: "-")
        guard let first = trimmed.first, first.isLetter else { return "und" }
        return trimmed
    }
}

/// One segment of one rendition of a student's ladder.
public struct LadderSegment: Sendable, Equatable {
    /// Its index in the rendition's playlist, 0 for the first.
    public let index: Int
    /// The same in every rendition: every rendition is cut at the same times.
    public let start: PresentationTime
    /// How long it lasts (its `EXTINF`).
    public let duration: PresentationTime
    /// The lecture's bytes, the same for every student (`LectureLadder.sharedSegment`); false:
    /// this student's marks show in it and it is theirs alone.
    public let isShared: Bool
    /// Which of the lecture's shared variants the student lists here, when shared: their
    /// codeword's symbol in a variant ladder's video renditions (`LectureLadder.sharedVariants`), else 0.
    public let variant: Int
}

/// What `--ladder` and `--subtitles` ask of an `.m3u8` output: a multivariant playlist of these
/// renditions (`--subtitles` alone: of the input's own size).
public struct LadderOptions: Sendable, Equatable {
    /// `--ladder`: the rungs asked for.
    public var request: LadderRequest
    /// `--subtitles`: caption files to offer.
    public var subtitles: [SidecarCaptions]

    /// Renditions to make.
    public init(request: LadderRequest, subtitles: [SidecarCaptions] = []) {
        self.request = request
        self.subtitles = subtitles
    }

    /// The options given, or nil when neither is (the output is a single media playlist, as before ladders).
    public init?(ladder: LadderRequest?, subtitles: [SidecarCaptions]) {
        guard ladder != nil || !subtitles.isEmpty else { return nil }
        self.init(request: ladder ?? .input, subtitles: subtitles)
    }
}
