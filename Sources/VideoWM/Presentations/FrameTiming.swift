import Animation

/// The pictures' times of a video whose packets carry no presentation timestamps (AVI stores
/// decode times only, a raw H.264 stream none): known only by decoding it, once, when the input
/// is indexed. Each picture gets the timestamp a transcode gives it (the decoder's best guess, or
/// the previous picture's plus its duration), so the presentation's cuts and marks fall where a
/// transcode of the same input puts them. Segments of such a presentation are made by decoding
/// from the start (`PresentationPlan.decodesFromStart`): nothing in the file says where to seek.
enum FrameTiming {
    /// Every picture's timestamp in presentation order, as `VideoPacketIndex` entries (one per
    /// picture, the first a keyframe), with the other streams' packet times.
    static func index(of path: String, videoStream index: Int, otherStreams: Set<Int>, threads: Int) throws -> VideoPacketIndex {
        let file = try InputFile(path: path)
        let stream = file.stream(index)
        let decoder = try Decoder(stream: stream, file: path, threads: threads)
        var times: [(pts: Int64, duration: Int64)] = []
        var lastPts: Int64?
        var lastDuration: Int64 = 0
        var others: [Int: [StreamPacketTimes]] = [:]
        let packet = try Packet()
        let frame = try Frame()
        func record(_ frame: Frame) {
            let duration = frame.packetDuration
            let pts = frame.bestEffortTimestamp ?? ((lastPts ?? -lastDuration) + lastDuration)
            lastPts = pts
            lastDuration = duration ?? lastDuration
            times.append((pts, duration ?? 0))
        }
        // Damage is the render's to count (its decode sees the same packets): here it is concealed.
        while try file.read(into: packet) {
            defer { packet.unref() }
            try Interruption.throwIfRequested()
            if packet.streamIndex == index {
                try decoder.decode(packet, into: frame, onDamage: { _, _ in }, onFrame: record)
            } else if otherStreams.contains(packet.streamIndex) {
                others[packet.streamIndex, default: []].append(
                    StreamPacketTimes(pts: packet.presentationTimestamp, dts: packet.decodeTimestamp, duration: packet.duration))
            }
        }
        try decoder.decode(nil, into: frame, onDamage: { _, _ in }, onFrame: record)
        guard let first = times.first else { throw MediaError(file: path, detail: "its video stream has no frame that can be decoded (truncated or damaged)") }
        var packets: [IndexedVideoPacket] = []
        for (n, time) in times.enumerated() {
            // Each picture lasts until the next one (the last as its packet says, else as the one before).
            let next = n + 1 < times.count ? times[n + 1].pts - time.pts : (time.duration > 0 ? time.duration : (n > 0 ? time.pts - times[n - 1].pts : 1))
            packets.append(IndexedVideoPacket(pts: time.pts, duration: max(next, 1), isKeyframe: n == 0))
        }
        var index = VideoPacketIndex(packets: packets, decodeTimestamps: packets.map(\.pts), sizes: Array(repeating: 0, count: packets.count),
                                     timeBase: stream.timeBase, firstPresentationTimestamp: first.pts, framing: nil, parameterSets: [],
                                     usedH264ParameterSetIDs: [])
        index.otherStreams = others
        index.timestampJumps = file.timestampJumps
        return index
    }
}
