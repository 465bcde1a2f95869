import Animation
import Overlay

/// One student's ladder over a `LectureLadder`: which segments of each video rendition the
/// student's marks show in (known without rendering: the marks' timelines at the pictures'
/// times, the same in every rendition), any segment of any rendition made alone, the media
/// playlists and the multivariant playlist.
///
/// A segment no mark shows on is the lecture's (`LectureLadder.sharedSegment`), the same bytes
/// for every student; a marked one is re-encoded from the input for this student, marked on the
/// rendition's picture. Audio and captions are the lecture's. With a variant layer, a segment is
/// the student's where a mark of theirs other than the variant layer shows (the variant layer
/// hidden there), and elsewhere the lecture's render of their codeword's variant, the same symbol in
/// every rendition. Use one row from one thread at a time (its compositor is stateful).
public final class LadderRow {
    /// The lecture, shared with the other rows.
    public let lecture: LectureLadder
    /// Per segment, whether a mark of the student shows in it (every video rendition alike; with
    /// a variant layer, a mark other than it).
    let marked: [Bool]
    /// With a variant layer: the student's variant of every segment (their codeword).
    public let codeword: [Int]?
    /// The student's rows of the video renditions it re-encodes segments of, by rendition id.
    let videoRows: [String: PresentationRow]
    /// What the transcode summary says ("re-encoded 12.0 s of 60.0 s").
    public let outcome: RenderOutcome

    init(lecture: LectureLadder, compositor: Compositor, codeword: [Int]?, warn: @escaping WarningHandler) throws {
        self.lecture = lecture
        let plan = lecture.plan
        precondition((codeword == nil) == (lecture.variantCount == nil), "a codeword exactly when the lecture has a variant layer")
        self.codeword = codeword
        if let codeword {
            precondition(codeword.count == plan.segmentCount, "one variant per segment")
            marked = lecture.source.ownSegments(plan, by: compositor)
            compositor.variantSchedule = VariantSchedule(periodStarts: plan.plannedSegments.map(\.start), variants: codeword).hiding(marked)
        } else {
            marked = lecture.source.markedSegments(plan, by: compositor)
        }
        var rows: [String: PresentationRow] = [:]
        if marked.contains(true) {
            for rendition in lecture.renditions where rendition.kind == .video {
                rows[rendition.id] = try lecture.videoRow(rendition.id, compositor: compositor, reencodes: marked, warn: warn)
            }
        }
        videoRows = rows
        var ticks: Int64 = 0
        for (k, isMarked) in marked.enumerated() where isMarked { ticks += plan.end(of: k) - plan.cuts[k] }
        outcome = RenderOutcome(isSmart: true, reencodedSeconds: plan.timeBase.seconds(ticks),
                                totalSeconds: plan.timeBase.seconds(plan.endTimestamp - plan.cuts[0]))
    }

    /// The segments of rendition `id`, with whose each is (nothing rendered).
    public func segments(of id: String) -> [LadderSegment] {
        let kind = lecture.rendition(id, of: [.video, .audio, .subtitles]).kind
        return lecture.plan.plannedSegments.map { planned in
            LadderSegment(index: planned.index, start: planned.start, duration: planned.duration,
                          isShared: kind != .video || !marked[planned.index], variant: kind == .video ? variant(at: planned.index) : 0)
        }
    }

    /// The shared variant this student lists at video segment `k` (0 without a variant layer).
    func variant(at k: Int) -> Int { codeword?[k] ?? 0 }

    /// Segment `index` of rendition `id` alone: a shared one the lecture's bytes (with a variant
    /// layer, its render of this student's variant), an own one re-encoded with this student's
    /// marks — byte for byte what a batch writes there.
    public func render(rendition id: String, segment index: Int) throws -> [UInt8] {
        let kind = lecture.rendition(id, of: [.video, .audio, .subtitles]).kind
        if kind == .video, marked[index], let row = videoRows[id] { return try row.render(segment: index).bytes }
        if kind == .video, codeword != nil { return try lecture.sharedVariants(of: id, segment: index)[variant(at: index)] }
        return try lecture.sharedSegment(of: id, index: index)
    }

