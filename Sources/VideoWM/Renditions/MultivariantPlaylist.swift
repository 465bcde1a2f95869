import Foundation
import Animation

/// An HLS multivariant playlist (RFC 8216 §4.3.4): the file a platform hands a player, listing
/// the video renditions (`EXT-X-STREAM-INF`, one per rung of the ladder) and the audio and
/// subtitle renditions they play with (`EXT-X-MEDIA`).
///
/// What goes in, and why:
/// - `BANDWIDTH` and `AVERAGE-BANDWIDTH` are measured (`SegmentBitRates`): the video's plus
///   the largest audio rendition's plus the largest subtitle rendition's, since a player may
///   play any of a group with the video (§4.3.4.2).
/// - `CODECS` lists the video's and every audio rendition's format as their initialization
///   segments declare them (`CodecStrings`); WebVTT's "wvtt" is left out, which Apple makes
///   optional and some players' codec checks refuse.
/// - `RESOLUTION` is the displayed size; `FRAME-RATE` the frame rate, to three decimals.
/// - Audio renditions: the first is `DEFAULT=YES`; all `AUTOSELECT=YES` with a `LANGUAGE`
///   (Apple 8.10). Subtitles: `AUTOSELECT=YES`, `DEFAULT=NO` — the player's caption settings
///   decide whether they show, as they do for closed captions.
/// - `EXT-X-INDEPENDENT-SEGMENTS` when every rendition's segments start with an IDR (Apple 9.11).
/// - `EXT-X-VERSION:4` when `EXT-X-MEDIA` groups are listed (RFC 8216 §7 suggests 4 or higher
///   for them; nothing here needs more), otherwise none (version 1).
/// - The first variant is the default one for many players: the one nearest 2 Mb/s on average
///   (Apple 1.32), then the others from the highest bandwidth down.
public struct MultivariantPlaylist: Sendable, Equatable {
    /// One `EXT-X-MEDIA` entry: an audio or subtitle rendition.
    public struct Rendition: Sendable, Equatable {
        /// `TYPE`: AUDIO or SUBTITLES.
        public enum Kind: String, Sendable, Equatable { case audio = "AUDIO", subtitles = "SUBTITLES" }
        /// `TYPE`.
        public var kind: Kind
        /// `GROUP-ID`.
        public var groupID: String
        /// `LANGUAGE`.
        public var language: String
        /// `NAME`, what players list.
        public var name: String
        /// `DEFAULT=YES`.
        public var isDefault: Bool
        /// `AUTOSELECT=YES`.
        public var autoselect: Bool
        /// Audio channels (`CHANNELS`), when known.
        public var channels: Int?
        /// `URI`: its media playlist.
        public var uri: String

        /// An `EXT-X-MEDIA` entry.
        public init(kind: Kind, groupID: String, language: String, name: String, isDefault: Bool, autoselect: Bool = true,
                    channels: Int? = nil, uri: String) {
            self.kind = kind
            self.groupID = groupID
            self.language = language
            self.name = name
            self.isDefault = isDefault
            self.autoselect = autoselect || isDefault
            self.channels = channels
            self.uri = uri
        }
    }

    /// One `EXT-X-STREAM-INF` entry: a video rendition.
    public struct Variant: Sendable, Equatable {
        /// `BANDWIDTH`: the peak bit rate, measured.
        public var bandwidth: Int
        /// `AVERAGE-BANDWIDTH`, measured.
        public var averageBandwidth: Int
        /// `CODECS`, read from the initialization segments.
        public var codecs: [String]
        /// `RESOLUTION`'s width.
        public var width: Int?
        /// `RESOLUTION`'s height.
        public var height: Int?
        /// Frames per second, written to three decimals.
        public var frameRate: Double?
        /// `AUDIO`: the group it plays with.
        public var audioGroup: String?
        /// `SUBTITLES`: the caption group it offers.
        public var subtitlesGroup: String?
        /// Its media playlist.
        public var uri: String

