import Animation

/// Reads the input packets segments of a presentation need: the video packets at a range of
/// decode positions, and each carried stream's packets presented inside the segment's span
/// (segment 0 also takes what comes before its start, the last what comes after).
///
/// Asked for segments in order (a whole presentation), it reads the file once from the start and
/// keeps what it read ahead (the next segment's first audio, a GOP a later segment decodes
/// again). Asked for one segment (`render(segment:)`), it seeks to the keyframe the segment's
/// packets start at; the packet index says exactly which packets the segment holds, so a seek
/// that lands too late is noticed, and the segment is then read from the start instead.
final class SegmentReader {
    /// The packets of one segment.
    struct Packets {
        /// Video packets of the asked decode positions, in decode order.
        var video: [Packet] = []
        /// Per carried track (in `PresentationSource.tracks` order), its packets in decode order.
        var tracks: [[Packet]]
    }

    private let source: PresentationSource
    private let plan: PresentationPlan
    private var input: InputFile
    let videoStream: InputStream
    private let trackOfStream: [Int: Int]
    /// Per track, the segment of each of its packets in file order, and how many each segment holds.
    private let expectedCounts: [[Int]]
    /// The decode position of each video presentation timestamp (its first packet), to place a seek.
    private let positionOfTimestamp: [Int64: Int]
    /// The decode position of the next video packet read; nil right after a seek.
    private var nextPosition: Int? = 0
    private var aheadVideo: [(position: Int, packet: Packet)] = []
    private var aheadTracks: [(track: Int, segment: Int, packet: Packet)] = []
    private var atEnd = false

    init(source: PresentationSource, plan: PresentationPlan) throws {
        self.source = source
        self.plan = plan
        input = try InputFile(path: source.input)
        videoStream = input.stream(source.videoStream)
        var trackOfStream: [Int: Int] = [:]
        var expected: [[Int]] = []
        for (n, track) in source.tracks.enumerated() {
            trackOfStream[track.stream] = n
            let timeBase = input.stream(track.stream).timeBase
            var counts = [Int](repeating: 0, count: plan.segmentCount)
            var previous: Int64?
            for times in source.index.otherStreams[track.stream] ?? [] {
                let ticks = times.pts ?? times.dts ?? previous ?? Int64.min
                previous = ticks
                counts[plan.segment(containing: ticks, in: timeBase)] += 1
            }
            expected.append(counts)
        }
        self.trackOfStream = trackOfStream
        expectedCounts = expected
        var positions: [Int64: Int] = [:]
        for (i, packet) in source.index.packets.enumerated() where positions[packet.pts] == nil { positions[packet.pts] = i }
        positionOfTimestamp = positions
    }

    /// Keeps no video packet read ahead before decode position `position` (a whole presentation's
    /// later segments never go back further).
    func forget(before position: Int) {
        aheadVideo.removeAll { $0.position < position }
    }

    /// The packets of segment `k`: video packets at decode positions `video`, and every carried
    /// track's packets presented in the segment. Video packets from `keepFrom` on are also kept
    /// for the next call (a later segment decodes them again). `seeking` lets the reader jump to
    /// the segment rather than read up to it.
    func packets(ofSegment k: Int, video: Range<Int>, keepFrom: Int, seeking: Bool) throws -> Packets {
        let readAlready = aheadVideo.first?.position ?? nextPosition ?? 0
        var sought = false
        if seeking && source.seeksToSegments, video.lowerBound != readAlready || nextPosition == nil {
            sought = try seek(toPosition: video.lowerBound)
        }
        if let packets = try collect(k, video: video, keepFrom: keepFrom, afterSeek: sought) { return packets }
        // The seek landed after some of the segment's packets: read it from the start instead.
        try restart()
        guard let packets = try collect(k, video: video, keepFrom: keepFrom, afterSeek: false) else {
            throw MediaError(file: source.input, detail: "segment \(k + 1)'s packets are not where the index of the file found them")
        }
        return packets
    }

    /// Seeks to the keyframe at `position`; false when it read from the start instead.
    private func seek(toPosition position: Int) throws -> Bool {
        guard position > 0 else {
            try restart()
            return false
        }
        aheadVideo = []
        aheadTracks = []
        atEnd = false
        if input.seek(videoStream, toKeyframeBefore: source.index.packets[position].pts) {
            nextPosition = nil
            return true
        }
        try restart()
        return false
    }

    private func restart() throws {
        input = try InputFile(path: source.input)
        nextPosition = 0
        aheadVideo = []
        aheadTracks = []
        atEnd = false
    }

    /// Reads until segment `k` is complete. Nil when, after a seek, what was read shows some of
    /// its packets lie before where the seek landed.
    private func collect(_ k: Int, video range: Range<Int>, keepFrom: Int, afterSeek: Bool) throws -> Packets? {
        var result = Packets(tracks: Array(repeating: [], count: source.tracks.count))
        var trackFound = [Int](repeating: 0, count: source.tracks.count)
        var missed = false
        func take(position: Int, packet: Packet) {
            if range.contains(position) {
                if position != range.lowerBound + result.video.count { missed = true }
                result.video.append(packet)
            }
            if position >= keepFrom || position >= range.upperBound { aheadVideo.append((position, packet)) }
        }
        func take(track: Int, segment: Int, packet: Packet) {
            if segment == k {
                result.tracks[track].append(packet)
                trackFound[track] += 1
            } else if segment > k {
                // After a seek, a later segment's packet before all of this one's: those were skipped.
                if afterSeek && trackFound[track] < expectedCounts[track][k] { missed = true }
                aheadTracks.append((track, segment, packet))
            }
        }
        let video = aheadVideo
        aheadVideo = []
        for (position, packet) in video { take(position: position, packet: packet) }
        let tracks = aheadTracks
        aheadTracks = []
        for (track, segment, packet) in tracks { take(track: track, segment: segment, packet: packet) }

        func complete() -> Bool {
            result.video.count >= range.count && trackFound.indices.allSatisfy { trackFound[$0] >= expectedCounts[$0][k] }
        }
        while !complete() && !atEnd && !missed {
            try Interruption.throwIfRequested()
            let packet = try Packet()
            guard try input.read(into: packet) else {
                atEnd = true
                break
            }
            let stream = packet.streamIndex
            if stream == source.videoStream {
                let position: Int
                if let next = nextPosition {
                    position = next
                } else {
                    // The first video packet after a seek: where the index has its timestamp.
                    guard let pts = packet.presentationTimestamp, let found = positionOfTimestamp[pts], found <= range.lowerBound else { return nil }
                    position = found
                }
                nextPosition = position + 1
                take(position: position, packet: packet)
            } else if let track = trackOfStream[stream] {
                let ticks = packet.presentationTimestamp ?? packet.decodeTimestamp ?? Int64.min
                take(track: track, segment: plan.segment(containing: ticks, in: input.stream(stream).timeBase), packet: packet)
            }
        }
        if missed || result.video.count != range.count { return afterSeek ? nil : (missed ? nil : result) }
        if afterSeek && !complete() { return nil }
        return result
    }
}

extension PresentationPlan {
    /// The segment whose span holds `ticks` of another stream's time base (`timeBase`).
    func segment(containing ticks: Int64, in timeBase: Rational) -> Int {
        guard ticks != Int64.min else { return 0 }
        let time = PresentationTime(value: ticks * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator))
        func cutTime(_ k: Int) -> PresentationTime {
            PresentationTime(value: cuts[k] * Int64(self.timeBase.numerator), timescale: Int64(self.timeBase.denominator))
        }
        var low = 0, high = cuts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if cutTime(middle) <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
