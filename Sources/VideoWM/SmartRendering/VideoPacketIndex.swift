/// The input's video packets as smart rendering needs them, read in one demux pass without
/// decoding: timestamps, sizes, key flags, the NAL unit types of each picture, and the
/// parameter sets the stream carries (docs/design/smart-rendering.md, section 2).
struct VideoPacketIndex: Sendable {
    /// Decode order, as the demuxer gives them.
    var packets: [IndexedVideoPacket]
    var decodeTimestamps: [Int64]
    var sizes: [Int]
    var timeBase: Rational
    /// The timestamp of the first picture shown: time zero for the marks' timelines.
    var firstPresentationTimestamp: Int64
    /// How H.264/HEVC NAL units are stored (nil for VP9).
    var framing: NALFraming?
    /// The input's parameter sets (VPS/SPS/PPS, raw): the sample entry's, else the first seen in band.
    var parameterSets: [NALUnit]
    /// H.264 `seq_parameter_set_id`s and `pic_parameter_set_id`s in use, so the encoder can take another.
    var usedH264ParameterSetIDs: Set<Int>
    /// The packets of the other streams asked for, by stream index, in the order read.
    var otherStreams: [Int: [StreamPacketTimes]] = [:]
    /// Where the file's timestamps jumped and were shifted to follow on (MPEG-TS), as `InputFile` says.
    var timestampJumps: [(atSeconds: Double, shiftSeconds: Double)] = []
    /// H.264: each packet's quantiser (its first slice's SliceQP_Y), nil where unknown; empty for other codecs.
    var quantisers: [Int?] = []

    /// Why a stream cannot be indexed for splicing (a reason for `--render`).
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case missingTimestamps
        case repeatedTimestamps
        case unreadableParameterSets

        var description: String {
            switch self {
            case .missingTimestamps: "some video packets have no timestamps"
            case .repeatedTimestamps: "two video packets share a presentation time"
            case .unreadableParameterSets: "the video's parameter sets cannot be read"
            }
        }
    }

    /// Reads every packet of `path`'s stream `streamIndex` (a file opened anew, so the caller's
    /// demuxer keeps its place). Throws `Refusal` for a stream the splice cannot handle, and the
    /// input's own errors for a file that cannot be read.
    /// - Parameters:
    ///   - codec: the video's codec, nil for one this tool does not encode (no NAL units read).
    ///   - reorderDelay: the stream's declared reordering delay (FFmpeg's `video_delay`), used
    ///     when decode timestamps must be made up.
    ///   - otherStreams: streams whose packets' timestamps are kept too (an HLS presentation's audio).
    static func read(path: String, streamIndex: Int, codec: VideoCodec?, reorderDelay: Int,
                     otherStreams: Set<Int> = []) throws -> VideoPacketIndex {
        let input = try InputFile(path: path)
        let stream = input.stream(streamIndex)
        let extradata = stream.extradata
        let framing: NALFraming?
        var parameterSets: [NALUnit] = []
        switch codec {
        case nil, .vp9?, .av1?:
            framing = nil
        case .some(let codec):
            if extradata.first == 1 {
                do {
                    if codec == .h264 {
                        let record = try AVCConfigurationRecord(extradata)
                        framing = .lengthPrefixed(bytes: record.lengthSize)
                        parameterSets = record.sequenceParameterSets + record.pictureParameterSets
                    } else {
                        guard extradata.count > 22 else { throw Refusal.unreadableParameterSets }
                        framing = .lengthPrefixed(bytes: Int(extradata[21] & 3) + 1)
                        parameterSets = try hevcRecordParameterSets(extradata)
                    }
                } catch is ParameterSetError {
                    throw Refusal.unreadableParameterSets
                }
            } else {
                framing = .annexB
                parameterSets = annexBUnits(extradata).filter { isParameterSet($0, codec: codec) }
            }
        }

        var index = VideoPacketIndex(packets: [], decodeTimestamps: [], sizes: [], timeBase: stream.timeBase,
                                     firstPresentationTimestamp: 0, framing: framing, parameterSets: parameterSets,
                                     usedH264ParameterSetIDs: [])
        var firstShown: Int64?
        var inBand: [NALUnit] = []
        var missingDecodeTimestamps = false
        var slices = codec == .h264 ? try? H264SliceRenumbering(parameterSets: parameterSets) : nil
        let packet = try Packet()
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == streamIndex else {
                if otherStreams.contains(packet.streamIndex) {
                    index.otherStreams[packet.streamIndex, default: []].append(
                        StreamPacketTimes(pts: packet.presentationTimestamp, dts: packet.decodeTimestamp, duration: packet.duration))
                }
                continue
            }
            try Interruption.throwIfRequested()
            guard let pts = packet.presentationTimestamp else { throw Refusal.missingTimestamps }
            if packet.decodeTimestamp == nil { missingDecodeTimestamps = true }
            var summary = PacketNALSummary()
            if let framing, let codec {
                var quantiser: Int?
                summary = packet.withBytes { bytes in
                    for range in nalUnitRanges(in: bytes, framing: framing) {
                        let type = codec.nalUnitType(ofHeaderByte: bytes[range.lowerBound])
                        if codec == .h264, type == 1 || type == 5 {
                            if quantiser == nil { quantiser = slices?.quantiser(ofSlice: UnsafeRawBufferPointer(rebasing: bytes[range])) }
                            continue
                        }
                        let unit = Array(bytes[range])
                        if isParameterSet(unit, codec: codec) && !inBand.contains(unit) {
                            inBand.append(unit)
                            if codec == .h264 { try? slices?.learn(unit) }
                        }
                    }
                    return PacketNALSummary(packet: bytes, framing: framing, codec: codec)
                }
                if codec == .h264 { index.quantisers.append(quantiser) }
            }
            index.packets.append(IndexedVideoPacket(pts: pts, duration: packet.duration, isKeyframe: packet.isKeyframe, nal: summary))
            index.decodeTimestamps.append(packet.decodeTimestamp ?? pts)
            index.sizes.append(packet.size)
            if !packet.isDiscarded { firstShown = min(firstShown ?? pts, pts) }
        }
        index.firstPresentationTimestamp = firstShown ?? index.packets.map(\.pts).min() ?? 0
        index.timestampJumps = input.timestampJumps
        if index.parameterSets.isEmpty { index.parameterSets = inBand }
        if codec == .h264 {
            for unit in index.parameterSets + inBand {
                if let id = H264ParameterSetIDs.id(of: unit) { index.usedH264ParameterSetIDs.insert(id) }
            }
        }
        index.fillDurationsFromTimestamps()
        if missingDecodeTimestamps { index.decodeTimestamps = try madeUpDecodeTimestamps(index.packets.map(\.pts), declaredDelay: reorderDelay) }
        return index
    }

    /// Makes each picture last until the next one is shown (the last keeps its stored duration,
    /// else the step before it): Matroska rounds block durations to its millisecond clock
    /// (33 ms for 1/30 s) and MPEG-TS often stores none, so shares of the video's length add up.
    private mutating func fillDurationsFromTimestamps() {
        let order = packets.indices.sorted { packets[$0].pts < packets[$1].pts }
        for (n, i) in order.enumerated() {
            if n + 1 < order.count {
                packets[i].duration = packets[order[n + 1]].pts - packets[i].pts
            } else if packets[i].duration <= 0, n > 0 {
                packets[i].duration = packets[i].pts - packets[order[n - 1]].pts
            }
        }
    }

    /// The frames a GOP spans at most: the encoder's keyframe interval, so random access stays as dense.
    var longestGOP: Int {
        var longest = 1, current = 0
        for packet in packets {
            if packet.isKeyframe { current = 0 }
            current += 1
            longest = max(longest, current)
        }
        return longest
    }

    /// The mean quantiser of `packetIndices` (H.264 slice QPs), nil when none is known.
    func meanQuantiser(of packetIndices: [Int]) -> Double? {
        let known = packetIndices.compactMap { $0 < quantisers.count ? quantisers[$0] : nil }
        return known.isEmpty ? nil : Double(known.reduce(0, +)) / Double(known.count)
    }

    /// The bit rate of `packetIndices` (bits per second of their own duration).
    func bitRate(of packetIndices: [Int]) -> Int {
        let bytes = packetIndices.reduce(0) { $0 + sizes[$1] }
        let ticks = packetIndices.reduce(Int64(0)) { $0 + max(packets[$1].duration, 0) }
        let seconds = timeBase.seconds(ticks)
        return seconds > 0 ? Int(Double(bytes * 8) / seconds) : 0
    }
}

