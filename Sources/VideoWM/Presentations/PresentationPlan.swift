import Animation

/// How a presentation's video is made, the same for every segment (docs/design/hls.md §4, §11).
public enum PresentationRendering: String, Sendable, Equatable {
    /// Cut at the input's closed IDR pictures nearest each `--segment`; a segment on which no
    /// mark shows is the input's own packets (the same bytes for every row, stored once), a
    /// marked one is re-encoded whole by a fresh x264 on its own parameter-set id, IDR first,
    /// its pictures taking the input's decode times.
    case sharedCopies
    /// Cut at the first picture at or after each multiple of `--segment`; every segment is
    /// encoded from the input by an encoder of its own (the encode settings, an IDR first), so
    /// each is still made alone.
    case encoded
    /// No mark at all (a batch row whose every layer `unless` leaves out) on an input that cannot
    /// share: every segment is the input's packets, cut at the first keyframe at or after each
    /// multiple of `--segment`.
    case copied
}

/// One segment of a plan, as a playlist and a server see it.
public struct PlannedSegment: Sendable, Equatable {
    /// 0-based; the fragment's `mfhd` sequence number is `index + 1`.
    public let index: Int
    /// Where it starts on the marks' clock (the first picture at 0).
    public let start: PresentationTime
    /// Exact: the next segment's start minus this one's; the last runs to the last picture's end.
    public let duration: PresentationTime
}

/// Where a presentation's segments start and which input packets each needs, decided once from
/// the input's packet index and `--segment`, never from a row's marks: the same cuts for every
/// row (and every rendition of a ladder).
///
/// Segment k holds the pictures presented in `[cuts[k], cuts[k + 1])` and the other streams'
/// packets presented there; its output video packets take the positions (decode order)
/// `positions[k]`. Under `encoded` those are its pictures' indices in `pictureTimestamps`; under
/// `sharedCopies` a segment is a closed run of input packets, so the same range is also the input
/// packets it copies; under `copied` it is the run of input packets from its cut keyframe to the next.
struct PresentationPlan: Sendable, Equatable {
    let rendering: PresentationRendering
    /// The input video's time base: every timestamp here counts in it.
    let timeBase: Rational
    /// Time zero of the marks' clock: the first picture shown.
    let firstTimestamp: Int64
    /// Every picture's presentation timestamp, ascending.
    let pictureTimestamps: [Int64]
    /// Where the last picture ends (its timestamp plus its duration).
    let endTimestamp: Int64
    /// The presentation timestamp of each segment's first picture, ascending.
    let cuts: [Int64]
    /// Per segment, its output video packets' positions in decode order (see above).
    let positions: [Range<Int>]
    /// Per segment, whether its first picture decodes without an earlier segment and nothing in
    /// it is shown before it (`EXT-X-INDEPENDENT-SEGMENTS`).
    let independent: [Bool]
    /// Per segment, the input packets (decode order) a decoder is fed to have all its pictures:
    /// from a keyframe at or before its first picture that nothing before it is shown after, to
    /// the last packet presented inside it.
    let decodedPackets: [Range<Int>]
    /// The video's packets carry no presentation times (`FrameTiming`): pictures are known by
    /// their order, and a segment is made by decoding from the start (`decodedPackets` unused).
    var decodesFromStart = false

    var segmentCount: Int { cuts.count }

    /// `pts` on the marks' clock.
    func time(_ pts: Int64) -> PresentationTime {
        FrameClock.time(ofTimestamp: pts, firstTimestamp: firstTimestamp,
                        timeBaseNumerator: Int64(timeBase.numerator), timeBaseDenominator: Int64(timeBase.denominator))
    }

