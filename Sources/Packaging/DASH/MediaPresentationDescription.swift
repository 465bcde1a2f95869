/// A static DASH Media Presentation Description (ISO/IEC 23009-1) as values: what `xml` writes and
/// `MediaPresentationDescription(parsing:)` reads back.
///
/// The shape DASH-IF's interoperability points ask for: one Period; one video AdaptationSet whose Representations are
/// a ladder cut at the same times (`segmentAlignment`, `startWithSAP` 1); one AdaptationSet per audio group and per
/// caption language; `ContentProtection` on each encrypted AdaptationSet. Segments are addressed by a
/// `SegmentTemplate` (one name pattern, `$Number$` or `$Time$`, with a `SegmentTimeline`) where names follow a
/// pattern, or by a `SegmentList` of explicit URLs where they do not (a student's copy lists shared segments and
/// their own, named by content).
public struct MediaPresentationDescription: Equatable, Sendable {
    /// `@profiles`; `nil` picks ISO BMFF live (`urn:mpeg:dash:profile:isoff-live:2011`) when every Representation is
    /// addressed by a template, else ISO BMFF main (`…:isoff-main:2011`): the live profile allows templates only.
    public var profiles: [String]?
    /// `@mediaPresentationDuration`, seconds.
    public var duration: Double
    /// `@minBufferTime`, seconds.
    public var minimumBufferTime: Double
    public var baseURL: String?
    public var periods: [Period]

    public init(profiles: [String]? = nil, duration: Double, minimumBufferTime: Double = 2, baseURL: String? = nil, periods: [Period]) {
        self.profiles = profiles
        self.duration = duration
        self.minimumBufferTime = minimumBufferTime
        self.baseURL = baseURL
        self.periods = periods
    }

    public static let liveProfile = "urn:mpeg:dash:profile:isoff-live:2011"
    public static let mainProfile = "urn:mpeg:dash:profile:isoff-main:2011"

    /// The profiles written: as given, or the one the addressing allows.
    public var effectiveProfiles: [String] {
        if let profiles { return profiles }
        let templatesOnly = periods.allSatisfy { period in
            period.adaptationSets.allSatisfy { set in
                set.representations.allSatisfy { representation in
                    switch representation.segments ?? set.segmentTemplate.map(SegmentAddressing.template) {
                    case .template: true
                    case .list, .single, nil: false
                    }
                }
            }
        }
        return [templatesOnly ? Self.liveProfile : Self.mainProfile]
    }
}

public struct Period: Equatable, Sendable {
    public var id: String?
    /// `@start`, seconds.
    public var start: Double?
    public var adaptationSets: [AdaptationSet]

    public init(id: String? = "0", start: Double? = 0, adaptationSets: [AdaptationSet]) {
        self.id = id
        self.start = start
        self.adaptationSets = adaptationSets
    }
}

public enum ContentType: String, Sendable, Equatable {
    case video, audio, text
}

public struct AdaptationSet: Equatable, Sendable {
    public var id: Int?
    public var contentType: ContentType
    public var mimeType: String
    /// `@codecs` shared by every Representation (captions' `wvtt`, none for `text/vtt` sidecars).
    public var codecs: String?
    /// BCP 47 language (`@lang`).
    public var language: String?
    public var label: String?
    /// `Role` values of `urn:mpeg:dash:role:2011` (`main`, `subtitle`, `caption`).
    public var roles: [String]
    /// Every Representation's segments start at the same times (a ladder cut together).
    public var segmentAlignment: Bool
    /// `@startWithSAP`: 1 when every segment starts with a closed-GOP key frame.
    public var startWithSAP: Int?
    public var contentProtections: [ContentProtection]
    /// Addressing shared by the Representations that give none of their own.
    public var segmentTemplate: SegmentTemplate?
    public var representations: [Representation]

    public init(id: Int? = nil, contentType: ContentType, mimeType: String, codecs: String? = nil, language: String? = nil,
                label: String? = nil, roles: [String] = [], segmentAlignment: Bool = true, startWithSAP: Int? = nil,
                contentProtections: [ContentProtection] = [], segmentTemplate: SegmentTemplate? = nil, representations: [Representation]) {
        self.id = id
        self.contentType = contentType
        self.mimeType = mimeType
        self.codecs = codecs
        self.language = language
        self.label = label
        self.roles = roles
        self.segmentAlignment = segmentAlignment
        self.startWithSAP = startWithSAP
        self.contentProtections = contentProtections
        self.segmentTemplate = segmentTemplate
        self.representations = representations
    }
}

/// A frame rate as DASH writes it: `30`, `30000/1001`.
public struct FrameRate: Equatable, Sendable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int = 1) {
        precondition(numerator > 0 && denominator > 0, "a frame rate is positive")
        self.numerator = numerator
        self.denominator = denominator
    }

    public init?(text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let numerator = Int(parts[0]), numerator > 0 else { return nil }
        let denominator = parts.count == 2 ? Int(parts[1]) : 1
        guard let denominator, denominator > 0 else { return nil }
        self.init(numerator, denominator)
    }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
    public var framesPerSecond: Double { Double(numerator) / Double(denominator) }
}