        /// An `EXT-X-STREAM-INF` entry.
        public init(bandwidth: Int, averageBandwidth: Int, codecs: [String], width: Int?, height: Int?, frameRate: Double?,
                    audioGroup: String?, subtitlesGroup: String?, uri: String) {
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.codecs = codecs
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.audioGroup = audioGroup
            self.subtitlesGroup = subtitlesGroup
            self.uri = uri
        }
    }

    /// The audio and subtitle renditions.
    public var renditions: [Rendition]
    /// The video renditions.
    public var variants: [Variant]
    /// Writes `EXT-X-INDEPENDENT-SEGMENTS`: every segment starts with a keyframe.
    public var independentSegments: Bool

    /// A multivariant playlist.
    public init(renditions: [Rendition], variants: [Variant], independentSegments: Bool) {
        self.renditions = renditions
        self.variants = variants
        self.independentSegments = independentSegments
    }

    /// The audio group's `GROUP-ID`.
    public static let audioGroupID = "audio"
    /// The caption group's `GROUP-ID`.
    public static let subtitlesGroupID = "subs"
    /// Apple's default variant: the one nearest this average rate.
    public static let defaultVariantRate = 2_000_000

    /// The variants in the order `text` lists them.
    public var orderedVariants: [Variant] {
        let byBandwidth = variants.enumerated().sorted { ($1.element.bandwidth, $0.offset) < ($0.element.bandwidth, $1.offset) }.map(\.element)
        guard let first = byBandwidth.enumerated().min(by: {
            abs($0.element.averageBandwidth - Self.defaultVariantRate) < abs($1.element.averageBandwidth - Self.defaultVariantRate)
        }) else { return [] }
        var ordered = byBandwidth
        ordered.remove(at: first.offset)
        return [first.element] + ordered
    }