    /// The media playlist of rendition `id`: `initializationURI` names its initialization segment
    /// (ignored for subtitles), `segmentURI` each segment (content names after writing, a server's
    /// URLs before).
    public func mediaPlaylist(rendition id: String, initializationURI: String?, segmentURI: (LadderSegment) throws -> String) rethrows -> String {
        let segments = self.segments(of: id)
        switch lecture.rendition(id, of: [.video, .audio, .subtitles]).kind {
        case .subtitles:
            return SubtitlePlaylist(segments: try segments.map { SubtitlePlaylist.Segment(uri: try segmentURI($0), duration: $0.duration) },
                                    targetDurationSeconds: lecture.targetDurationSeconds).text
        case .video, .audio:
            guard let initializationURI else { preconditionFailure("an fMP4 rendition's playlist names its initialization segment") }
            return MediaPlaylist(initializationURI: initializationURI,
                                 segments: try segments.map { MediaPlaylist.Segment(uri: try segmentURI($0), duration: $0.duration) },
                                 independentSegments: true).text
        }
    }

    // MARK: Rates

    /// `BANDWIDTH`/`AVERAGE-BANDWIDTH` parts of rendition `id`, known before any own segment
    /// exists (a server's): every segment at its measured size when the lecture has measured it
    /// and it is shared, else at what its encoder's decoder-buffer cap allows (renditions-api.md
    /// "Declared rates"). Never below the rates of the segments this row's render makes.
    public func declaredBitRates(of id: String) throws -> SegmentBitRates {
        let rendition = lecture.rendition(id, of: [.video, .audio, .subtitles])
        if rendition.kind != .subtitles { try? lecture.measureCopiedSegments() }
        if rendition.kind == .subtitles {
            return measured(id, sizes: try lecture.captions(of: id).map(\.bytes.count))
        }
        let known = lecture.measuredSizes(of: id)
        let segments = self.segments(of: id)
        let shape = rendition.kind == .video ? lecture.videoShape(id) : nil
        var peakSamples: [SegmentBitRates.Sample] = []
        var averageSamples: [SegmentBitRates.Sample] = []
        for segment in segments {
            if segment.isShared, let size = known[segment.index] {
                peakSamples.append(.init(bytes: size, duration: segment.duration))
                averageSamples.append(.init(bytes: size, duration: segment.duration))
                continue
            }
            guard let shape else {
                // Audio not measured (a read failed): its packets' rate is not known; count nothing.
                continue
            }
            peakSamples.append(.init(bytes: Self.bound(shape, duration: segment.duration, pictures: lecture.pictures(in: segment.index)),
                                     duration: segment.duration))
            averageSamples.append(.init(bytes: Int(Double(shape.bitRate) * segment.duration.seconds / 8) + Self.overhead(pictures: lecture.pictures(in: segment.index)),
                                        duration: segment.duration))
        }
        let target = lecture.targetDurationSeconds
        return SegmentBitRates(peak: SegmentBitRates(segments: peakSamples, targetDurationSeconds: target).peak,
                               average: SegmentBitRates(segments: averageSamples, targetDurationSeconds: target).average)
    }

    private func measured(_ id: String, sizes: [Int]) -> SegmentBitRates {
        let segments = self.segments(of: id)
        return SegmentBitRates(segments: zip(segments, sizes).map { .init(bytes: $1, duration: $0.duration) },
                               targetDurationSeconds: lecture.targetDurationSeconds)
    }