/// One packet of a stream other than the video, as far as planning its segments needs.
struct StreamPacketTimes: Sendable, Equatable {
    var pts: Int64?
    var dts: Int64?
    var duration: Int64
}

/// Decode timestamps for a stream stored without them (Matroska keeps presentation times only):
/// the `d`-th earlier presentation time for the `i`-th packet in decode order, where `d` is the
/// reordering depth — the most pictures decoded before one and shown after it, measured here and
/// never below the stream's declared delay, which the re-encoded spans mirror. A picture is shown
/// no earlier than `d` places before its decode position, so no packet is decoded after it is shown.
func madeUpDecodeTimestamps(_ pts: [Int64], declaredDelay: Int) throws(VideoPacketIndex.Refusal) -> [Int64] {
    guard !pts.isEmpty else { return [] }
    let sorted = pts.sorted()
    guard zip(sorted, sorted.dropFirst()).allSatisfy({ $0 < $1 }) else { throw .repeatedTimestamps }
    var rank: [Int64: Int] = [:]
    for (n, p) in sorted.enumerated() { rank[p] = n }
    let measured = pts.enumerated().map { $0.offset - (rank[$0.element] ?? $0.offset) }.max() ?? 0
    let delay = max(measured, declaredDelay, 0)
    let step = sorted.count > 1 ? sorted[1] - sorted[0] : 1
    return pts.indices.map { i in i >= delay ? sorted[i - delay] : sorted[0] - Int64(delay - i) * step }
}

/// VPS, SPS or PPS.
func isParameterSet(_ unit: NALUnit, codec: VideoCodec) -> Bool {
    guard let first = unit.first, let type = codec.nalUnitType(ofHeaderByte: first) else { return false }
    switch codec {
    case .h264: return [7, 8].contains(type)
    case .hevc: return (32...34).contains(type)
    case .vp9, .av1: return false
    }
}
