import Animation

/// Cuts an HLS presentation's packets into segments: the `MuxerPacketRouter` of a fragmenting
/// `Muxer`.
///
/// A segment starts at a video keyframe chosen by the `CutRule` and covers the presentation
/// time up to the next one, for every stream: an audio packet belongs to the segment whose time
/// span holds its presentation time, so audio and video segments line up for players. Packets
/// arrive interleaved however their makers produce them (an encoder's packets come later than
/// the audio copied beside them), so a segment is muxed only once the video has reached the next
/// cut and every other stream has passed it — its bytes then depend on the packets and its
/// position alone, which is what lets identical segments of different rows of a batch be shared.
/// Each segment is muxed as one fragment (`moof` + `mdat`) of one continuous fragmented MP4, so
/// sequence numbers and decode times run on across segments as in one file.
final class HLSSegmenter: MuxerPacketRouter {
    /// Where segments start.
    enum CutRule: Sendable, Equatable {
        /// At the first video keyframe at or after each whole multiple of the interval, counted
        /// from the first keyframe. Re-encoding forces a keyframe on exactly those frames.
        case everyInterval(PresentationTime)
        /// At the video keyframes presented at these times (`SegmentBoundaries`), ascending: the
        /// same instants for every row of a batch.
        case atTimes([PresentationTime])
    }

    /// A finished segment's bytes and what its playlist entry needs.
    struct Segment {
        var bytes: [UInt8]
        var duration: PresentationTime
        /// Its first video packet is a keyframe no later picture of the segment is shown before.
        var startsIndependently: Bool
        /// Some video packet of it came from the encoder rather than from the input.
        var holdsReencodedVideo: Bool
    }

    /// Set before writing each video packet: whether it was re-encoded (the default) or copied.
    var videoPacketsAreReencoded = true

    private let muxer: Muxer
    private let rule: CutRule
    private let onInitialization: ([UInt8]) throws -> Void
    private let onSegment: (Segment) throws -> Void
    /// How far the video may run past a cut while another stream has not reached it (that
    /// stream ended early, or has no packets) before the segment is closed anyway.
    private let patience: PresentationTime

    private struct Pending {
        var packet: Packet
        var time: PresentationTime
        var decodeTime: PresentationTime
    }

    private struct VideoRun {
        var start: PresentationTime
        var packets: [Pending] = []
        var independent = true
        var reencoded = false
    }

    private var streams: [(type: MediaType, timeBase: Rational)] = []
    /// Open segments' video, the first being segment `written`.
    private var runs: [VideoRun] = []
    private var nextRuleIndex = 0
    private var origin: PresentationTime?
    private var intervals: IntervalBoundaries?
    private var others: [Pending] = []
    private var latestOtherTime: [Int: PresentationTime] = [:]
    private var latestVideoTime = PresentationTime.zero
    /// The latest picture's end as its packet says, and the picture shown before the latest
    /// (a packet without a duration ends where the frame interval before it says).
    private var videoEnd = PresentationTime.zero
    private var previousVideoTime: PresentationTime?
    private var seenVideo = false
    private var written = 0
    private var finished = false

    init(muxer: Muxer, rule: CutRule, onInitialization: @escaping ([UInt8]) throws -> Void,
         onSegment: @escaping (Segment) throws -> Void) {
        self.muxer = muxer
        self.rule = rule
        self.onInitialization = onInitialization
        self.onSegment = onSegment
        if case .everyInterval(let interval) = rule { intervals = IntervalBoundaries(interval: interval) }
        let target: PresentationTime
        switch rule {
        case .everyInterval(let interval): target = interval
        case .atTimes: target = PresentationTime(value: 10, timescale: 1)
        }
        patience = PresentationTime(value: 30, timescale: 1) + target + target + target
    }

    /// How many segments have been finished so far.
    var segmentCount: Int { written }

    func route(_ packet: Packet) throws {
        precondition(!finished, "a packet after the presentation was finished")
        if streams.isEmpty {
            // The header is written by now, so the time bases are final.
            streams = (0..<muxer.streamCount).map { muxer.streamKind($0) }
        }
        let (type, timeBase) = streams[packet.streamIndex]
        let kept = try packet.retained(file: muxer.target)
        let decodeTicks = packet.decodeTimestamp ?? packet.presentationTimestamp
        let ticks = packet.presentationTimestamp ?? decodeTicks
        if type == .video {
            let time = ticks.map { Self.time($0, timeBase) } ?? latestVideoTime
            let entry = Pending(packet: kept, time: time, decodeTime: decodeTicks.map { Self.time($0, timeBase) } ?? time)
            try addVideo(entry, isKeyframe: packet.isKeyframe, end: time + Self.time(max(packet.duration, 0), timeBase))
        } else {
            let time = ticks.map { Self.time($0, timeBase) } ?? latestVideoTime
            others.append(Pending(packet: kept, time: time, decodeTime: decodeTicks.map { Self.time($0, timeBase) } ?? time))
            latestOtherTime[packet.streamIndex] = max(latestOtherTime[packet.streamIndex] ?? time, time)
        }
        try closeReadySegments()
    }