    /// The most bytes an encoder under `shape`'s decoder-buffer cap writes in `duration`: the
    /// buffer it may start with (x264's and x265's default initial fullness, 90 %) plus its fill
    /// rate over the segment, 2 % for the rate control's rounding, and the fragment's boxes.
    static func bound(_ shape: LectureLadder.VideoShape, duration: PresentationTime, pictures: Int) -> Int {
        let seconds = duration.seconds
        let bits: Double
        if let maxRate = shape.maxRate, let buffer = shape.bufferSize {
            bits = 0.9 * Double(buffer) + Double(maxRate) * seconds
        } else {
            // No buffer model (vp9, av1): twice the rate, the most Apple's authoring rules allow for a peak.
            bits = 2 * Double(shape.bitRate) * seconds
        }
        return Int(bits * 1.02 / 8) + overhead(pictures: pictures)
    }

    /// `moof` and `mdat` around `pictures` samples: a 16-byte `trun` entry each and the boxes' headers.
    static func overhead(pictures: Int) -> Int { 16 * pictures + 256 }

    /// The multivariant playlist: `uri` names each rendition's media playlist; `bitRates` gives
    /// each rendition's measured rates (a batch, after writing), nil declares them
    /// (`declaredBitRates`). Throws only when an initialization segment (read for `CODECS`) cannot be made.
    public func multivariantPlaylist(uri: (LadderRendition) throws -> String, bitRates: ((LadderRendition) throws -> SegmentBitRates)? = nil) throws -> String {
        let rates = bitRates ?? { try self.declaredBitRates(of: $0.id) }
        var media: [MultivariantPlaylist.Rendition] = []
        var audioCodecs: [String] = []
        let audio = lecture.renditions.filter { $0.kind == .audio }
        let subtitles = lecture.renditions.filter { $0.kind == .subtitles }
        for (n, rendition) in audio.enumerated() {
            let tracks = InitializationTrack.tracks(ofInitializationSegment: try lecture.initializationSegment(of: rendition.id)) ?? []
            if let codec = tracks.first(where: { $0.kind == .audio })?.codec, !audioCodecs.contains(codec) { audioCodecs.append(codec) }
            media.append(.init(kind: .audio, groupID: MultivariantPlaylist.audioGroupID, language: rendition.language ?? "und", name: rendition.name,
                               isDefault: n == 0, channels: rendition.channels, uri: try uri(rendition)))
        }
        for rendition in subtitles {
            media.append(.init(kind: .subtitles, groupID: MultivariantPlaylist.subtitlesGroupID, language: rendition.language ?? "und",
                               name: rendition.name, isDefault: false, uri: try uri(rendition)))
        }
        let companions = SegmentBitRates.largest(try audio.map(rates)) + SegmentBitRates.largest(try subtitles.map(rates))
        var variants: [MultivariantPlaylist.Variant] = []
        for rendition in lecture.renditions where rendition.kind == .video {
            let tracks = InitializationTrack.tracks(ofInitializationSegment: try lecture.initializationSegment(of: rendition.id)) ?? []
            let videoCodec = tracks.first { $0.kind == .video }?.codec
            let total = try rates(rendition) + companions
            variants.append(.init(bandwidth: total.peak, averageBandwidth: total.average, codecs: (videoCodec.map { [$0] } ?? []) + audioCodecs,
                                  width: rendition.video?.width, height: rendition.video?.height, frameRate: lecture.frameRate,
                                  audioGroup: audio.isEmpty ? nil : MultivariantPlaylist.audioGroupID,
                                  subtitlesGroup: subtitles.isEmpty ? nil : MultivariantPlaylist.subtitlesGroupID, uri: try uri(rendition)))
        }
        return MultivariantPlaylist(renditions: media, variants: variants, independentSegments: true).text
    }
}

extension LectureLadder {
    /// Every playlist's `EXT-X-TARGETDURATION` (one for the whole presentation, Apple 8.2).
    var targetDurationSeconds: Int {
        MediaPlaylist(initializationURI: "-", segments: plan.plannedSegments.map { .init(uri: "-", duration: $0.duration) },
                      independentSegments: true).targetDurationSeconds
    }

    /// The pictures of segment `k`.
    func pictures(in k: Int) -> Int { plan.positions[k].count }
}
