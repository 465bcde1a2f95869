import Animation
import Foundation
import Overlay

/// One segment of a row's presentation, as its playlist needs it: known before anything is rendered.
public struct RowSegment: Sendable, Equatable {
    /// Its index in the playlist, 0 for the first.
    public let index: Int
    /// Where it starts, on the presentation's timeline.
    public let start: PresentationTime
    /// How long it lasts (its `EXTINF`).
    public let duration: PresentationTime
    /// No mark of this row shows on it: its bytes are the input's packets, the same for every row
    /// of the presentation (stored once).
    public let isShared: Bool
    /// It starts with a picture that decodes without the segments before (`EXT-X-INDEPENDENT-SEGMENTS`).
    public let startsIndependently: Bool
}

/// A rendered media segment (`moof` + `mdat`).
public struct RenderedSegment: Sendable {
    /// Its index in the playlist, 0 for the first.
    public let index: Int
    /// The segment's bytes, as its file holds them.
    public let bytes: [UInt8]
    /// How long it lasts (its `EXTINF`).
    public let duration: PresentationTime
    /// No mark of the row shows in it: the same bytes for every row.
    public let isShared: Bool
    /// Pictures the decoder gave to make it, those decoded only as references before its first
    /// included (0 for a copied segment: its packets were only read).
    public let decodedPictures: Int
    /// Video packets re-encoded into it (0 for a copied segment).
    public let encodedPictures: Int
    /// Video samples in it (pictures, copied or re-encoded).
    public let videoSamples: Int
}

/// The initialization segment (`ftyp` + `moov`).
public struct RenderedInitialization: Sendable {
    /// The initialization segment's bytes.
    public let bytes: [UInt8]
    /// The same for every row of the presentation.
    public let isShared: Bool
}

/// One row's HLS presentation over a `PresentationSource`: which of its segments a mark of the
/// row touches (known without rendering: the marks' timelines evaluated at the pictures'
/// times), and any segment rendered on request, alone — byte for byte the segment the whole
/// presentation has at that place, since a segment's bytes depend only on the input, the marks,
/// the plan and its index.
///
/// Use one row from one thread at a time (its compositor is stateful); rows are cheap to make.
public final class PresentationRow {
    /// The input, shared with the other rows.
    public let source: PresentationSource
    /// How this row's video is made, the same for every segment.
    public let rendering: PresentationRendering
    /// What the transcode summary says ("re-encoded 12.0 s of 60.0 s (20%)").
    public let outcome: RenderOutcome
    let plan: PresentationPlan
    /// Per segment, whether this row re-encodes it (else it is the input's packets).
    let reencodes: [Bool]
    let compositor: Compositor
    /// What marks and re-encodes pictures (nil when nothing is re-encoded).
    let video: VideoMaking?
    /// The decode time of each output video packet, by position (decode order).
    let decodeTimestamps: [Int64]
    let warn: WarningHandler
    /// A ladder's row (issue 25): its picture, tracks and timeline; nil for a presentation's single row.
    let shape: RenditionShape?
    private var layout: TrackLayout?
    private var initialization: RenderedInitialization?

    /// How this row's pictures are marked and encoded: its own marker, the source's shared set-up.
    struct VideoMaking {
        let marker: FrameMarker
        let setup: PresentationSource.VideoSetup
    }

    /// A row of `source` marked by `compositor`. (A student's row of a lecture with a variant layer,
    /// `VariantLecture`, also says which segments it re-encodes, those its own marks show in, in an
    /// `encoded` plan; the others are the lecture's shared variant renders, which this row never makes.)
    ///
    /// - Parameters:
    ///   - source: the input, indexed once and shared by every row.
    ///   - compositor: this row's marks.
    ///   - rendering: nil chooses it as `batch` (`forBatch`) or `transcode --render mode` does
    ///     (`PresentationSource.rendering(markedBy:mode:forBatch:)`).
    ///   - mode: `--render`: how much may be copied from the input.
    ///   - forBatch: whether segments are shared with other rows (a batch) or the presentation is one student's.
    ///   - warn: hears notices about the rendering chosen.
    public convenience init(source: PresentationSource, compositor: Compositor, rendering: PresentationRendering? = nil,
                            mode: RenderMode = .auto, forBatch: Bool = true, warn: @escaping WarningHandler = { _ in }) throws {
        try self.init(source: source, compositor: compositor, rendering: rendering, mode: mode, forBatch: forBatch, ownSegments: nil, warn: warn)
    }

