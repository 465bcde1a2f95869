import Animation
import Foundation
import Overlay

/// A lecture prepared for a ladder of renditions (docs/design/hls.md §15): the input indexed once
/// (`PresentationSource`), the ladder resolved against it, the captions read and checked, and
/// every file all students share — each rendition's unmarked segments and initialization
/// segment, the audio renditions, the WebVTT captions — made the same way for everyone.
///
/// - Every rendition is cut at the same times (one `PresentationPlan`): the input's closed IDR
///   cuts when one rendition is the input's own picture (its unmarked segments are the input's
///   packets), else the cuts of an encoded presentation.
/// - The other renditions are encoded from the input, each segment by an encoder of its own (IDR
///   first), at the rung's size and rate; a segment no mark shows on is the lecture's clean
///   encode, shared by every student, and only a student's marked segments are encoded again,
///   marked on the rendition's picture.
/// - Audio: one rendition per audio stream (copied when fMP4 holds it, else encoded once),
///   segmented at the video's cuts; captions: one WebVTT rendition per text track.
/// - One media timeline for every track of every rendition (`timelineOrigin`), no edit lists.
/// - With a variant layer (issue 29, docs/design/variant-marks.md §6): every rendition is encoded (no
///   segment can be the input's packets: the layer shows in all), cut every period, and a
///   segment's shared files are its q variants of each rendition (`sharedVariants`), padded to
///   one size; a student lists their codeword's variant in every rendition alike.
///
/// Immutable once made apart from caches behind a lock: share it across threads (a server keeps
/// one per lecture revision).
public final class LectureLadder: @unchecked Sendable {
    /// The input, indexed once.
    public let source: PresentationSource
    /// Video renditions tallest first, then audio, then subtitles.
    public let renditions: [LadderRendition]
    /// What was changed or left out (a capped rung, bitmap subtitles…), each said once through `warn`.
    public let notices: [String]
    /// Every rendition's cuts.
    let plan: PresentationPlan
    /// Time zero of every track's media time.
    let timelineOrigin: PresentationTime
    /// Where the first picture lies on that timeline (WebVTT's `MPEGTS`).
    let firstPictureTime: PresentationTime
    let captionSegments: [String: [WebVTTSegments.Segment]]
    let frameRate: Double?
    private let videoShapes: [String: VideoShape]
    private let audioTracks: [String: Int]
    private let fonts: FontLibrary
    /// With a variant layer (LectureLadder+Variants.swift): where one thread's rows get it (a
    /// compositor's fonts are not thread-safe); nil without one.
    let variantLayer: VariantLayerSource?
    /// q with a variant layer: the shared renders each segment of a video rendition has; nil without one.
    public let variantCount: Int?
    /// Sets of the variant layer alone (a compositor per variant) idle between renders, under `lock`.
    var idleVariantLayers: [[Compositor]] = []
    /// The shared files' caches (LectureLadder+Shared.swift): initialization segments and the
    /// sizes of shared segments made so far, by rendition.
    let lock = NSLock()
    var initializations: [String: [UInt8]] = [:]
    var measuredSizes: [String: [Int: Int]] = [:]

    /// How one video rendition is made.
    struct VideoShape {
        /// `sharedCopies` for the input's own picture, else `encoded`.
        let rendering: PresentationRendering
        /// The encoded rendition's size and rate (nil: the input's packets).
        let picture: RenditionPicture?
        /// What an own segment may take at most: the encoder's decoder-buffer cap (bits per second, bits).
        let maxRate: Int?
        let bufferSize: Int?
        let bitRate: Int
    }

    /// Decoder-buffer cap of the encoded renditions, as multiples of the rung's rate.
    static let maxRateFactor = 1.5
    static let bufferFactor = 1.5

