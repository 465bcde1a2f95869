import Animation
import Foundation

/// Makes the segments of one plan for the rows that follow it: reads each segment's packets
/// once (`SegmentReader`), decodes its GOPs once when some row re-encodes it, hands every
/// picture to each such row's encoder for that segment, and writes each row's fMP4 segment
/// (`MediaSegmentWriter`). A segment that no row re-encodes is never decoded.
///
/// Each segment is made the same way whether it is asked for alone or as part of the whole
/// presentation: decoding starts at the keyframe the plan names for it and is drained at its
/// end, every re-encoded segment has an encoder of its own, and every timestamp comes from the
/// plan — so the bytes do not depend on what was made before.
final class SegmentMaker {
    /// One row's segment, and (when asked) the packets its tracks were made of, as a muxer takes
    /// them (for the initialization segment, which FFmpeg's MP4 muxer makes from segment 0's).
    struct Made {
        let segment: RenderedSegment
        let packets: [[Packet]]
    }

    let source: PresentationSource
    let plan: PresentationPlan
    let rows: [PresentationRow]
    let reader: SegmentReader
    var decoder: Decoder?
    /// Damaged packets or pictures the decoder concealed, in what the segments used.
    var damagedPackets = 0
    /// Per carried track, the index (file order) of each segment's first packet.
    private let trackOffsets: [[Int]]

    init(source: PresentationSource, plan: PresentationPlan, rows: [PresentationRow]) throws {
        // A ladder's renditions follow one plan made in different ways (issue 25): the same segments of the same pictures.
        precondition(rows.allSatisfy { $0.plan == plan || ($0.shape != nil && $0.plan.hasSameSegments(as: plan)) }, "rows made together follow one plan")
        self.source = source
        self.plan = plan
        self.rows = rows
        reader = try SegmentReader(source: source, plan: plan)
        var offsets: [[Int]] = []
        for track in source.tracks {
            let timeBase = reader.videoStream.file.stream(track.stream).timeBase
            var counts = [Int](repeating: 0, count: plan.segmentCount + 1)
            var previous: Int64?
            for times in source.index.otherStreams[track.stream] ?? [] {
                let ticks = times.pts ?? times.dts ?? previous ?? Int64.min
                previous = ticks
                counts[plan.segment(containing: ticks, in: timeBase) + 1] += 1
            }
            for k in 1..<counts.count { counts[k] += counts[k - 1] }
            offsets.append(counts)
        }
        trackOffsets = offsets
    }

    /// The input video packets segment `k` reads: those it copies, or those decoded for its pictures.
    private func inputPackets(of k: Int, seeking: Bool) -> Range<Int> {
        // Decoded in one run, the video is read by the decoder's own reader (`ContinuousDecoding`).
        if decodesContinuously(seeking: seeking) { return 0..<0 }
        return plan.rendering == .encoded ? plan.decodedPackets[k] : plan.positions[k]
    }

    /// Whether the video is decoded in one run from the start rather than segment by segment: a
    /// video without presentation times always; a whole encoded presentation too, since every
    /// segment is re-encoded and a run decodes each GOP once, where segment by segment a cut
    /// inside a GOP would decode its first part twice. The pictures are the same either way: a
    /// picture's pixels depend only on the packets from its keyframe on.
    private func decodesContinuously(seeking: Bool) -> Bool {
        plan.decodesFromStart || (plan.rendering == .encoded && !seeking)
    }

    /// The one run of the decoder, when the video is decoded so.
    var continuous: ContinuousDecoding?

    /// Segment `k` for every row (in `rows` order): a row whose own work fails gets its error
    /// and the others go on; a failure of the input itself is thrown.
    /// - Parameters:
    ///   - seeking: jump to the segment (one asked alone) rather than read on from the last.
    ///   - keepingPackets: also return the packets each track was made of.
    func render(segment k: Int, seeking: Bool, keepingPackets: Bool = false) throws -> [Result<Made, Error>] {
        try render(segment: k, seeking: seeking, keepingPackets: keepingPackets, only: nil).compactMap { $0 }
    }

