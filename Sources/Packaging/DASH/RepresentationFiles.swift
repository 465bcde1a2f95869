/// The files one Representation's segment addressing names, in play order: what a client fetches, and what
/// `videowm probe` checks are there. URLs as the MPD writes them (relative ones stay relative; no BaseURL applied).
public struct RepresentationFiles: Equatable, Sendable {
    /// The initialization segment, when the addressing names one.
    public var initialization: String?
    /// Every media segment; a `BaseURL`-only Representation (a WebVTT sidecar, an on-demand file) is one.
    public var media: [String]

    public init(initialization: String?, media: [String]) {
        self.initialization = initialization
        self.media = media
    }
}

extension MediaPresentationDescription {
    /// The files `representation` of `set` names: a `SegmentList`'s URLs, a `SegmentTemplate`'s expanded for each
    /// segment its timeline (or `@duration` over the presentation) gives, a `BaseURL`'s one file. Nil when the
    /// Representation has no addressing, or a template whose segments cannot be counted or whose pattern cannot be
    /// filled.
    public func files(of representation: Representation, in set: AdaptationSet) -> RepresentationFiles? {
        switch representation.segments ?? set.segmentTemplate.map(SegmentAddressing.template) {
        case .list(let list):
            return RepresentationFiles(initialization: list.initialization, media: list.mediaURLs)
        case .single(let url):
            return RepresentationFiles(initialization: nil, media: [url])
        case .template(let template):
            func fill(_ pattern: String, number: Int?, time: UInt64?) -> String? {
                SegmentTemplate.expand(pattern, representationID: representation.id, bandwidth: representation.bandwidth,
                                       number: number, time: time)
            }
            let times: [UInt64?]
            if !template.timeline.isEmpty {
                times = TimelineEntry.segments(of: template.timeline).map(\.start)
            } else if let count = segmentCount(of: representation, in: set) {
                times = (0..<count).map { n in template.duration.map { UInt64(n) * $0 } }
            } else {
                return nil
            }
            var media: [String] = []
            for (n, time) in times.enumerated() {
                guard let url = fill(template.media, number: template.startNumber + n, time: time) else { return nil }
                media.append(url)
            }
            let initialization = template.initialization.map { fill($0, number: nil, time: nil) }
            if case .some(nil) = initialization { return nil }
            return RepresentationFiles(initialization: initialization ?? nil, media: media)
        case nil:
            return nil
        }
    }
}

extension SegmentTemplate {
    /// `pattern` with its identifiers filled (ISO/IEC 23009-1 §5.3.9.4.4): `$RepresentationID$`, `$Bandwidth$`,
    /// `$Number$` and `$Time$`, the last three with an optional `%0Nd` width, and `$$` for a dollar sign. Nil when the
    /// pattern is malformed (an unclosed `$`, an unknown identifier) or names a number or time not given.
    public static func expand(_ pattern: String, representationID: String, bandwidth: Int, number: Int?, time: UInt64?) -> String? {
        var out = ""
        var rest = Substring(pattern)
        while let open = rest.firstIndex(of: "$") {
            out += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "$") else { return nil }
            let identifier = rest[afterOpen..<close]
            rest = rest[rest.index(after: close)...]
            if identifier.isEmpty { out += "$"; continue }
            let name = identifier.prefix { $0 != "%" }
            let format = identifier.dropFirst(name.count)
            var width = 1
            if !format.isEmpty {
                // `%0Nd` only: the one format the standard allows.
                guard format.hasPrefix("%0"), format.hasSuffix("d"), let n = Int(format.dropFirst(2).dropLast()), n > 0 else { return nil }
                width = n
            }
            let digits: String
            switch name {
            case "RepresentationID":
                guard format.isEmpty else { return nil }
                out += representationID
                continue
            case "Bandwidth": digits = String(bandwidth)
            case "Number": guard let number else { return nil }; digits = String(number)
            case "Time": guard let time else { return nil }; digits = String(time)
            default: return nil
            }
            out += String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return out + rest
    }
}
