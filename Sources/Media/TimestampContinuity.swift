/// Makes the timestamps of a file whose format allows discontinuities (MPEG-TS and the other
/// demuxers FFmpeg flags `AVFMT_TS_DISCONT`) follow on across a jump, as `ffmpeg` does
/// (fftools/ffmpeg.c, `-dts_delta_threshold`): two recordings joined with `cat`, a restarted
/// encoder, a broadcast splice.
///
/// One offset is added to every packet of every stream, so the streams stay in sync. An audio
/// or video packet whose decode time lands more than `threshold` after where its stream was
/// expected to go on, or before the stream's previous packet at all (decode times never go
/// back within a stream; MP4 and Matroska refuse them, where FFmpeg lets 0.1 s through),
/// starts a jump. The packets after it are read ahead until every other stream has jumped
/// too (its packets until then end the old stretch), and the offset moves by the least that
/// puts each stream's new start at or after its old end: the frames keep their order, no
/// stream overlaps itself (audio often starts a little before the video), and no frozen span
/// reaches the output. Times are kept in microseconds between streams, as FFmpeg does.
struct TimestampContinuity {
    /// A forward step larger than this is a jump (FFmpeg's default `-dts_delta_threshold` 10).
    static let threshold: Int64 = 10_000_000
    /// Packets read ahead at most to see every stream's new start.
    static let lookaheadLimit = 1000
    private static let microseconds = Rational(1, 1_000_000)

    /// What the continuity reads of a packet.
    struct Stamp {
        var stream: Int
        var timeBase: Rational
        var decodeTimestamp: Int64?
        var duration: Int64
        /// Audio or video: checked for jumps (subtitles and data are only shifted, their times are sparse).
        var isChecked: Bool
    }

    /// Microseconds added to every timestamp read from here on.
    private(set) var offset: Int64
    /// The offset before the first jump.
    let initialOffset: Int64
    /// Per stream index: the decode time (µs, corrected) the next packet should have, and the last one's.
    private var expected: [Int: Int64] = [:]
    private var previous: [Int: Int64] = [:]
    /// Where the timestamps jumped: the corrected time the stretch after the jump starts at and
    /// how far the offset moved then (both µs).
    private(set) var jumps: [(at: Int64, shift: Int64)] = []

    init(offset: Int64 = 0) {
        self.offset = offset
        initialOffset = offset
    }

    /// Corrects `first` and, when a jump starts there, the packets read ahead after it with
    /// `readMore` (nil: no more); returns each with the ticks (of its time base) to add, in
    /// the order read.
    mutating func corrections<Item>(first: Item, stamp: (Item) -> Stamp, readMore: () throws -> Item?) rethrows -> [(Item, Int64)] {
        let firstStamp = stamp(first)
        guard let start = jumpTime(firstStamp) else { return [(first, follow(firstStamp))] }
        // The streams still to jump; each one's packets until it does end the old stretch.
        var waiting = Set(expected.keys).subtracting([firstStamp.stream])
        var newStarts = [firstStamp.stream: start]
        var items: [(item: Item, stamp: Stamp, isNew: Bool, ticks: Int64)] = [(first, firstStamp, true, 0)]
        while !waiting.isEmpty, items.count < Self.lookaheadLimit, let next = try readMore() {
            let s = stamp(next)
            if waiting.contains(s.stream), let time = jumpTime(s) {
                waiting.remove(s.stream)
                newStarts[s.stream] = time
                items.append((next, s, true, 0))
            } else if waiting.contains(s.stream) {
                items.append((next, s, false, follow(s)))
            } else {
                items.append((next, s, true, 0))
            }
        }
        let shift = newStarts.map { stream, time in (expected[stream] ?? time) - time }.max() ?? 0
        offset += shift
        jumps.append((at: start + shift, shift: shift))
        return items.map { item in (item.item, item.isNew ? follow(item.stamp) : item.ticks) }
    }

    /// The packet's decode time (µs, with the current offset) when it starts a jump of its stream.
    private func jumpTime(_ stamp: Stamp) -> Int64? {
        guard stamp.isChecked, stamp.timeBase.isValid, let dts = stamp.decodeTimestamp,
              let next = expected[stamp.stream], let last = previous[stamp.stream] else { return nil }
        let time = stamp.timeBase.convert(dts, to: Self.microseconds) + offset
        return time - next > Self.threshold || time < last ? time : nil
    }

    /// Records the packet as its stream's latest (with the current offset); the ticks to add to it.
    private mutating func follow(_ stamp: Stamp) -> Int64 {
        guard stamp.timeBase.isValid else { return 0 }
        if stamp.isChecked, let dts = stamp.decodeTimestamp {
            let time = stamp.timeBase.convert(dts, to: Self.microseconds) + offset
            previous[stamp.stream] = time
            expected[stamp.stream] = time + max(stamp.timeBase.convert(stamp.duration, to: Self.microseconds), 0)
        }
        return offset == 0 ? 0 : Self.microseconds.convert(offset, to: stamp.timeBase)
    }

    /// Forgets where each stream was (after a seek, the next packets may lie anywhere); the
    /// offset stays.
    mutating func forgetPositions() {
        expected = [:]
        previous = [:]
    }
}