    /// Segment `k` for the rows `only` lists (by position in `rows`; nil: every row), nil for the
    /// others: a ladder makes a rendition's segment only where some student needs it, and never
    /// asks an encoded rendition's row for a segment it does not re-encode.
    func render(segment k: Int, seeking: Bool, keepingPackets: Bool, only: Set<Int>?) throws -> [Result<Made, Error>?] {
        let asked = only ?? Set(rows.indices)
        let keepFrom = k + 1 < plan.segmentCount && !decodesContinuously(seeking: seeking) ? inputPackets(of: k + 1, seeking: seeking).lowerBound : Int.max
        let packets = try reader.packets(ofSegment: k, video: inputPackets(of: k, seeking: seeking), keepFrom: keepFrom, seeking: seeking)
        var encoders: [Int: SegmentEncoder] = [:]
        var failures: [Int: Error] = [:]
        for (n, row) in rows.enumerated() where row.reencodes[k] && asked.contains(n) {
            guard let making = row.video else { preconditionFailure("a row re-encodes without its encoder set-up") }
            do {
                encoders[n] = try SegmentEncoder(making: making, plan: plan, file: source.input)
            } catch {
                failures[n] = error
            }
        }
        var decoded = 0
        if !encoders.isEmpty {
            // Rows that convert pictures alike (a ladder rendition's variants and students: one
            // size, one format) share one conversion of each picture, and each draws on a copy.
            var conversionCounts: [FrameMarker.Conversion: Int] = [:]
            for encoder in encoders.values { conversionCounts[encoder.conversion, default: 0] += 1 }
            let shared = Set(conversionCounts.filter { $0.value > 1 }.keys)
            let exclusive = encoders.count == 1
            let onPicture = { (frame: Frame, pts: Int64) in
                var converted: [FrameMarker.Conversion: Frame] = [:]
                var marked: [SideBySideEncodes.Picture] = []
                for (n, encoder) in encoders.sorted(by: { $0.key < $1.key }) where failures[n] == nil {
                    do {
                        let conversion = encoder.conversion
                        guard shared.contains(conversion) else {
                            marked.append(.init(row: n, encoder: encoder, frame: try encoder.mark(frame, pts: pts, exclusive: exclusive)))
                            continue
                        }
                        let picture = try converted[conversion] ?? encoder.converted(frame, pts: pts)
                        converted[conversion] = picture
                        marked.append(.init(row: n, encoder: encoder, frame: try encoder.mark(picture, pts: pts, exclusive: false, converted: true)))
                    } catch {
                        failures[n] = error
                    }
                }
                for (n, error) in SideBySideEncodes.encode(marked, exclusive: exclusive) { failures[n] = error }
            }
            decoded = decodesContinuously(seeking: seeking) ? try decodeContinuously(segment: k, onPicture: onPicture)
                                                             : try decode(packets.video, segment: k, onPicture: onPicture)
            for (n, error) in SideBySideEncodes.finish(encoders.filter { failures[$0.key] == nil }) { failures[n] = error }
        }
        var shared: Result<Made, Error>?
        var results: [Result<Made, Error>?] = []
        for (n, row) in rows.enumerated() {
            guard asked.contains(n) else {
                results.append(nil)
                continue
            }
            if let failure = failures[n] {
                results.append(.failure(failure))
                continue
            }
            // An encoded plan's segment is never the input's packets. A variant lecture's row outside
            // its own segments gets NotOwnSegment (the lecture's shared render of its variant is its
            // segment there); a ladder's encoded rendition never asks for one (its rows make their own).
            if encoders[n] == nil && (plan.rendering == .encoded || row.rendering == .encoded) && row.carriesVideo {
                precondition(row.shape == nil, "an encoded rendition's row asked for a segment it does not make")
                results.append(.failure(NotOwnSegment()))
                continue
            }
            // A copied segment is the same for every row of the plan: made once (a ladder's rows
            // differ in their tracks, and make their own).
            if encoders[n] == nil, row.shape == nil, let shared {
                results.append(shared)
                continue
            }
            let made = Result(catching: {
                try self.segment(k, of: row, packets: packets, encoder: encoders[n], decodedPictures: encoders[n] == nil ? 0 : decoded,
                                 keepingPackets: keepingPackets)
            })
            if encoders[n] == nil && row.shape == nil { shared = made }
            results.append(made)
        }
        return results
    }

