/// What one reading of a whole file whose timestamps may jump (MPEG-TS, PS, FLV) finds, with
/// the jumps taken out as `InputFile.read` takes them out (`TimestampContinuity`): where each
/// stream's correction changes, by byte position, where its keyframes are, and how long each
/// stream lasts on the corrected clock. Packets are only demuxed, never decoded.
///
/// A seek by time in such a file cannot be left to FFmpeg: it searches the raw timestamps, which
/// jump (and, after an overlap, repeat), and the continuity, which learns its offset by reading
/// in order, would not know the offset where the seek lands. With the timeline a seek goes to a
/// keyframe's byte position, and every packet read after it gets the correction the reading
/// from the start gave it (`InputFile.seek`) — so the frame locator and `trace` see the times
/// `transcode` sees.
package struct CorrectedTimeline {
    /// From `position` on, a stream's packets get `ticks` (of its time base) added.
    struct Correction: Equatable {
        let position: Int64
        let ticks: Int64
    }

    /// A keyframe packet: its corrected presentation timestamp and where its packet starts.
    package struct Keyframe: Equatable {
        let presentationTimestamp: Int64
        let position: Int64
    }

    /// Per stream index, in file order.
    private(set) var corrections: [Int: [Correction]] = [:]
    package private(set) var keyframes: [Int: [Keyframe]] = [:]
    /// Per stream index, the corrected presentation times it covers: the first packet's and
    /// the latest end (presentation time plus duration), in its time base.
    package private(set) var spans: [Int: (first: Int64, end: Int64)] = [:]
    private var timeBases: [Int: Rational] = [:]
    /// Where the timestamps jumped (as `InputFile.timestampJumps` reports them after a full read).
    package private(set) var jumps: [(atSeconds: Double, shiftSeconds: Double)] = []

    package var hasJumps: Bool { !jumps.isEmpty }

    /// Reads every packet of the file at `path` once.
    static func read(path: String, name: String) throws -> CorrectedTimeline {
        let input = try InputFile(path: path, name: name)
        var timeline = CorrectedTimeline()
        for stream in input.streams { timeline.timeBases[stream.index] = stream.timeBase }
        let packet = try Packet()
        while let ticks = try input.readReportingCorrection(into: packet) {
            defer { packet.unref() }
            try Interruption.throwIfRequested()
            timeline.record(packet, ticks: ticks)
        }
        timeline.jumps = input.timestampJumps
        return timeline
    }

    private mutating func record(_ packet: Packet, ticks: Int64) {
        let stream = packet.streamIndex
        if let position = packet.position, corrections[stream]?.last?.ticks != ticks {
            corrections[stream, default: []].append(Correction(position: position, ticks: ticks))
        }
        guard let pts = packet.presentationTimestamp, !packet.isDiscarded else { return }
        if packet.isKeyframe, let position = packet.position {
            keyframes[stream, default: []].append(Keyframe(presentationTimestamp: pts, position: position))
        }
        let end = pts + max(packet.duration, 0)
        let span = spans[stream] ?? (pts, end)
        spans[stream] = (min(span.first, pts), max(span.end, end))
    }

    /// The ticks the reading from the start added to a packet of `stream` that starts at
    /// `position`: those of the last correction at or before it (the first one's before that).
    func ticks(stream: Int, position: Int64) -> Int64? {
        guard let list = corrections[stream], !list.isEmpty else { return nil }
        // The last index whose position is not after `position`.
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].position <= position { low = middle + 1 } else { high = middle }
        }
        return list[max(low - 1, 0)].ticks
    }

    /// The last keyframe of `stream` whose corrected presentation timestamp is at or before
    /// `timestamp` (by presentation time: with B-frames keyframes are not in that order), or
    /// the first one when none is.
    func keyframe(of stream: Int, atOrBefore timestamp: Int64) -> Keyframe? {
        guard let list = keyframes[stream], let first = list.first else { return nil }
        return list.filter { $0.presentationTimestamp <= timestamp }.max { $0.presentationTimestamp < $1.presentationTimestamp } ?? first
    }

    /// How long `stream` lasts on the corrected clock, in its time base.
    package func duration(of stream: Int) -> Int64? {
        spans[stream].map { $0.end - $0.first }
    }

    /// How long the file lasts on the corrected clock: from the earliest audio or video start to
    /// the latest end (FFmpeg's container duration, without the jumps).
    func durationSeconds(mediaStreams: Set<Int>) -> Double? {
        let ends = spans.compactMap { stream, span -> (Double, Double)? in
            guard mediaStreams.contains(stream), let timeBase = timeBases[stream], timeBase.isValid else { return nil }
            return (timeBase.seconds(span.first), timeBase.seconds(span.end))
        }
        guard let start = ends.map(\.0).min(), let end = ends.map(\.1).max(), end > start else { return nil }
        return end - start
    }
}
