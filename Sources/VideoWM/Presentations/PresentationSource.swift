import Animation
import Foundation
import Overlay

/// An input prepared for HLS presentations: one demux pass over it (nothing decoded) gives every
/// video packet's timestamps, key flags and NAL unit types and the other streams' timestamps;
/// from them the segment plans of both renderings and, where the input allows, the set-up every
/// row's re-encoded segments share. Built once per input and kept: a batch makes one for all its
/// rows, a server one per lecture; it is immutable afterwards (audio re-encoded on first use is
/// kept behind a lock), so threads may share it.
///
/// Files are opened anew for each piece of work (`PresentationRow.render(segment:)`), so nothing
/// here holds FFmpeg state.
public final class PresentationSource: @unchecked Sendable {
    /// The input video's path.
    public let input: String
    let settings: EncodeSettings
    let damagePolicy: DamagePolicy
    /// `--segment`.
    public let segmentTarget: PresentationTime
    let videoStream: Int
    let video: VideoStreamDescription
    let index: VideoPacketIndex
    /// The streams muxed beside the video, in the order their tracks follow it, and how each is made.
    let tracks: [OtherTrack]
    /// Streams left out with a notice ("stream 2 (subtitle, subrip)").
    public let droppedStreams: [String]
    /// The cuts of each rendering this input allows.
    let sharedPlan: Result<SharedCopies, SharingRefusal>
    private(set) var encodedPlan: PresentationPlan
    let copiedPlan: PresentationPlan?
    /// Whether a segment made alone seeks to its first GOP: not in MPEG-TS (whose timestamp jumps
    /// are taken out by reading from the start) nor in a video without presentation times (decoded
    /// from the start); there a segment alone costs reading the input up to it.
    public private(set) var seeksToSegments: Bool
    let audioCache = AudioCache()
    private let warn: WarningHandler
    private let setupLock = NSLock()
    private var setups: [SetupKey: VideoSetup] = [:]

    /// A set-up is made once per rendering and, for a ladder's renditions, per picture.
    private struct SetupKey: Hashable {
        let rendering: PresentationRendering
        let picture: RenditionPicture?
    }

    /// The encoder set-up of a rendering's re-encoded segments: the same for every row, made once.
    struct VideoSetup: @unchecked Sendable {
        let configuration: VideoEncoderConfiguration
        /// The picture the marks are laid out on when a size option scales it first.
        let scaled: (width: Int, height: Int)?
        /// Presentation timestamps of the pictures `--gop Ns` makes keyframes (`encoded` only).
        let forcedKeyframes: Set<Int64>
        /// An encoder opened once: its codec parameters describe the track (initialization segment)
        /// and its reorder delay sets the decode times (`encoded`).
        let header: Encoder
        /// The encoder writes Annex B H.264/HEVC, which MP4 stores length-prefixed.
        let convertsAnnexB: Bool
        /// The stream's timecode clock for `{timecode}`.
        let timecode: Timecode?
    }

    /// A stream other than the video, as a presentation carries it.
    struct OtherTrack {
        let stream: Int
        let reencoder: String?
    }

    /// What every row's re-encoded segments share under `sharedCopies`.
    struct SharedCopies {
        let plan: PresentationPlan
        /// The input's avcC with the re-encoder's SPS/PPS added: every row's initialization segment.
        let sampleDescription: [UInt8]
        let configuration: VideoEncoderConfiguration
    }