    /// Row `row`'s segment `k`: its video (copied from `packets`, or what `encoder` made) and
    /// every carried track, in one fMP4 fragment.
    private func segment(_ k: Int, of row: PresentationRow, packets: SegmentReader.Packets, encoder: SegmentEncoder?,
                         decodedPictures: Int, keepingPackets: Bool) throws -> Made {
        let layout = try row.trackLayout()
        var tracks: [MediaSegmentWriter.Track] = []
        var kept: [[Packet]] = []
        let videoTimeBase = plan.timeBase
        let positions = plan.positions[k]
        var videoPackets: [Packet]
        var converts: ((Packet) throws -> [UInt8])?
        if let encoder {
            videoPackets = try encoder.finish()
            if row.rendering == .sharedCopies, videoPackets.count != positions.count {
                throw OutputError(file: source.input, stage: .writing,
                                  detail: "segment \(k + 1): \(videoPackets.count) pictures re-encoded for \(positions.count) input packets")
            }
            if videoPackets.count > positions.count {
                throw OutputError(file: source.input, stage: .writing, detail: "segment \(k + 1): the encoder gave \(videoPackets.count) packets for \(positions.count) pictures")
            }
            converts = encoder.sampleBytes
        } else {
            videoPackets = packets.video
        }
        if keepingPackets && row.carriesVideo { kept.append(videoPackets) }
        if !row.carriesVideo { videoPackets = [] }
        var video = MediaSegmentWriter.Track(id: 1, baseDecodeTime: 0)
        let trackBase = layout.timeBases[0]
        let timestamps = row.decodeTimestamps
        for (i, packet) in videoPackets.enumerated() {
            let position = positions.lowerBound + i
            let dts = videoTimeBase.convert(timestamps[position], to: trackBase)
            let pts = videoTimeBase.convert(packet.presentationTimestamp ?? timestamps[position], to: trackBase)
            if i == 0 { video.baseDecodeTime = try mediaTime(dts, start: layout.startDecodeTimestamps[0], track: "video", segment: k) }
            let next: Int64
            if i + 1 < videoPackets.count {
                next = videoTimeBase.convert(timestamps[position + 1], to: trackBase)
            } else if positions.upperBound < timestamps.count {
                next = videoTimeBase.convert(timestamps[positions.upperBound], to: trackBase)
            } else {
                // The presentation's last sample lasts as long as its picture.
                next = dts + max(videoTimeBase.convert(plan.endTimestamp, to: trackBase) - max(pts, dts), 1)
            }
            guard pts >= dts || encoder == nil else {
                throw OutputError(file: source.input, stage: .writing, detail: "segment \(k + 1): a re-encoded picture (pts \(pts)) would be decoded at \(dts), after it is shown")
            }
            let bytes = try converts?(packet)
            let append = { (raw: UnsafeRawBufferPointer) in
                video.append(raw, duration: UInt32(clamping: max(next - dts, 0)), compositionOffset: Int32(clamping: pts - dts), isSync: packet.isKeyframe)
            }
            if let bytes { bytes.withUnsafeBytes(append) } else { packet.withBytes(append) }
        }
        if row.carriesVideo { tracks.append(video) }

        for t in row.carriedTracks {
            let other = source.tracks[t]
            let position = tracks.count
            let trackPackets: [Packet]
            let timeBase: Rational
            let next: Int64?
            var copied: InputStream?
            if other.reencoder != nil {
                let audio = try row.encodedAudio(track: t)
                timeBase = audio.timeBase
                let (range, following) = audio.packets(ofSegment: k, plan: plan)
                trackPackets = Array(audio.packets[range])
                next = following.flatMap { $0.decodeTimestamp ?? $0.presentationTimestamp }
            } else {
                let stream = reader.videoStream.file.stream(other.stream)
                copied = stream
                trackPackets = packets.tracks[t]
                timeBase = stream.timeBase
                let all = source.index.otherStreams[other.stream] ?? []
                let after = trackOffsets[t][k + 1]
                next = after < all.count ? (all[after].dts ?? all[after].pts) : nil
            }
            if keepingPackets { kept.append(trackPackets) }
            tracks.append(try trackFragment(trackPackets, id: UInt32(position + 1), copiedFrom: copied, timeBase: timeBase,
                                            trackBase: layout.timeBases[position], start: layout.startDecodeTimestamps[position],
                                            nextDecodeTimestamp: next, segment: k))
        }
        let bytes = MediaSegmentWriter.segment(sequenceNumber: UInt32(k + 1), tracks: tracks)
        let planned = plan.plannedSegments[k]
        let rendered = RenderedSegment(index: k, bytes: bytes, duration: planned.duration, isShared: encoder == nil,
                                       decodedPictures: decodedPictures, encodedPictures: encoder == nil ? 0 : videoPackets.count,
                                       videoSamples: videoPackets.count)
        return Made(segment: rendered, packets: kept)
    }

