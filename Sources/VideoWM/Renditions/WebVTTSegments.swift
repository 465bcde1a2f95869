import Animation

/// A caption track cut into WebVTT segments at the video's segment times, as RFC 8216 §3.5
/// describes them: each a WebVTT file whose `X-TIMESTAMP-MAP` ties its cue times to the
/// media's timestamps, holding every cue that shows during the segment.
///
/// Cue times are written relative to the presentation's first picture (`LOCAL:00:00:00.000`)
/// and `MPEGTS` is that picture's presentation time on the 90 kHz clock. Players place a cue at
/// `cue − LOCAL + MPEGTS/90000` on the media's timeline — the fMP4 segments' own timestamps,
/// which keep the input's — so a video that starts at 10 s (an MPEG-TS source, an edit list)
/// shows a cue written at 00:00:05.000 five seconds into the video, as the sidecar file meant.
/// (Without the map a player must assume cue 0 is timestamp 0: five seconds early there.)
///
/// A cue that spans a cut is written into every segment it shows in, with the same times, as
/// Apple's segmenter does: a player that starts or seeks into the later segment shows it, and
/// players drop the repeat (hls.js and video.js replace cues of the same span).
public enum WebVTTSegments {
    /// One WebVTT segment file.
    public struct Segment: Sendable, Equatable {
        /// The file's text: the header, `X-TIMESTAMP-MAP` and the cues it shows.
        public var text: String
        /// The video segment's duration it matches.
        public var duration: PresentationTime
        /// The text in UTF-8.
        public var bytes: [UInt8] { Array(text.utf8) }
    }

    /// The MPEG-2 90 kHz clock wraps at 2³³ ticks.
    static let mpegClockWrap: Int64 = 1 << 33

    /// `origin` on the 90 kHz clock, rounded to the nearest tick, wrapped into 0 ..< 2³³.
    public static func mpegTimestamp(of origin: PresentationTime) -> Int64 {
        let ticks = (Int128(origin.value) * 90000 * 2 + Int128(origin.timescale)) / (Int128(origin.timescale) * 2)
        let wrapped = ticks % Int128(mpegClockWrap)
        return Int64(wrapped < 0 ? wrapped + Int128(mpegClockWrap) : wrapped)
    }

    /// - Parameters:
    ///   - track: the cues, timed from the presentation's first picture.
    ///   - boundaries: the video segments' start times on the media timeline, then the
    ///     presentation's end (one more than there are segments).
    ///   - origin: the media time of the first picture, which the cues' 0 stands for.
    public static func segments(of track: CaptionTrack, boundaries: [PresentationTime], origin: PresentationTime) -> [Segment] {
        precondition(boundaries.count >= 2, "a presentation has a segment")
        let header = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:\(mpegTimestamp(of: origin)),LOCAL:00:00:00.000\n"
        // In order of their start (stable), without those wholly before the first picture.
        let ordered = track.cues.enumerated().sorted { a, b in
            a.element.start != b.element.start ? a.element.start < b.element.start : a.offset < b.offset
        }
        let zero = PresentationTime.zero
        let cues: [CaptionCue] = ordered.map(\.element).filter { (cue: CaptionCue) -> Bool in cue.end > zero || cue.start == zero }
        let count = boundaries.count - 1
        return (0..<count).map { (index: Int) -> Segment in
            // The first segment also takes cues before it, the last those after the end.
            let from: PresentationTime? = index == 0 ? nil : boundaries[index] - origin
            let to: PresentationTime? = index == count - 1 ? nil : boundaries[index + 1] - origin
            var text = header
            for cue in cues where shows(cue, from: from, to: to) {
                let start = max(cue.start, zero)
                text += "\n\(CaptionText.webVTTTimestamp(start)) --> \(CaptionText.webVTTTimestamp(cue.end))"
                text += (cue.settings.isEmpty ? "" : " " + cue.settings) + "\n" + cue.text + "\n"
            }
            return Segment(text: text, duration: boundaries[index + 1] - boundaries[index])
        }
    }

    /// Whether the cue shows within [from, to) (nil: unbounded); a cue of no length belongs
    /// where it starts.
    private static func shows(_ cue: CaptionCue, from: PresentationTime?, to: PresentationTime?) -> Bool {
        if let to, cue.start >= to { return false }
        if let from {
            if cue.start == cue.end { return cue.start >= from }
            if cue.end <= from { return false }
        }
        return true
    }
}

/// The media playlist of a WebVTT subtitle rendition: no initialization section, one `EXTINF`
/// and URI per segment, the target duration the video's (Apple asks all of a presentation's
/// playlists to share one), version 3 (decimal `EXTINF`).
public struct SubtitlePlaylist: Sendable, Equatable {
    /// One entry: a segment's URI and duration.
    public struct Segment: Sendable, Equatable {
        /// The segment file's URI.
        public var uri: String
        /// Its `EXTINF`.
        public var duration: PresentationTime
        /// An entry.
        public init(uri: String, duration: PresentationTime) {
            self.uri = uri
            self.duration = duration
        }
    }

    /// The segments, in order.
    public var segments: [Segment]
    /// `EXT-X-TARGETDURATION`: the video's.
    public var targetDurationSeconds: Int

    /// A subtitle rendition's playlist.
    public init(segments: [Segment], targetDurationSeconds: Int) {
        self.segments = segments
        self.targetDurationSeconds = targetDurationSeconds
    }

    /// The playlist's text, as written to its file.
    public var text: String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(targetDurationSeconds)", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD"]
        for segment in segments {
            lines.append("#EXTINF:\(segment.duration.secondsText(decimals: 6)),")
            lines.append(segment.uri)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }
}