    /// The playlist's text, as written to its file.
    public var text: String {
        var lines = ["#EXTM3U"]
        if !renditions.isEmpty { lines.append("#EXT-X-VERSION:4") }
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        for r in renditions {
            var attributes = ["TYPE=\(r.kind.rawValue)", "GROUP-ID=\(quoted(r.groupID))", "LANGUAGE=\(quoted(r.language))",
                              "NAME=\(quoted(r.name))", "DEFAULT=\(r.isDefault ? "YES" : "NO")", "AUTOSELECT=\(r.autoselect ? "YES" : "NO")"]
            if let channels = r.channels { attributes.append("CHANNELS=\(quoted(String(channels)))") }
            attributes.append("URI=\(quoted(r.uri))")
            lines.append("#EXT-X-MEDIA:" + attributes.joined(separator: ","))
        }
        for v in orderedVariants {
            var attributes = ["BANDWIDTH=\(v.bandwidth)", "AVERAGE-BANDWIDTH=\(v.averageBandwidth)"]
            if !v.codecs.isEmpty { attributes.append("CODECS=\(quoted(v.codecs.joined(separator: ",")))") }
            if let w = v.width, let h = v.height { attributes.append("RESOLUTION=\(w)x\(h)") }
            if let rate = v.frameRate { attributes.append("FRAME-RATE=\(String(format: "%.3f", rate))") }
            if let group = v.audioGroup { attributes.append("AUDIO=\(quoted(group))") }
            if let group = v.subtitlesGroup { attributes.append("SUBTITLES=\(quoted(group))") }
            // No closed captions are carried in the video (608/708); saying so keeps players from waiting for them.
            attributes.append("CLOSED-CAPTIONS=NONE")
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(v.uri)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func quoted(_ value: String) -> String {
        precondition(!value.contains("\"") && !value.contains("\n") && !value.contains("\r"), "an HLS quoted-string cannot hold \" or a line break")
        return "\"\(value)\""
    }
}

extension MultivariantPlaylist {
    /// Why a multivariant playlist's text cannot be read.
    public struct ParseProblem: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads a multivariant playlist (what `probe` reports): its `EXT-X-MEDIA` renditions and
    /// `EXT-X-STREAM-INF` variants with the attributes this type writes; other tags and
    /// attributes are skipped.
    public init(parsing text: String) throws(ParseProblem) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "#EXTM3U" else { throw ParseProblem(description: "is not an HLS playlist (no #EXTM3U first line)") }
        var renditions: [Rendition] = []
        var variants: [Variant] = []
        var pending: [String: String]?
        var independent = false
        for (offset, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let number = offset + 1
            if line.hasPrefix("#EXT-X-MEDIA:") {
                let a = try Self.attributes(String(line.dropFirst("#EXT-X-MEDIA:".count)), line: number)
                guard let type = a["TYPE"], let group = a["GROUP-ID"], let name = a["NAME"] else {
                    throw ParseProblem(description: "line \(number): EXT-X-MEDIA without TYPE, GROUP-ID or NAME")
                }
                guard let kind = Rendition.Kind(rawValue: type) else { continue }  // VIDEO, CLOSED-CAPTIONS: not written here
                renditions.append(Rendition(kind: kind, groupID: group, language: a["LANGUAGE"] ?? "und", name: name,
                                            isDefault: a["DEFAULT"] == "YES", autoselect: a["AUTOSELECT"] == "YES",
                                            channels: a["CHANNELS"].flatMap { Int($0.prefix { $0.isNumber }) }, uri: a["URI"] ?? ""))
            } else if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = try Self.attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)), line: number)
            } else if line == "#EXT-X-INDEPENDENT-SEGMENTS" {
                independent = true
            } else if line.hasPrefix("#EXTINF") || line.hasPrefix("#EXT-X-TARGETDURATION") {
                throw ParseProblem(description: "is a media playlist, not a multivariant one")
            } else if line.hasPrefix("#") {
                continue
            } else {
                guard let a = pending else { throw ParseProblem(description: "line \(number): a URI without EXT-X-STREAM-INF before it") }
                guard let bandwidth = a["BANDWIDTH"].flatMap(Int.init) else {
                    throw ParseProblem(description: "line \(number - 1): EXT-X-STREAM-INF without a BANDWIDTH")
                }
                let size = a["RESOLUTION"]?.lowercased().split(separator: "x").compactMap { Int($0) }
                let (width, height) = size.map { $0.count == 2 ? ($0[0], $0[1]) : (nil, nil) } ?? (nil, nil)
                variants.append(Variant(bandwidth: bandwidth, averageBandwidth: a["AVERAGE-BANDWIDTH"].flatMap(Int.init) ?? bandwidth,
                                        codecs: a["CODECS"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? [],
                                        width: width, height: height,
                                        frameRate: a["FRAME-RATE"].flatMap(Double.init), audioGroup: a["AUDIO"], subtitlesGroup: a["SUBTITLES"],
                                        uri: line))
                pending = nil
            }
        }
        guard !variants.isEmpty else { throw ParseProblem(description: "lists no variant (no EXT-X-STREAM-INF)") }
        self.init(renditions: renditions, variants: variants, independentSegments: independent)
    }

    /// Whether `text` is a multivariant playlist rather than a media playlist.
    public static func isMultivariant(_ text: String) -> Bool {
        text.contains("#EXT-X-STREAM-INF:")
    }

    /// `NAME=value,NAME="quoted, value"` (RFC 8216 §4.2), quotes removed.
    static func attributes(_ list: String, line: Int) throws(ParseProblem) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(list)
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { throw ParseProblem(description: "line \(line): attribute without a value in '\(list.prefix(80))'") }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: "\"") else { throw ParseProblem(description: "line \(line): unterminated quoted value") }
                value = rest[..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            result[name] = String(value)
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return result
    }
}