public struct Representation: Equatable, Sendable {
    public var id: String
    /// `@bandwidth`, bits per second: the peak rate DASH's leaky bucket needs with `minBufferTime`.
    public var bandwidth: Int
    public var codecs: String?
    /// Set where it differs from the AdaptationSet's.
    public var mimeType: String?
    public var width: Int?
    public var height: Int?
    public var frameRate: FrameRate?
    /// `@sar`, `1:1` for square pixels.
    public var sampleAspectRatio: String?
    public var audioSamplingRate: Int?
    /// `AudioChannelConfiguration` (`urn:mpeg:dash:23003:3:audio_channel_configuration:2011`).
    public var audioChannels: Int?
    public var contentProtections: [ContentProtection]
    /// nil: the AdaptationSet's template.
    public var segments: SegmentAddressing?

    public init(id: String, bandwidth: Int, codecs: String? = nil, mimeType: String? = nil, width: Int? = nil, height: Int? = nil,
                frameRate: FrameRate? = nil, sampleAspectRatio: String? = nil, audioSamplingRate: Int? = nil, audioChannels: Int? = nil,
                contentProtections: [ContentProtection] = [], segments: SegmentAddressing? = nil) {
        self.id = id
        self.bandwidth = bandwidth
        self.codecs = codecs
        self.mimeType = mimeType
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sampleAspectRatio = sampleAspectRatio
        self.audioSamplingRate = audioSamplingRate
        self.audioChannels = audioChannels
        self.contentProtections = contentProtections
        self.segments = segments
    }
}

/// How a Representation's segments are found.
public enum SegmentAddressing: Equatable, Sendable {
    case template(SegmentTemplate)
    case list(SegmentList)
    /// One whole file (`BaseURL`): a WebVTT sidecar.
    case single(url: String)
}

/// One `S` of a `SegmentTimeline`: `repeatCount` more segments of the same duration follow the first.
public struct TimelineEntry: Equatable, Sendable {
    /// `@t`, where it does not follow on from the previous entry.
    public var start: UInt64?
    public var duration: UInt64
    public var repeatCount: Int

    public init(start: UInt64? = nil, duration: UInt64, repeatCount: Int = 0) {
        self.start = start
        self.duration = duration
        self.repeatCount = repeatCount
    }

    /// The shortest timeline for segments starting at `starts` with `durations` (one each): equal durations in a
    /// row become one entry with a repeat count, `@t` written first and wherever a segment does not start where the
    /// previous one ends.
    public static func timeline(starts: [UInt64], durations: [UInt64]) -> [TimelineEntry] {
        precondition(starts.count == durations.count, "one start per duration")
        var entries: [TimelineEntry] = []
        var expected: UInt64?
        for (start, duration) in zip(starts, durations) {
            let continues = expected == start
            if continues, let last = entries.last, last.duration == duration {
                entries[entries.count - 1].repeatCount += 1
            } else {
                entries.append(TimelineEntry(start: continues ? nil : start, duration: duration))
            }
            expected = start + duration
        }
        return entries
    }

    /// Each segment's start and duration, from a timeline that begins at `origin` where its first entry gives no `@t`.
    public static func segments(of timeline: [TimelineEntry], origin: UInt64 = 0) -> [(start: UInt64, duration: UInt64)] {
        var out: [(UInt64, UInt64)] = []
        var next = origin
        for entry in timeline {
            next = entry.start ?? next
            for _ in 0...max(0, entry.repeatCount) {
                out.append((next, entry.duration))
                next += entry.duration
            }
        }
        return out
    }
}

public struct SegmentTemplate: Equatable, Sendable {
    public var timescale: UInt32
    /// `@initialization`, may hold `$RepresentationID$`.
    public var initialization: String?
    /// `@media`: `$RepresentationID$`, `$Number$`, `$Time$`, `$Bandwidth$` substituted (with `%0Nd` widths).
    public var media: String
    public var startNumber: Int
    public var presentationTimeOffset: UInt64
    public var timeline: [TimelineEntry]
    /// `@duration` for a template without timeline (every segment that long but the last).
    public var duration: UInt64?

    public init(timescale: UInt32, initialization: String?, media: String, startNumber: Int = 1, presentationTimeOffset: UInt64 = 0,
                timeline: [TimelineEntry] = [], duration: UInt64? = nil) {
        self.timescale = timescale
        self.initialization = initialization
        self.media = media
        self.startNumber = startNumber
        self.presentationTimeOffset = presentationTimeOffset
        self.timeline = timeline
        self.duration = duration
    }
}

public struct SegmentList: Equatable, Sendable {
    public var timescale: UInt32
    public var initialization: String?
    public var presentationTimeOffset: UInt64
    /// One entry per media URL (after repeats); a list of more than one segment needs it or `duration`.
    public var timeline: [TimelineEntry]
    public var duration: UInt64?
    public var mediaURLs: [String]

    public init(timescale: UInt32, initialization: String?, presentationTimeOffset: UInt64 = 0, timeline: [TimelineEntry] = [],
                duration: UInt64? = nil, mediaURLs: [String]) {
        self.timescale = timescale
        self.initialization = initialization
        self.presentationTimeOffset = presentationTimeOffset
        self.timeline = timeline
        self.duration = duration
        self.mediaURLs = mediaURLs
    }
}