    /// A carried track's part of a segment: its packets' bytes as MP4 stores them (ADTS headers
    /// dropped), timed on the track's media timeline.
    /// - Parameter copiedFrom: the input stream of a copied track (its packets may need the filter
    ///   FFmpeg's MP4 muxer would apply); nil for re-encoded audio.
    private func trackFragment(_ packets: [Packet], id: UInt32, copiedFrom stream: InputStream?, timeBase: Rational, trackBase: Rational,
                               start: Int64, nextDecodeTimestamp: Int64?, segment k: Int) throws -> MediaSegmentWriter.Track {
        var track = MediaSegmentWriter.Track(id: id, baseDecodeTime: 0)
        guard let first = packets.first else { return track }
        var filtered = packets
        if let stream, let name = first.withBytes({ BitstreamFilter.mp4FilterName(codec: stream.codec, firstPacket: $0, extradata: stream.extradata) }) {
            let filter = try BitstreamFilter(name: name, stream: stream, file: source.input)
            filtered = try packets.flatMap { try filter.filter($0) } + filter.filter(nil)
        }
        var previousDuration: Int64 = 0
        for (i, packet) in filtered.enumerated() {
            let dts = timeBase.convert(packet.decodeTimestamp ?? packet.presentationTimestamp ?? 0, to: trackBase)
            let pts = timeBase.convert(packet.presentationTimestamp ?? packet.decodeTimestamp ?? 0, to: trackBase)
            if i == 0 { track.baseDecodeTime = try mediaTime(dts, start: start, track: "track \(id)", segment: k) }
            var duration: Int64
            if i + 1 < filtered.count {
                let following = filtered[i + 1]
                duration = timeBase.convert(following.decodeTimestamp ?? following.presentationTimestamp ?? 0, to: trackBase) - dts
            } else if let nextDecodeTimestamp {
                duration = timeBase.convert(nextDecodeTimestamp, to: trackBase) - dts
            } else {
                duration = timeBase.convert(packet.duration, to: trackBase)
            }
            if duration <= 0 { duration = previousDuration }
            previousDuration = duration
            packet.withBytes {
                track.append($0, duration: UInt32(clamping: duration), compositionOffset: Int32(clamping: pts - dts), isSync: true)
            }
        }
        return track
    }

    private func mediaTime(_ dts: Int64, start: Int64, track: String, segment k: Int) throws -> UInt64 {
        guard dts >= start else {
            throw OutputError(file: source.input, stage: .writing, detail: "segment \(k + 1): its \(track) starts before the presentation's first packet")
        }
        return UInt64(dts - start)
    }
}

/// What `SegmentMaker` gives a variant lecture's row for a segment it does not make itself.
struct NotOwnSegment: Error {}