    private func addVideo(_ entry: Pending, isKeyframe: Bool, end: PresentationTime) throws {
        if runs.isEmpty && written == 0 {
            origin = entry.time
            _ = intervals?.startsSegment(at: entry.time)
            runs.append(VideoRun(start: entry.time))
        } else if isKeyframe && startsSegment(at: entry.time) {
            runs.append(VideoRun(start: entry.time))
        }
        var run = runs[runs.count - 1]
        // A picture shown before the segment's first keyframe (an open GOP's leading picture)
        // needs the segment before: the segment cannot be decoded on its own.
        if entry.time < run.start || (run.packets.isEmpty && !isKeyframe) { run.independent = false }
        run.reencoded = run.reencoded || videoPacketsAreReencoded
        run.packets.append(entry)
        runs[runs.count - 1] = run
        if !seenVideo || entry.time > latestVideoTime {
            previousVideoTime = seenVideo ? latestVideoTime : nil
            latestVideoTime = entry.time
            seenVideo = true
        } else if entry.time < latestVideoTime && (previousVideoTime.map { entry.time > $0 } ?? true) {
            previousVideoTime = entry.time
        }
        videoEnd = max(videoEnd, end)
    }

    private func startsSegment(at time: PresentationTime) -> Bool {
        switch rule {
        case .everyInterval:
            return intervals!.startsSegment(at: time)
        case .atTimes(let times):
            while nextRuleIndex < times.count && times[nextRuleIndex] < time { nextRuleIndex += 1 }
            guard nextRuleIndex < times.count, times[nextRuleIndex] == time, time > (origin ?? time) else { return false }
            nextRuleIndex += 1
            return true
        }
    }

    /// Muxes every segment whose end is known and that no stream can add to any more.
    private func closeReadySegments() throws {
        while runs.count > 1 {
            let end = runs[1].start
            let othersPassed = streams.indices.allSatisfy { index in
                streams[index].type == .video || (latestOtherTime[index].map { $0 >= end } ?? false)
            }
            guard othersPassed || latestVideoTime - end > patience else { return }
            try emit(through: end)
        }
    }

    /// Ends the presentation: the last segment runs to the end of the last picture.
    func finish() throws {
        precondition(!finished, "finish twice")
        while runs.count > 1 { try emit(through: runs[1].start) }
        if !runs.isEmpty {
            let interval = previousVideoTime.map { latestVideoTime - $0 } ?? .zero
            try emit(through: max(videoEnd, latestVideoTime + interval, runs[0].start))
        }
        finished = true
    }

    private func emit(through end: PresentationTime) throws {
        let run = runs.removeFirst()
        let isLast = runs.isEmpty
        var mine: [Pending] = []
        var rest: [Pending] = []
        for entry in others {
            if isLast || entry.time < end { mine.append(entry) } else { rest.append(entry) }
        }
        others = rest
        // Each stream's packets in decode order; across streams by decode time (the bytes do
        // not depend on it: the muxer stores each track's samples together).
        let ordered = (run.packets + mine).enumerated().sorted {
            $0.element.decodeTime != $1.element.decodeTime ? $0.element.decodeTime < $1.element.decodeTime : $0.offset < $1.offset
        }
        for entry in ordered { try muxer.writeIntoFragment(entry.element.packet) }
        var bytes = try muxer.cutFragment()
        if written == 0 {
            // The muxer writes the initialization section on the first flush; the fragment may
            // come with it or with the next.
            if let length = bytes.withUnsafeBytes({ FragmentedMP4.initializationLength(of: $0) }), length == bytes.count {
                bytes += try muxer.cutFragment()
            }
            guard let length = bytes.withUnsafeBytes({ FragmentedMP4.initializationLength(of: $0) }), length > 0, length < bytes.count else {
                throw OutputError(file: muxer.target, stage: .writing, detail: "the MP4 muxer wrote no initialization section before the first fragment")
            }
            try onInitialization(Array(bytes[..<length]))
            bytes.removeFirst(length)
        }
        let start = written == 0 ? (run.packets.map(\.time).min() ?? run.start) : run.start
        try onSegment(Segment(bytes: bytes, duration: end - start, startsIndependently: run.independent, holdsReencodedVideo: run.reencoded))
        written += 1
    }

    private static func time(_ ticks: Int64, _ timeBase: Rational) -> PresentationTime {
        PresentationTime(value: ticks * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator))
    }
}
