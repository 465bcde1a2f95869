/// When a media segment's samples of one track are presented, read from its `tfdt` and track runs: what an MPD's
/// `SegmentTimeline` says of it (ISO/IEC 23009-1 §5.3.9.6: `@t` is the segment's earliest presentation time).
public struct SegmentTiming: Equatable, Sendable {
    /// The earliest presentation time of the segment's samples, in the track's timescale.
    public var earliestPresentationTime: Int64
    /// The end of the latest-presented sample.
    public var presentationEnd: Int64
    /// The `tfdt` of the first track fragment.
    public var baseDecodeTime: UInt64
    public var sampleCount: Int

    /// The timing of `trackID`'s samples in a media segment, nil when it holds none of that track's.
    public static func read(segment bytes: [UInt8], initialization tracks: [TrackDescription], trackID: UInt32) throws(MP4StructureError) -> SegmentTiming? {
        var timing: SegmentTiming?
        for fragment in try MovieFragment.fragments(in: bytes, tracks: tracks) {
            for trackFragment in fragment.trackFragments where trackFragment.trackID == trackID && !trackFragment.samples.isEmpty {
                guard let base = trackFragment.baseDecodeTime else {
                    throw .unsupported(trackFragment.location, "no tfdt: a segment's decode time is unknown on its own")
                }
                var decodeTime = Int64(base)
                var earliest = Int64.max
                var end = Int64.min
                for sample in trackFragment.samples {
                    let presented = decodeTime + sample.compositionOffset
                    earliest = min(earliest, presented)
                    end = max(end, presented + Int64(sample.duration))
                    decodeTime += Int64(sample.duration)
                }
                if var known = timing {
                    known.earliestPresentationTime = min(known.earliestPresentationTime, earliest)
                    known.presentationEnd = max(known.presentationEnd, end)
                    known.sampleCount += trackFragment.samples.count
                    timing = known
                } else {
                    timing = SegmentTiming(earliestPresentationTime: earliest, presentationEnd: end, baseDecodeTime: base,
                                           sampleCount: trackFragment.samples.count)
                }
            }
        }
        return timing
    }

    /// A timeline for consecutive segments: each segment starts at its earliest presentation time (less the
    /// presentation time offset, at least 0) and lasts until the next one starts; the last until its last sample ends.
    public static func timeline(_ timings: [SegmentTiming], presentationTimeOffset: UInt64 = 0) -> [TimelineEntry] {
        let offset = Int64(presentationTimeOffset)
        let starts = timings.map { UInt64(max(0, $0.earliestPresentationTime - offset)) }
        var durations: [UInt64] = []
        for (n, timing) in timings.enumerated() {
            let end = n + 1 < timings.count ? Int64(starts[n + 1]) : max(0, timing.presentationEnd - offset)
            durations.append(UInt64(max(0, end - Int64(starts[n]))))
        }
        return TimelineEntry.timeline(starts: starts, durations: durations)
    }
}