    /// - Parameters:
    ///   - input: the lecture's video, indexed once.
    ///   - request: the rungs asked for (`--ladder`).
    ///   - subtitles: caption files offered beside the input's own text subtitles (`--subtitles`).
    ///   - settings: the encode settings; those a ladder decides itself are refused.
    ///   - segment: the length each segment aims at (`--segment`).
    ///   - damagePolicy: what a damaged input packet does (`--errors`).
    ///   - render: `--render`: whether the input-sized rendition may copy the input's packets.
    ///   - subject: how messages name the ladder's request ("--ladder", a lecture's field).
    ///   - variantLayer: with a variant layer (its period the segment length, and `settings` a
    ///     variant lecture's: `Lecture` decides both), where its renders get it; nil without one.
    ///   - warn: notices about the input (streams left out), each said once.
    /// - Throws: `RequestError` (64) for settings a ladder decides itself (`--bitrate`, `--crf`,
    ///   size options, `--maxrate`/`--bufsize`); `InputError` (66) for a missing input or sidecar;
    ///   `MediaError` (65) for a damaged input or a bad cue ("FILE: line N: …").
    public init(input: String, ladder request: LadderRequest, subtitles: [SidecarCaptions] = [], settings: EncodeSettings = EncodeSettings(),
                segment: PresentationTime = HLSSettings.defaultSegmentDuration, damagePolicy: DamagePolicy = .warn, render: RenderMode = .auto,
                subject: String = "--ladder", variantLayer: VariantLayerSource? = nil, warn: @escaping WarningHandler = { _ in }) throws {
        try Self.validate(settings, subject: subject)
        self.variantLayer = variantLayer
        if let variantLayer {
            guard let variants = try variantLayer.make().layerVariants else { preconditionFailure("a variant ladder's compositor without its variant layer") }
            variantCount = variants.count
        } else {
            variantCount = nil
        }
        let source = try PresentationSource(input: input, settings: settings, segment: segment,
                                            damagePolicy: damagePolicy, subtitlesAsRenditions: true, warn: warn)
        self.source = source
        fonts = try TextEngineError.fontLibrary()
        var notices: [String] = []
        let video = source.video
        let codec = settings.codec ?? .h264
        let resolved = RenditionLadder(request: request, source: LadderSource(storedWidth: video.width, storedHeight: video.height,
                                                                              pixelAspect: video.pixelAspect, rotation: video.rotation),
                                       codec: codec == .h264 ? .h264 : .hevcClass, subject: subject)
        notices += resolved.notices
        // The input's own picture is its packets where no mark shows (`--render full`, or a variant
        // layer, which shows in every segment: encoded too).
        let isSourcePicture = resolved.renditions.first?.isSourcePicture == true && variantLayer == nil
        let copies = isSourcePicture && source.sharingRefusal == nil && render != .full
        if isSourcePicture, render != .full, let refusal = source.sharingRefusal {
            if render == .smart {
                throw RenderError(file: input, reason: "the \(resolved.renditions[0].name) rendition cannot be the input's own packets: \(refusal)")
            }
            if !refusal.askedByOptions {
                notices.append("\(input): the \(resolved.renditions[0].name) rendition is encoded too, not the input's own packets (\(refusal))")
            }
        }
        plan = source.ladderPlan(copyingInput: copies)

        var renditions: [LadderRendition] = []
        var shapes: [String: VideoShape] = [:]
        var taken = Set<String>()
        let display = LadderSource(storedWidth: video.width, storedHeight: video.height, pixelAspect: video.pixelAspect, rotation: video.rotation)
            .displaySize
        let hasBuffer = codec == .h264 || codec == .hevc
        for (n, planned) in resolved.renditions.enumerated() {
            let id = LadderRendition.uniqueID(planned.name, taken: &taken)
            let copiesInput = copies && n == 0
            renditions.append(LadderRendition(id: id, kind: .video, name: planned.name, video: planned, copiesInput: copiesInput))
            if copiesInput {
                guard case .success(let shared) = source.sharedPlan else { preconditionFailure("a copy without its set-up") }
                shapes[id] = VideoShape(rendering: .sharedCopies, picture: nil, maxRate: shared.configuration.maxRate,
                                        bufferSize: shared.configuration.bufferSize, bitRate: shared.configuration.bitRate ?? planned.bitRate)
            } else {
                let request: ScaleRequest = display.width >= display.height ? .height(planned.lines) : .width(planned.lines)
                let maxRate = hasBuffer ? Int(Double(planned.bitRate) * Self.maxRateFactor) : nil
                let buffer = hasBuffer ? Int(Double(planned.bitRate) * Self.bufferFactor) : nil
                shapes[id] = VideoShape(rendering: .encoded, picture: RenditionPicture(scale: request, bitRate: planned.bitRate, maxRate: maxRate,
                                                                                     bufferSize: buffer),
                                        maxRate: maxRate, bufferSize: buffer, bitRate: planned.bitRate)
            }
        }
        videoShapes = shapes

        // Audio: one rendition per carried stream, named by its title or language.
        let file = try InputFile(path: input)
        var audio: [String: Int] = [:]
        var audioNames: [String: Int] = [:]
        for (t, track) in source.tracks.enumerated() {
            let stream = file.stream(track.stream)
            let language = stream.language.map(LanguageTag.preferred) ?? "und"
            let title = stream.tag("title").map { String($0.unicodeScalars.filter { $0 != "\"" && $0.properties.generalCategory != .control }) }
            // Players list renditions by name: a stream without title or language is "Audio".
            var name = title.flatMap { $0.isEmpty ? nil : String($0.prefix(64)) } ?? LanguageTag.name(of: language)
                ?? (language == "und" ? "Audio" : language)
            let seen = audioNames[name, default: 0] + 1
            audioNames[name] = seen
            if seen > 1 { name += " (\(seen))" }
            let id = LadderRendition.uniqueID("audio-" + LadderRendition.idPart(language: language), taken: &taken)
            renditions.append(LadderRendition(id: id, kind: .audio, name: name, language: language, channels: stream.channelCount))
            audio[id] = t
        }
        audioTracks = audio

        // One timeline: its zero the earliest decode time of any track of any rendition.
        let videoBase = plan.timeBase
        func time(_ ticks: Int64, _ base: Rational) -> PresentationTime {
            PresentationTime(value: ticks * Int64(base.numerator), timescale: Int64(base.denominator))
        }
        var earliest = time(source.index.decodeTimestamps[0], videoBase)
        for shape in shapes.values where shape.rendering == .encoded {
            let setup = try source.videoSetup(.encoded, picture: shape.picture)
            earliest = min(earliest, time(source.firstDecodeTimestamp(plan: plan, reorderDelay: setup.header.reorderDelay), videoBase))
        }
        for t in audio.values {
            if let first = try source.firstDecodeTime(ofTrack: t) { earliest = min(earliest, first) }
        }
        earliest = min(earliest, time(plan.firstTimestamp, videoBase))
        timelineOrigin = earliest
        let firstPicture = time(plan.firstTimestamp, videoBase) - earliest
        firstPictureTime = firstPicture

        // Captions: cut at the video's times, on the same timeline.
        let captions = try PresentationCaptions.load(input: input, sidecars: subtitles, warn: warn)
        notices += captions.notices
        let planned = plan.plannedSegments
        let boundaries = planned.map { $0.start + firstPicture } + [planned[planned.count - 1].start + planned[planned.count - 1].duration + firstPicture]
        var captionSegments: [String: [WebVTTSegments.Segment]] = [:]
        for track in captions.tracks {
            let id = LadderRendition.uniqueID("subs-" + LadderRendition.idPart(language: track.language), taken: &taken)
            renditions.append(LadderRendition(id: id, kind: .subtitles, name: track.name, language: track.language))
            captionSegments[id] = WebVTTSegments.segments(of: track, boundaries: boundaries, origin: firstPicture)
        }
        self.captionSegments = captionSegments
        self.renditions = renditions
        self.notices = notices
        frameRate = video.frameRate.map { Double($0.numerator) / Double($0.denominator) }
        for notice in notices { warn(notice) }
    }

