import Foundation
import Animation

/// An HLS media playlist of a finished (VOD) presentation of fMP4 segments, as RFC 8216
/// describes it: what `transcode` and `batch` write last, and what `probe` reads.
///
/// The text holds only what a VOD presentation needs: the protocol version its tags require,
/// the target duration, the initialization segment (`EXT-X-MAP`), one `EXTINF` and URI per
/// segment, and `EXT-X-ENDLIST`.
struct MediaPlaylist: Equatable, Sendable {
    struct Segment: Equatable, Sendable {
        /// Relative to the playlist's folder, '/'-separated.
        var uri: String
        var duration: PresentationTime
    }

    /// The `EXT-X-MAP` URI: the fMP4 initialization segment (ftyp and moov).
    var initializationURI: String
    var segments: [Segment]
    /// Every segment starts with a picture that decodes without the segments before it
    /// (`EXT-X-INDEPENDENT-SEGMENTS`): false when a segment starts at an open-GOP keyframe.
    var independentSegments: Bool

    /// RFC 8216 §7: `EXT-X-MAP` in a playlist without `EXT-X-I-FRAMES-ONLY` needs version 6
    /// (which also covers the decimal `EXTINF` durations of version 3).
    static let protocolVersion = 6

    /// The smallest whole number of seconds at or above every segment's duration. RFC 8216 asks
    /// for at least each duration rounded to the nearest integer; rounding up satisfies that and
    /// the stricter reading that no segment may last longer than the target.
    var targetDurationSeconds: Int {
        let longest = segments.map(\.duration).max() ?? .zero
        let whole = Int((Int128(longest.value) + Int128(longest.timescale) - 1) / Int128(longest.timescale))
        return max(1, whole)
    }

    var totalDuration: PresentationTime {
        segments.reduce(PresentationTime.zero) { $0 + $1.duration }
    }

    var text: String {
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:\(Self.protocolVersion)",
            "#EXT-X-TARGETDURATION:\(targetDurationSeconds)",
            "#EXT-X-MEDIA-SEQUENCE:0",
            "#EXT-X-PLAYLIST-TYPE:VOD",
        ]
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        lines.append("#EXT-X-MAP:URI=\"\(initializationURI)\"")
        for segment in segments {
            // Exact to the microsecond, rounded half up from the exact rational duration.
            lines.append("#EXTINF:\(segment.duration.secondsText(decimals: 6)),")
            lines.append(segment.uri)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Why a playlist's text is not a media playlist `probe` can read.
enum PlaylistParseProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case notAPlaylist
    case multivariant
    case notFinished
    case noInitializationSection
    case noSegments
    case byteRanges
    case badLine(number: Int, text: String)

    var description: String {
        switch self {
        case .notAPlaylist: "is not an HLS playlist (no #EXTM3U first line)"
        case .multivariant: "is a multivariant (master) playlist; probe one of the media playlists it lists"
        case .notFinished: "is not a finished presentation (no #EXT-X-ENDLIST)"
        case .noInitializationSection: "has no #EXT-X-MAP (only fMP4 presentations are read)"
        case .noSegments: "lists no segments"
        case .byteRanges: "uses byte ranges (#EXT-X-BYTERANGE), which are not read"
        case .badLine(let number, let text): "line \(number) cannot be read: \(text.prefix(80))"
        }
    }
}

extension MediaPlaylist {
    /// Reads a media playlist of a finished fMP4 presentation. Tags this tool does not write
    /// but that change nothing about the media (`EXT-X-VERSION`, `EXT-X-PLAYLIST-TYPE`,
    /// comments…) are skipped; anything that would change which bytes make the presentation
    /// (byte ranges, a second map, encryption) is refused rather than misread.
    init(parsing text: String) throws(PlaylistParseProblem) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "#EXTM3U" else { throw .notAPlaylist }
        var initURI: String?
        var segments: [Segment] = []
        var pendingDuration: PresentationTime?
        var ended = false
        var independent = false
        for (offset, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let number = offset + 1
            if line.hasPrefix("#EXT-X-STREAM-INF") || line.hasPrefix("#EXT-X-MEDIA:") { throw .multivariant }
            if line.hasPrefix("#EXT-X-BYTERANGE") { throw .byteRanges }
            if line.hasPrefix("#EXT-X-KEY") || line.hasPrefix("#EXT-X-DISCONTINUITY") || line.hasPrefix("#EXT-X-GAP") {
                throw .badLine(number: number, text: line)
            }
            if line.hasPrefix("#EXT-X-MAP:") {
                guard initURI == nil, segments.isEmpty, let uri = Self.quotedAttribute("URI", in: line), !line.contains("BYTERANGE") else {
                    throw .badLine(number: number, text: line)
                }
                initURI = uri
            } else if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
                guard pendingDuration == nil, let duration = Self.decimalSeconds(String(value)) else { throw .badLine(number: number, text: line) }
                pendingDuration = duration
            } else if line == "#EXT-X-ENDLIST" {
                ended = true
            } else if line == "#EXT-X-INDEPENDENT-SEGMENTS" {
                independent = true
            } else if line.hasPrefix("#") {
                continue
            } else {
                guard let duration = pendingDuration else { throw .badLine(number: number, text: line) }
                segments.append(Segment(uri: line, duration: duration))
                pendingDuration = nil
            }
        }
        guard ended else { throw .notFinished }
        guard let initURI else { throw .noInitializationSection }
        guard !segments.isEmpty else { throw .noSegments }
        self.init(initializationURI: initURI, segments: segments, independentSegments: independent)
    }

    private static func quotedAttribute(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: name + "=\"") else { return nil }
        let rest = line[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        let value = String(rest[..<end])
        return value.isEmpty ? nil : value
    }

    /// "6.006000" as an exact time (microseconds and finer kept, up to nine decimals).
    private static func decimalSeconds(_ text: String) -> PresentationTime? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int64(parts[0]), whole >= 0, whole < 1_000_000_000 else { return nil }
        guard parts.count == 2 else { return PresentationTime(value: whole, timescale: 1) }
        let fraction = parts[1]
        guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        guard let fractionValue = Int64(fraction) else { return nil }
        return PresentationTime(value: whole * scale + fractionValue, timescale: scale)
    }
}
