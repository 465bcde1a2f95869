/// A presentation's initialization segment (`ftyp` + `moov`), written by FFmpeg's MP4 muxer in
/// fragmented mode, and the track layout the media segments follow.
///
/// The muxer is kept for this part because the `moov` is where the codec-specific work lies
/// (avcC/hvcC from an encoder's Annex B header, esds from ADTS, vpcC, dOps, dac3…). With
/// `delay_moov` it writes the `moov` when the first fragment is cut, so its edit lists see where
/// each track starts — the B-frame delay, AAC priming (docs/design/hls.md §2) — and it needs nothing
/// but segment 0's packets: every duration in it is zero, as a fragmented file's are. The
/// fragment it cuts is dropped; media segments are ours (`MediaSegmentWriter`), timed on the
/// tracks' timescales the muxer chose (`TrackLayout`).
enum InitializationSegment {
    /// The tracks' time bases (read back from the muxer once its header is written) and the
    /// decode time each media timeline starts at.
    static func layout(for row: PresentationRow) throws -> TrackLayout {
        let (muxer, input) = try muxer(for: row)
        var timeBases: [Rational] = []
        var starts: [Int64] = []
        // A ladder's tracks all count from its one origin (floored: no sample before it).
        func origin(in timeBase: Rational) -> Int64? {
            row.shape.map { timeBase.ticks(flooring: $0.timelineOrigin) }
        }
        if row.carriesVideo {
            let video = row.plan.timeBase
            timeBases.append(muxer.streamKind(0).timeBase)
            starts.append(origin(in: timeBases[0]) ?? video.convert(row.decodeTimestamps[0], to: timeBases[0]))
        }
        for t in row.carriedTracks {
            let track = row.source.tracks[t]
            let timeBase = muxer.streamKind(timeBases.count).timeBase
            timeBases.append(timeBase)
            if let start = origin(in: timeBase) {
                starts.append(start)
            } else if track.reencoder != nil {
                let audio = try row.encodedAudio(track: t)
                let first = audio.packets.first.flatMap { $0.decodeTimestamp ?? $0.presentationTimestamp } ?? 0
                starts.append(audio.timeBase.convert(first, to: timeBase))
            } else {
                let first = row.source.index.otherStreams[track.stream]?.first.flatMap { $0.dts ?? $0.pts } ?? 0
                starts.append(input.stream(track.stream).timeBase.convert(first, to: timeBase))
            }
        }
        return TrackLayout(timeBases: timeBases, startDecodeTimestamps: starts)
    }

    /// The initialization segment's bytes, from segment 0's packets per track (video first),
    /// each in its maker's time base (the video's with the plan's decode times).
    static func bytes(for row: PresentationRow, firstSegmentPackets: [[Packet]]) throws -> [UInt8] {
        let (muxer, input) = try muxer(for: row)
        var timed: [(time: Double, order: Int, track: Int, timeBase: Rational, packet: Packet)] = []
        let videoTimeBase = row.plan.timeBase
        if row.carriesVideo {
            for (i, packet) in firstSegmentPackets[0].enumerated() {
                let copy = try packet.retained(file: row.source.input)
                copy.decodeTimestamp = row.decodeTimestamps[row.plan.positions[0].lowerBound + i]
                timed.append((videoTimeBase.seconds(copy.decodeTimestamp ?? 0), timed.count, 0, videoTimeBase, copy))
            }
        }
        let firstTrack = row.carriesVideo ? 1 : 0
        for (n, t) in row.carriedTracks.enumerated() where firstTrack + n < firstSegmentPackets.count {
            let track = row.source.tracks[t]
            let timeBase = track.reencoder != nil ? try row.encodedAudio(track: t).timeBase : input.stream(track.stream).timeBase
            for packet in firstSegmentPackets[firstTrack + n] {
                let copy = try packet.retained(file: row.source.input)
                timed.append((timeBase.seconds(copy.decodeTimestamp ?? copy.presentationTimestamp ?? 0), timed.count, firstTrack + n, timeBase, copy))
            }
        }
        // Each track in decode order, across tracks by decode time, as a muxer is fed.
        timed.sort { $0.time != $1.time ? $0.time < $1.time : $0.order < $1.order }
        for entry in timed {
            entry.packet.rescale(from: entry.timeBase, to: muxer.streamKind(entry.track).timeBase)
            entry.packet.streamIndex = entry.track
            entry.packet.clearPosition()
            try muxer.writeIntoFragment(entry.packet)
        }
        var bytes = try muxer.cutFragment()
        // With a delayed moov the first cut may hold the initialization section alone.
        if let length = bytes.withUnsafeBytes({ FragmentedMP4.initializationLength(of: $0) }), length == bytes.count {
            bytes += try muxer.cutFragment()
        }
        guard let length = bytes.withUnsafeBytes({ FragmentedMP4.initializationLength(of: $0) }), length > 0 else {
            throw OutputError(file: row.source.input, stage: .writing, detail: "the MP4 muxer wrote no initialization section")
        }
        return Array(bytes[..<length])
    }

    /// A fragmenting MP4 muxer with the row's tracks, its header written.
    private static func muxer(for row: PresentationRow) throws -> (Muxer, InputFile) {
        let source = row.source
        let input = try InputFile(path: source.input)
        let stream = input.stream(source.videoStream)
        let muxer = try Muxer(fragmentedMP4Named: source.input)
        if row.carriesVideo {
            switch row.rendering {
            case .sharedCopies:
                guard case .success(let shared) = source.sharedPlan else { preconditionFailure("sharedCopies without its set-up") }
                _ = try muxer.addSplicedVideoStream(copying: stream, extradata: shared.sampleDescription, tag: nil)
            case .copied:
                _ = try muxer.addStream(copying: stream)
            case .encoded:
                // A ladder's rendition has its encoder set-up even when this row re-encodes nothing.
                let setup = try row.video?.setup ?? source.videoSetup(.encoded, picture: row.shape?.picture)
                _ = try muxer.addVideoStream(encodedBy: setup.header, replacing: stream)
            }
        }
        for t in row.carriedTracks {
            let track = source.tracks[t]
            if track.reencoder != nil {
                _ = try row.encodedAudio(track: t).reencoder.addStream(to: muxer, replacing: input.stream(track.stream))
            } else {
                _ = try muxer.addStream(copying: input.stream(track.stream))
            }
        }
        muxer.copyMetadataAndChapters(from: input)
        for (key, value) in source.settings.tags.sorted(by: { $0.key < $1.key }) { try muxer.setTag(key, to: value) }
        var options = muxerOptions(for: muxer, videoTimeBase: stream.timeBase)
        // A ladder's tracks share one media timeline (RenditionShape.timelineOrigin): no edit list
        // may move one of them on it.
        if row.shape != nil { options["use_editlist"] = "0" }
        try muxer.writeHeader(options: options)
        return (muxer, input)
    }
}