    /// Why unmarked segments cannot be the input's packets.
    public struct SharingRefusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Why, in a phrase.
        public var reason: String
        /// An option asked for what copied packets cannot give (another codec, size, rate control):
        /// the full render is then what the user asked for, not a fallback worth a notice.
        public var askedByOptions: Bool
        public var description: String { reason }
    }

    /// Reads `input` once. `settings` are the encode options rows re-encode with; `segment` is
    /// `--segment`. Refuses (as a transcode would) an input without video, a picture over the
    /// limits, and video packets without timestamps.
    /// `subtitlesAsRenditions`: a ladder's (issue 25) — its captions say what becomes of subtitle
    /// streams, so they are left out here without a notice.
    public init(input: String, settings: EncodeSettings = EncodeSettings(), segment: PresentationTime = HLSSettings.defaultSegmentDuration,
                damagePolicy: DamagePolicy = .warn, subtitlesAsRenditions: Bool = false, warn: @escaping WarningHandler = { _ in }) throws {
        self.input = input
        self.settings = settings
        self.damagePolicy = damagePolicy
        self.warn = warn
        segmentTarget = segment
        let file = try InputFile(path: input)
        let stream = try VideoSource.videoStream(of: file)
        videoStream = stream.index
        video = stream.video
        seeksToSegments = !file.correctsTimestampJumps

        var tracks: [OtherTrack] = []
        var dropped: [String] = []
        for other in file.streams where other.index != stream.index {
            let route = StreamRoute.route(for: other, into: .presentationSegments, audio: settings.audio)
            if other.mediaType == .audio && route != .drop(notice: false) && (other.sampleRate <= 0 || other.channelCount <= 0) {
                throw MediaError(file: input, detail: "audio stream \(other.index) (\(other.codec.name)) has no sample rate or channels: the file is damaged or cut short")
            }
            switch route {
            case .copy:
                tracks.append(OtherTrack(stream: other.index, reencoder: nil))
            case .reencodeAudio(let encoder, let notice):
                tracks.append(OtherTrack(stream: other.index, reencoder: encoder))
                if notice { warn("\(input): audio stream \(other.index) (\(other.codec.name)) cannot be stored in an HLS presentation's segments; re-encoded with \(encoder)") }
            case _ where subtitlesAsRenditions && other.mediaType == .subtitle:
                continue
            case .convertSubtitles, .drop(notice: true):
                let what = "stream \(other.index) (\(other.mediaType == .unknown ? "data" : other.mediaType.name), \(other.codec.name))"
                dropped.append(what)
                warn("\(input): \(what) cannot be stored in an HLS presentation's segments; left out")
            case .drop(notice: false):
                continue
            }
        }
        self.tracks = tracks
        droppedStreams = dropped

        let codec = VideoCodec(stream.codec)
        let index: VideoPacketIndex
        var timedByDecoding = false
        do {
            index = try VideoPacketIndex.read(path: input, streamIndex: stream.index, codec: codec, reorderDelay: stream.reorderDelay,
                                              otherStreams: Set(tracks.map(\.stream)))
        } catch VideoPacketIndex.Refusal.missingTimestamps {
            // AVI, a raw H.264 stream: the pictures' times come from decoding the video once.
            index = try FrameTiming.index(of: input, videoStream: stream.index, otherStreams: Set(tracks.map(\.stream)), threads: settings.threads)
            timedByDecoding = true
        } catch let refusal as VideoPacketIndex.Refusal {
            throw MediaError(file: input, detail: "\(refusal), which an HLS presentation's segments need")
        }
        self.index = index
        let first = index.firstPresentationTimestamp
        do {
            encodedPlan = try PresentationPlan.make(.encoded, packets: index.packets, idr: { _ in false }, timeBase: index.timeBase,
                                                    firstTimestamp: first, target: segment)
        } catch {
            throw MediaError(file: input, detail: error.description)
        }
        encodedPlan.decodesFromStart = timedByDecoding
        if timedByDecoding {
            seeksToSegments = false
            copiedPlan = nil
            sharedPlan = .failure(SharingRefusal(reason: "the video's packets carry no presentation times", askedByOptions: false))
            return
        }
        copiedPlan = try? PresentationPlan.make(.copied, packets: index.packets, idr: { _ in false }, timeBase: index.timeBase,
                                                firstTimestamp: first, target: segment)
        sharedPlan = Self.sharedCopies(input: file, stream: stream, index: index, settings: settings, segment: segment)
    }

    /// The plan of `sharedCopies` for this input, or why it has none.
    private static func sharedCopies(input: InputFile, stream: InputStream, index: VideoPacketIndex, settings: EncodeSettings,
                                     segment: PresentationTime) -> Result<SharedCopies, SharingRefusal> {
        func refused(_ reason: String, asked: Bool = false) -> Result<SharedCopies, SharingRefusal> {
            .failure(SharingRefusal(reason: reason, askedByOptions: asked))
        }
        if let codec = settings.codec, codec != .h264 { return refused("--codec \(codec.rawValue) asks for another codec than the input's", asked: true) }
        if let reason = settings.whyCopiesCannotHonour { return refused(reason, asked: true) }
        guard stream.codec == .h264 else { return refused("the input's video is \(stream.codec.name), not H.264") }
        guard let record = try? AVCConfigurationRecord(stream.extradata), record.lengthSize == 4 else {
            return refused("the input's H.264 has no MP4 sample description (avcC) to extend")
        }
        let plan: PresentationPlan
        do {
            plan = try PresentationPlan.make(.sharedCopies, packets: index.packets, idr: { index.packets[$0].isKeyframe && index.packets[$0].nal.isIDR },
                                             timeBase: index.timeBase, firstTimestamp: index.firstPresentationTimestamp, target: segment)
        } catch {
            return refused(error.description)
        }
        do {
            let id = try H264ParameterSetIDs.free(usedBy: record.sequenceParameterSets + record.pictureParameterSets)
            let seconds = max(index.timeBase.seconds(plan.endTimestamp - plan.pictureTimestamps[0]), 0.001)
            let bitRate = Int(Double(index.sizes.reduce(0, +) * 8) / seconds)
            let idrs = index.packets.indices.filter { index.packets[$0].isKeyframe && index.packets[$0].nal.isIDR }
            var longestGOP = 1
            for (a, b) in zip(idrs, idrs.dropFirst() + [index.packets.count]) { longestGOP = max(longestGOP, b - a) }
            let splice = SpliceEncoderSettings(
                input: .init(codec: .h264, profileName: stream.profileName, level: stream.level, reorderDelay: 0,
                             gopFrames: longestGOP, matchedBitRate: bitRate),
                crf: settings.crf, bitRate: settings.bitRate, preset: settings.preset, spsID: id)
            var configuration = try VideoEncoderConfiguration(reencoding: stream.video, settings: settings, target: .presentationSegments)
            configuration.encoderName = splice.encoderName
            configuration.options = splice.options
            configuration.bitRate = splice.bitRate
            configuration.maxRate = splice.maxRate
            configuration.bufferSize = splice.bufferSize
            guard configuration.pixelFormat == stream.video.pixelFormat, configuration.width == stream.video.width,
                  configuration.height == stream.video.height else {
                return refused("x264 cannot encode the input's \(stream.video.pixelFormat) \(stream.video.width)×\(stream.video.height) pictures as they are")
            }
            // Opened once for its parameter sets: every row's re-encoded segments write the same ones.
            let probe = try Encoder(configuration, file: input.path)
            return .success(SharedCopies(plan: plan, sampleDescription: try record.adding(encoderHeader: probe.extradata).bytes,
                                         configuration: configuration))
        } catch let error as ParameterSetError {
            return refused(error.description)
        } catch {
            return refused("\(error)")
        }
    }

    /// The set-up of `rendering`'s re-encoded segments (notices said the first time); `picture`
    /// gives an `encoded` ladder rendition its own size and rate (issue 25).
    func videoSetup(_ rendering: PresentationRendering, picture: RenditionPicture? = nil) throws -> VideoSetup {
        precondition(picture == nil || rendering == .encoded, "only encoded renditions have a picture of their own")
        setupLock.lock()
        defer { setupLock.unlock() }
        let key = SetupKey(rendering: rendering, picture: picture)
        if let known = setups[key] { return known }
        let settings = picture.map { self.settings.encoding($0) } ?? self.settings
        let file = try InputFile(path: input)
        let stream = file.stream(videoStream)
        var configuration: VideoEncoderConfiguration
        var scaled: (width: Int, height: Int)?
        var forced = Set<Int64>()
        switch rendering {
        case .sharedCopies:
            guard case .success(let shared) = sharedPlan else { preconditionFailure("sharedCopies without its set-up") }
            configuration = shared.configuration
        case .encoded, .copied:
            do {
                configuration = try VideoEncoderConfiguration(reencoding: video, settings: settings, target: .presentationSegments)
            } catch let error as RequestError {
                // A profile or level the picture does not fit: say which input's picture.
                throw RequestError(subject: error.subject, problem: "\(input): \(error.problem)")
            }
            if ["libx264", "libx265"].contains(configuration.encoderName) {
                // A segment's first picture must be an IDR (x265 would make it a CRA, whose leading
                // pictures need the segment before).
                configuration.options["forced-idr"] = "1"
            }
            scaled = configuration.pixelFormat.planarLayout.flatMap { VideoEncoderConfiguration.scaledPicture(of: video, settings: settings, layout: $0) }
            if let interval = configuration.forcedKeyframes {
                var schedule = KeyframeSchedule(interval)
                forced = Set(encodedPlan.pictureTimestamps.filter { schedule.isKeyframe(at: encodedPlan.time($0)) })
            }
            // A ladder's renditions share the source's notices: said once, for the first.
            let said = setups.keys.contains { $0.rendering == rendering }
            for notice in configuration.notices(reencoding: video, scaled: scaled != nil, input: input, output: "an HLS presentation is")
            where !said {
                warn(notice)
            }
        }
        let header = try Encoder(configuration, file: input)
        let setup = VideoSetup(configuration: configuration, scaled: scaled, forcedKeyframes: forced, header: header,
                               convertsAnnexB: header.name == "libx264" || header.name == "libx265",
                               timecode: file.timecode(of: stream, warn: warn))
        setups[key] = setup
        return setup
    }

    /// Why unmarked segments cannot be shared (nil: they can).
    public var sharingRefusal: SharingRefusal? {
        if case .failure(let refusal) = sharedPlan { return refusal }
        return nil
    }

    /// The plan `rendering` follows (the same cuts for every row of that rendering).
    func plan(_ rendering: PresentationRendering) -> PresentationPlan {
        switch rendering {
        case .sharedCopies:
            guard case .success(let shared) = sharedPlan else { preconditionFailure("sharedCopies for an input that cannot share") }
            return shared.plan
        case .encoded: return encodedPlan
        case .copied:
            guard let copiedPlan else { preconditionFailure("copied for an input without a keyframe to cut at") }
            return copiedPlan
        }
    }

    /// The segments `rendering` cuts this input into: what a playlist lists, before anything is rendered.
    public func segments(_ rendering: PresentationRendering) -> [PlannedSegment] { plan(rendering).plannedSegments }

    /// The video's length on the marks' clock.
    public var duration: PresentationTime {
        encodedPlan.time(encodedPlan.endTimestamp)
    }
}

extension OutputTarget {
    /// What a presentation's segments are, for the decisions that depend on the container only.
    static let presentationSegments = OutputTarget(kind: .hlsPresentation, path: "segment.m4s", container: .fragmentedMP4)
}