    /// Options whose work the ladder does itself are refused rather than half obeyed.
    private static func validate(_ settings: EncodeSettings, subject: String) throws {
        let refused: [(Bool, String)] = [
            (settings.bitRate != nil, "--bitrate"), (settings.crf != nil, "--crf"), (settings.scale != nil, "a size option"),
            (settings.controls.maxRate != nil || settings.controls.bufferSize != nil, "--maxrate/--bufsize"),
        ]
        if let (_, option) = refused.first(where: \.0) {
            throw RequestError(subject: option, problem: "cannot be combined with \(subject): each rendition's size and rate come from the ladder (give rates as HEIGHT:RATE)")
        }
    }

    /// The segments every rendition is cut into (nothing rendered).
    public var segments: [PlannedSegment] { plan.plannedSegments }

    /// The rendition named `id` ("720p", "audio-en"), if any.
    public func rendition(_ id: String) -> LadderRendition? { renditions.first { $0.id == id } }

    /// A rendition `id` of `kind`, or a precondition failure naming it (a caller's mistake).
    func rendition(_ id: String, of kinds: Set<LadderRendition.Kind>) -> LadderRendition {
        guard let found = rendition(id), kinds.contains(found.kind) else {
            preconditionFailure("the lecture has no \(kinds.map(\.rawValue).sorted().joined(separator: "/")) rendition '\(id)'")
        }
        return found
    }