    init(source: PresentationSource, compositor: Compositor, rendering: PresentationRendering? = nil,
         mode: RenderMode = .auto, forBatch: Bool = true, ownSegments: [Bool]?, warn: @escaping WarningHandler) throws {
        precondition(ownSegments == nil || rendering == .encoded, "a variant lecture's rows follow the encoded plan")
        self.source = source
        self.compositor = compositor
        self.warn = warn
        shape = nil
        let chosen: (PresentationRendering, RenderOutcome)
        if let rendering {
            switch rendering {
            case .sharedCopies:
                if let refusal = source.sharingRefusal { throw RenderError(file: source.input, reason: "its HLS segments cannot be copied: \(refusal)") }
                chosen = (rendering, source.outcome(.sharedCopies, marked: source.markedSegments(source.plan(.sharedCopies), by: compositor)))
            case .encoded: chosen = (.encoded, .full)
            case .copied: chosen = (.copied, RenderOutcome(isSmart: false))
            }
        } else {
            chosen = try source.rendering(markedBy: compositor, mode: mode, forBatch: forBatch)
        }
        (self.rendering, outcome) = chosen
        plan = source.plan(self.rendering)
        switch self.rendering {
        case .sharedCopies: reencodes = source.markedSegments(plan, by: compositor)
        case .encoded: reencodes = ownSegments ?? Array(repeating: true, count: plan.segmentCount)
        case .copied: reencodes = Array(repeating: false, count: plan.segmentCount)
        }
        precondition(reencodes.count == plan.segmentCount, "one flag per segment")
        video = reencodes.contains(true) || self.rendering == .encoded
            ? try Self.videoMaking(source: source, rendering: self.rendering, compositor: compositor, warn: warn) : nil
        switch self.rendering {
        case .sharedCopies, .copied: decodeTimestamps = source.index.decodeTimestamps
        case .encoded: decodeTimestamps = plan.encodedDecodeTimestamps(reorderDelay: video?.setup.header.reorderDelay ?? 0)
        }
    }

    /// One rendition of a ladder (`Renditions/LectureLadder`): `rendering` is `sharedCopies` for
    /// the rendition of the input's own packets, `encoded` for the others (and for audio renditions
    /// of a ladder that has no copy); `shape` says what differs from a presentation's row.
    init(source: PresentationSource, compositor: Compositor, rendering: PresentationRendering, shape: RenditionShape,
         warn: @escaping WarningHandler) throws {
        precondition(rendering != .copied, "a ladder's rows copy through sharedCopies")
        self.source = source
        self.compositor = compositor
        self.warn = warn
        self.shape = shape
        self.rendering = rendering
        plan = shape.plan.rendering == rendering ? shape.plan : shape.plan.rendered(as: rendering)
        if !shape.carriesVideo {
            reencodes = Array(repeating: false, count: plan.segmentCount)
        } else if let given = shape.reencodes {
            reencodes = given
        } else {
            reencodes = rendering == .encoded ? Array(repeating: true, count: plan.segmentCount) : source.markedSegments(plan, by: compositor)
        }
        var ticks: Int64 = 0
        for (k, reencoded) in reencodes.enumerated() where reencoded { ticks += plan.end(of: k) - plan.cuts[k] }
        outcome = RenderOutcome(isSmart: true, reencodedSeconds: plan.timeBase.seconds(ticks),
                                totalSeconds: plan.timeBase.seconds(plan.endTimestamp - plan.cuts[0]))
        let setup = shape.carriesVideo && (rendering == .encoded || reencodes.contains(true))
            ? try source.videoSetup(rendering, picture: shape.picture) : nil
        if reencodes.contains(true), let setup {
            let marker = try FrameMarker.prepared(compositor: compositor, video: source.video, timecode: setup.timecode, file: source.input,
                                                  format: setup.configuration.pixelFormat, outputWidth: setup.configuration.width,
                                                  outputHeight: setup.configuration.height, scaled: setup.scaled, warn: warn)
            video = VideoMaking(marker: marker, setup: setup)
        } else {
            video = nil
        }
        switch rendering {
        case .sharedCopies, .copied: decodeTimestamps = source.index.decodeTimestamps
        case .encoded: decodeTimestamps = plan.encodedDecodeTimestamps(reorderDelay: setup?.header.reorderDelay ?? 0)
        }
    }