    /// The segment whose span holds `pts` (segment 0 also takes what comes before its start).
    func segment(containing pts: Int64) -> Int {
        var low = 0, high = cuts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if cuts[middle] <= pts { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Where segment `k` ends, in the input's time base.
    func end(of k: Int) -> Int64 { k + 1 < cuts.count ? cuts[k + 1] : endTimestamp }

    /// The playlist's view of every segment (the first starts with the first picture shown).
    var plannedSegments: [PlannedSegment] {
        cuts.indices.map { k in
            let start = time(k == 0 ? min(cuts[0], pictureTimestamps[0]) : cuts[k]), end = time(self.end(of: k))
            return PlannedSegment(index: k, start: start, duration: end - start)
        }
    }

    /// Why an input cannot be planned.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case noPictures
        case doesNotStartWithIDR

        var description: String {
            switch self {
            case .noPictures: "the input has no video packets"
            case .doesNotStartWithIDR: "the video does not start with an IDR picture"
            }
        }
    }

    /// The plan for the input's video packets `packets` (decode order).
    /// - Parameters:
    ///   - idr: per packet, whether it is an IDR picture (H.264/HEVC) or a key frame that resets
    ///     every reference (VP9, AV1); `sharedCopies` cuts only at those that close a stretch.
    ///   - target: `--segment`.
    static func make(_ rendering: PresentationRendering, packets: [IndexedVideoPacket], idr: (Int) -> Bool, timeBase: Rational,
                     firstTimestamp: Int64, target: PresentationTime) throws(Refusal) -> PresentationPlan {
        guard !packets.isEmpty else { throw .noPictures }
        let pictureTimestamps = packets.map(\.pts).sorted()
        let last = packets.indices.max { packets[$0].pts < packets[$1].pts } ?? 0
        let endTimestamp = packets[last].pts + max(packets[last].duration, 1)
        func time(_ pts: Int64) -> PresentationTime {
            FrameClock.time(ofTimestamp: pts, firstTimestamp: firstTimestamp,
                            timeBaseNumerator: Int64(timeBase.numerator), timeBaseDenominator: Int64(timeBase.denominator))
        }
        // prefixMaximum[i]: the latest picture among the packets before i (decode order).
        var prefixMaximum = [Int64](repeating: .min, count: packets.count + 1)
        for (i, packet) in packets.enumerated() { prefixMaximum[i + 1] = max(prefixMaximum[i], packet.pts) }
        var suffixMinimum = [Int64](repeating: .max, count: packets.count + 1)
        for i in stride(from: packets.count - 1, through: 0, by: -1) { suffixMinimum[i] = min(suffixMinimum[i + 1], packets[i].pts) }

        var cuts: [Int64]
        var cutPackets: [Int] = []
        switch rendering {
        case .sharedCopies:
            guard idr(0) else { throw .doesNotStartWithIDR }
            // A closed cut: everything decoded before it is shown before it, everything after at or after it.
            let closed = packets.indices.filter { i in
                idr(i) && prefixMaximum[i] < packets[i].pts && suffixMinimum[i] >= packets[i].pts
            }.map { packets[$0].pts }
            let ptsByTime = Dictionary(closed.map { (time($0), $0) }, uniquingKeysWith: { a, _ in a })
            cuts = SegmentBoundaries.plan(keyframes: closed.map(time), edges: [], end: time(endTimestamp), target: target)
                .compactMap { ptsByTime[$0] }
        case .encoded:
            var boundaries = IntervalBoundaries(interval: target)
            cuts = pictureTimestamps.filter { boundaries.startsSegment(at: time($0)) }
        case .copied:
            // Packets in decode order: the first starts the first segment, then each keyframe that
            // reaches the next boundary (as the encoder's forced keyframes would).
            var boundaries = IntervalBoundaries(interval: target)
            cutPackets = packets.indices.filter { i in
                (i == 0 || packets[i].isKeyframe) && boundaries.startsSegment(at: time(packets[i].pts))
            }
            cuts = cutPackets.map { packets[$0].pts }
        }

        var positions: [Range<Int>] = []
        var independent: [Bool] = []
        if rendering == .copied {
            for (k, start) in cutPackets.enumerated() {
                let end = k + 1 < cutPackets.count ? cutPackets[k + 1] : packets.count
                positions.append(start..<end)
                // A leading picture (shown before the keyframe) needs the segment before.
                independent.append(packets[start].isKeyframe && packets[start..<end].allSatisfy { $0.pts >= packets[start].pts })
            }
        } else {
            var next = 0
            for k in cuts.indices {
                let end = k + 1 < cuts.count ? cuts[k + 1] : Int64.max
                let start = next
                while next < pictureTimestamps.count && pictureTimestamps[next] < end { next += 1 }
                positions.append(start..<next)
                independent.append(true)
            }
        }

        // The last packet (decode order) presented in each segment, and a keyframe to start decoding at.
        var lastPacket = [Int](repeating: -1, count: cuts.count)
        func segment(containing pts: Int64) -> Int {
            var low = 0, high = cuts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if cuts[middle] <= pts { low = middle } else { high = middle - 1 }
            }
            return low
        }
        for (i, packet) in packets.enumerated() { lastPacket[segment(containing: packet.pts)] = i }
        let keyframes = packets.indices.filter { packets[$0].isKeyframe }
        var decodedPackets: [Range<Int>] = []
        for k in cuts.indices {
            // The latest keyframe shown at or before the cut that no earlier packet is shown after.
            let start = keyframes.last { packets[$0].pts <= cuts[k] && prefixMaximum[$0] < cuts[k] } ?? 0
            decodedPackets.append(start..<max(start, lastPacket[k]) + 1)
        }
        return PresentationPlan(rendering: rendering, timeBase: timeBase, firstTimestamp: firstTimestamp,
                                pictureTimestamps: pictureTimestamps, endTimestamp: endTimestamp, cuts: cuts,
                                positions: positions, independent: independent, decodedPackets: decodedPackets)
    }

    /// The decode times of an encoded presentation's video, by output position: each picture
    /// position takes the presentation time `reorderDelay` places earlier (what one continuous
    /// encoder with that delay writes), the first positions stepping back from the first picture.
    /// So every segment's packets have their decode times from the plan, whoever encodes them.
    func encodedDecodeTimestamps(reorderDelay: Int) -> [Int64] {
        let t = pictureTimestamps
        let step = t.count > 1 ? max(t[1] - t[0], 1) : max(endTimestamp - t[0], 1)
        return t.indices.map { j in j >= reorderDelay ? t[j - reorderDelay] : t[0] - Int64(reorderDelay - j) * step }
    }
}