    // MARK: Students

    /// One student: `config` bound to `variables` as a batch row is bound.
    public func student(config: WatermarkConfig, variables: [String: String], images: ImageCache = ImageCache(), codeword: [Int]? = nil,
                        warn: @escaping WarningHandler = { _ in }) throws -> LadderRow {
        try student(compositor: Compositor.forJob(config: config, variables: variables, images: images, warn: warn), codeword: codeword, warn: warn)
    }

    /// One student marked by `compositor` (which the row's renditions then use, one thread at a
    /// time); with a variant layer, `codeword` names their variant of every segment (`VariantCode`).
    public func student(compositor: Compositor, codeword: [Int]? = nil, warn: @escaping WarningHandler = { _ in }) throws -> LadderRow {
        try LadderRow(lecture: self, compositor: compositor, codeword: codeword, warn: warn)
    }

    // MARK: The rows behind the renditions

    func videoShape(_ id: String) -> VideoShape {
        guard let shape = videoShapes[id] else { preconditionFailure("no video rendition '\(id)'") }
        return shape
    }

    func audioTrack(_ id: String) -> Int {
        guard let track = audioTracks[id] else { preconditionFailure("no audio rendition '\(id)'") }
        return track
    }

    /// The row that makes video rendition `id` for `compositor`; `reencodes` (encoded renditions)
    /// the segments it makes, nil for every one (the lecture's clean encode).
    func videoRow(_ id: String, compositor: Compositor, reencodes: [Bool]?, warn: @escaping WarningHandler) throws -> PresentationRow {
        let shape = videoShape(id)
        return try PresentationRow(source: source, compositor: compositor, rendering: shape.rendering,
                                   shape: RenditionShape(plan: plan, picture: shape.picture, carriesVideo: true, tracks: [],
                                                         reencodes: shape.rendering == .encoded ? reencodes : nil,
                                                         timelineOrigin: timelineOrigin),
                                   warn: warn)
    }

    /// The lecture's own row of video rendition `id`: the input's packets, or the clean encode.
    func cleanRow(_ id: String) throws -> PresentationRow {
        try videoRow(id, compositor: Compositor(layers: [], fonts: fonts), reencodes: nil, warn: { _ in })
    }

    /// The row that makes audio rendition `id`: that stream alone.
    func audioRow(_ id: String) throws -> PresentationRow {
        try PresentationRow(source: source, compositor: Compositor(layers: [], fonts: fonts), rendering: plan.rendering,
                            shape: RenditionShape(plan: plan, picture: nil, carriesVideo: false, tracks: [audioTrack(id)], reencodes: nil,
                                                  timelineOrigin: timelineOrigin),
                            warn: { _ in })
    }

    /// The lecture's row of a video or audio rendition (a variant ladder's video: variant 0's,
    /// which its initialization segment is made from).
    func sharedRow(_ id: String) throws -> PresentationRow {
        guard rendition(id, of: [.video, .audio]).kind == .video else { return try audioRow(id) }
        return variantLayer == nil ? try cleanRow(id) : try sharedVideoRows(id)[0]
    }
}