    /// Whether its fragments carry the video track (a ladder's audio renditions do not).
    var carriesVideo: Bool { shape?.carriesVideo ?? true }
    /// The carried tracks (indices into `source.tracks`) its fragments hold after the video.
    var carriedTracks: [Int] { shape?.tracks ?? Array(source.tracks.indices) }

    /// Binds `config` to `variables` (as `Compositor.forJob` does) and makes the row.
    public convenience init(source: PresentationSource, config: WatermarkConfig, variables: [String: String], images: ImageCache = ImageCache(),
                            rendering: PresentationRendering? = nil, warn: @escaping WarningHandler = { _ in }) throws {
        let compositor = try Compositor.forJob(config: config, variables: variables, images: images, warn: warn)
        try self.init(source: source, compositor: compositor, rendering: rendering, warn: warn)
    }

    private static func videoMaking(source: PresentationSource, rendering: PresentationRendering, compositor: Compositor,
                                    warn: @escaping WarningHandler) throws -> VideoMaking {
        let setup = try source.videoSetup(rendering)
        let configuration = setup.configuration
        let marker = try FrameMarker.prepared(compositor: compositor, video: source.video, timecode: setup.timecode, file: source.input,
                                              format: configuration.pixelFormat, outputWidth: configuration.width,
                                              outputHeight: configuration.height, scaled: setup.scaled, warn: warn)
        return VideoMaking(marker: marker, setup: setup)
    }

    /// Every segment with what the playlist needs, rendering nothing.
    public var segments: [RowSegment] {
        plan.plannedSegments.map { planned in
            RowSegment(index: planned.index, start: planned.start, duration: planned.duration, isShared: !reencodes[planned.index],
                       startsIndependently: plan.independent[planned.index])
        }
    }

    /// Segment `index` alone: the reader seeks to its first GOP; its GOPs are decoded only when
    /// it is re-encoded, and a copied segment is only read.
    public func render(segment index: Int) throws -> RenderedSegment {
        precondition(plan.cuts.indices.contains(index), "segment \(index) of a presentation of \(plan.segmentCount)")
        let maker = try SegmentMaker(source: source, plan: plan, rows: [self])
        return try maker.render(segment: index, seeking: true)[0].get().segment
    }

    /// The initialization segment (made from segment 0's first packets: FFmpeg's MP4 muxer writes
    /// the edit lists from them).
    public func initializationSegment() throws -> RenderedInitialization {
        if let initialization { return initialization }
        let maker = try SegmentMaker(source: source, plan: plan, rows: [self])
        let first = try maker.render(segment: 0, seeking: true, keepingPackets: true)[0].get()
        return try initializationSegment(firstSegmentPackets: first.packets)
    }

    /// The initialization segment from segment 0's packets as its tracks were made.
    func initializationSegment(firstSegmentPackets: [[Packet]]) throws -> RenderedInitialization {
        if let initialization { return initialization }
        let made = RenderedInitialization(bytes: try InitializationSegment.bytes(for: self, firstSegmentPackets: firstSegmentPackets),
                                          isShared: rendering != .encoded)
        initialization = made
        return made
    }

    /// The media playlist: `uri` names each segment (content-hash file names after rendering, or
    /// a server's URL paths before).
    public func playlist(initializationURI: String, uri: (RowSegment) -> String) -> String {
        let segments = self.segments
        return MediaPlaylist(initializationURI: initializationURI,
                             segments: segments.map { MediaPlaylist.Segment(uri: uri($0), duration: $0.duration) },
                             independentSegments: segments.allSatisfy(\.startsIndependently)).text
    }

    /// The tracks' time bases and where their media timelines start.
    func trackLayout() throws -> TrackLayout {
        if let layout { return layout }
        let made = try InitializationSegment.layout(for: self)
        layout = made
        return made
    }

    /// The re-encoded audio of carried track `track`, made once per source.
    func encodedAudio(track: Int) throws -> EncodedAudio {
        let other = source.tracks[track]
        guard let encoderName = other.reencoder else { preconditionFailure("track \(track) is copied") }
        return try source.audioCache.audio(of: other.stream) {
            try EncodedAudio.encode(stream: other.stream, of: source.input, encoderName: encoderName)
        }
    }
}

/// Each fMP4 track's time base (its timescale, as the initialization segment declares it) and
/// the decode time its media timeline starts at (its first packet's), in that time base.
struct TrackLayout {
    var timeBases: [Rational]
    var startDecodeTimestamps: [Int64]
}
