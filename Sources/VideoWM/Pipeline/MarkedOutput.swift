import Animation
import Foundation
import Overlay

/// The encoding and muxing half of a job: one output file fed by a `VideoSource`.
///
/// Assembled from Media's stages: the video is either marked (`FrameMarker`) and
/// re-encoded (`Encoder`), or smart-rendered (`SplicedVideo`: only the GOPs a mark touches
/// re-encoded, the rest copied), or — when no layer applies (a paid tier's clean copy) — copied
/// packet for packet (`StreamCopier`); every other stream goes where `StreamRoute` says
/// (copied, re-encoded by an `AudioReencoder`, converted by a `SubtitleConverter`, or left
/// out). All of them write into the `Muxer`'s streams through `PacketSink`. The file
/// appears only when `finish()` succeeds.
///
/// An `.m3u8` target is an HLS presentation instead of a file: the muxer writes a fragmented
/// MP4 into memory, an `HLSSegmenter` cuts it into segments at keyframes the encoder is made to
/// place every `--segment` seconds, and an `HLSPresentation` publishes the segments and, last,
/// the playlist.
///
/// Over 300 lines: it is the one place where the four ways of making the video (encoded,
/// copied, spliced, segment by segment) meet the two destinations (file, presentation); each
/// way's own work lives in its type (`SplicedVideo`, `SegmentwiseVideo`, `StreamCopier`).
final class MarkedOutput {
    let output: OutputTarget
    /// The output's path, as errors name it.
    var target: String { output.path }
    private let source: VideoSource
    private let destination: Destination
    private let muxer: Muxer
    private let video: VideoTrack
    /// What consumes each input stream's packets, by input stream index (nil: left out).
    private var consumers: [PacketConsumer?]
    /// Audio re-encoders, drained in stream order at the end.
    private var audioReencoders: [AudioReencoder] = []
    private(set) var droppedStreams: [String] = []
    private let warn: WarningHandler
    private(set) var framesWritten = 0
    /// Which frames are forced keyframes (`--gop` in seconds); nil leaves them to the encoder.
    private var keyframes: KeyframeSchedule?

    /// Where the muxed output goes.
    private enum Destination {
        case file(AtomicOutput)
        /// The segmenter is the muxer's packet router, held here (the muxer holds it weakly).
        case presentation(HLSPresentation, HLSSegmenter)
    }

    /// Which frames are forced keyframes: an HLS segment starts at each.
    private var segmentStarts: IntervalBoundaries?

    /// How the output's video is made.
    private enum VideoTrack {
        case encoded(marker: FrameMarker, encoder: Encoder, sink: PacketSink, scratchFrame: Frame, scratchPacket: Packet)
        case copied(StreamCopier)
        /// Segment by segment copied or re-encoded (an HLS row sharing its unmarked segments).
        case segmentwise(SegmentwiseVideo)
        case spliced(SplicedVideo)
    }

    var copiesVideo: Bool {
        if case .copied = video { return true }
        return false
    }

    /// What happens to the video when no layer applies.
    enum UnmarkedVideo {
        /// Copy it packet for packet (a batch row whose `unless` removed every layer).
        case copy
        /// Re-encode it anyway (`transcode` with an empty config still changes codec or quality as asked).
        case reencode
    }

    /// - Parameters:
    ///   - hls: for an `.m3u8` target, the segment length and the shared-segment folder.
    ///   - sharing: for an `.m3u8` target of a batch, the cuts and encoder every row
    ///     shares, so that segments without a visible mark are the same files for every row.
    ///   - splice: smart rendering's plan for this output; nil renders every frame.
    init(source: VideoSource, target: OutputTarget, compositor: Compositor, settings: EncodeSettings, hls: HLSSettings = HLSSettings(),
         sharing: SegmentSharing? = nil, overwrite: Bool, unmarkedVideo: UnmarkedVideo = .copy, splice: SpliceJob? = nil,
         warn: @escaping WarningHandler) throws {
        self.source = source
        output = target
        self.warn = warn
        let copiesVideo = compositor.isEmpty && unmarkedVideo == .copy && !settings.copyCannotHonour
        switch target.kind {
        case .file:
            let output = try AtomicOutput(target: target.path, overwrite: overwrite, inputs: [source.path])
            destination = .file(output)
            muxer = try Muxer(path: output.temporaryPath, target: target)
        case .hlsPresentation:
            let presentation = try HLSPresentation(playlist: target.path, overwrite: overwrite, inputs: [source.path],
                                                   sharedFolder: hls.sharedFolder, warn: warn)
            let muxer = try Muxer(fragmentedMP4For: target)
            let rule: HLSSegmenter.CutRule = sharing.map { .atTimes($0.plan.cutTimes) } ?? .everyInterval(hls.segmentDuration)
            let sharedInitialization = copiesVideo || sharing != nil
            let segmenter = HLSSegmenter(muxer: muxer, rule: rule,
                                         onInitialization: { try presentation.publishInitialization($0, shared: sharedInitialization) },
                                         onSegment: { try presentation.publish($0) })
            segmenter.videoPacketsAreReencoded = !copiesVideo
            muxer.packetRouter = segmenter
            destination = .presentation(presentation, segmenter)
            self.muxer = muxer
            if !copiesVideo && sharing == nil { segmentStarts = IntervalBoundaries(interval: hls.segmentDuration) }
        }
        consumers = Array(repeating: nil, count: source.input.streams.count)
        if let sharing, case .presentation(_, let segmenter) = destination {
            let sink = try muxer.addStream(copying: source.stream)
            try sink.setCodecHeader(sharing.sampleDescription)
            let marker = try Self.marker(source: source, compositor: compositor, format: sharing.configuration.pixelFormat,
                                         width: source.width, height: source.height, warn: warn)
            video = .segmentwise(try SegmentwiseVideo(plan: sharing.plan, marked: sharing.plan.markedSegments(by: compositor), marker: marker,
                                                      configuration: sharing.configuration, sink: sink, input: source.stream,
                                                      segmenter: segmenter, file: target.path))
        } else if copiesVideo {
            video = .copied(try StreamCopier(from: source.stream, to: try muxer.addStream(copying: source.stream), file: target.path))
        } else if let splice {
            video = .spliced(try SplicedVideo(job: splice, source: source, compositor: compositor, settings: settings, muxer: muxer,
                                              target: target.path, warn: warn))
        } else {
            let (track, forced) = try Self.encodedVideo(source: source, target: target, compositor: compositor, settings: settings,
                                                        muxer: muxer, warn: warn)
            video = track
            keyframes = forced.map(KeyframeSchedule.init)
        }
        try routeOtherStreams(audio: settings.audio)
        muxer.copyMetadataAndChapters(from: source.input)
        for (key, value) in settings.tags.sorted(by: { $0.key < $1.key }) { try muxer.setTag(key, to: value) }
        let videoTimeBase: Rational
        switch video {
        case .encoded(_, let encoder, _, _, _): videoTimeBase = encoder.timeBase
        case .copied, .segmentwise, .spliced: videoTimeBase = source.stream.timeBase
        }
        try muxer.writeHeader(options: muxerOptions(for: muxer, videoTimeBase: videoTimeBase))
    }

    /// The marking and encoding stages for the video, its output stream, and the interval of
    /// the keyframes the frame path must force.
    private static func encodedVideo(source: VideoSource, target: OutputTarget, compositor: Compositor, settings: EncodeSettings,
                                     muxer: Muxer, warn: @escaping WarningHandler) throws -> (VideoTrack, KeyframeInterval?) {
        var configuration: VideoEncoderConfiguration
        do {
            configuration = try VideoEncoderConfiguration(reencoding: source.video, settings: settings, target: target)
        } catch let error as RequestError {
            // A profile or level the picture does not fit: say which input's picture.
            throw RequestError(subject: error.subject, problem: "\(source.path): \(error.problem)")
        }
        if target.kind == .hlsPresentation && ["libx264", "libx265"].contains(configuration.encoderName) {
            // A segment's forced keyframe must be an IDR (x265 would make it a CRA, whose
            // leading pictures need the segment before).
            configuration.options["forced-idr"] = "1"
        }
        let encoder = try Encoder(configuration, file: target.path)
        let sink = try muxer.addVideoStream(encodedBy: encoder, replacing: source.stream)
        // Scaled first, then marked: the marks are laid out and drawn at the output's size.
        let scaled = VideoEncoderConfiguration.scaledPicture(of: source.video, settings: settings, layout: configuration.pixelFormat.planarLayout!)
        let picture = scaled ?? (source.width, source.height)
        let pixelAspect = scaled == nil ? source.pixelAspect : .square
        compositor.timecode = source.input.timecode(of: source.stream, warn: warn)
        try LayerError.rethrowing {
            try compositor.prepare(storedWidth: picture.width, storedHeight: picture.height, rotation: source.rotation, pixelAspect: pixelAspect)
        }
        let marker = FrameMarker(compositor: compositor, targetFormat: configuration.pixelFormat, rotation: source.rotation,
                                 pixelAspect: pixelAspect, file: source.path, streamWidth: source.width, streamHeight: source.height,
                                 pictureWidth: picture.width, pictureHeight: picture.height,
                                 outputWidth: configuration.width, outputHeight: configuration.height, warn: warn)
        if let order = source.video.fieldOrder.name, !configuration.fieldOrder.isInterlaced {
            warn("\(source.path): interlaced video (\(order)) encoded by \(configuration.encoderName) as progressive frames, not deinterlaced: moving edges keep their combing")
        }
        if source.video.hasAlpha && !configuration.pixelFormat.hasAlpha {
            warn("\(source.path): the video's transparency (alpha channel) is not kept: \(target.path) is opaque")
        }
        if scaled == nil, configuration.width != source.width || configuration.height != source.height {
            warn("\(source.path): \(source.width)×\(source.height) padded to \(configuration.width)×\(configuration.height) for \(configuration.pixelFormat) (the encoder needs even sizes); the extra column or row repeats the edge")
        }
        return (.encoded(marker: marker, encoder: encoder, sink: sink, scratchFrame: try Frame(), scratchPacket: try Packet()),
                configuration.forcedKeyframes)
    }

    /// The marking stage for pictures of the input's own size, encoded as `format` at `width`×`height`.
    private static func marker(source: VideoSource, compositor: Compositor, format: PixelFormat, width: Int, height: Int,
                               warn: @escaping WarningHandler) throws -> FrameMarker {
        compositor.timecode = source.input.timecode(of: source.stream, warn: warn)
        try LayerError.rethrowing {
            try compositor.prepare(storedWidth: source.width, storedHeight: source.height, rotation: source.rotation, pixelAspect: source.pixelAspect)
        }
        return FrameMarker(compositor: compositor, targetFormat: format, rotation: source.rotation,
                           pixelAspect: source.pixelAspect, file: source.path, streamWidth: source.width, streamHeight: source.height,
                           pictureWidth: source.width, pictureHeight: source.height,
                           outputWidth: width, outputHeight: height, warn: warn)
    }

    /// Gives every other input stream its consumer, as `StreamRoute` decides, with a notice
    /// for each stream changed or left out that was not asked for.
    private func routeOtherStreams(audio: EncodeSettings.AudioMode) throws {
        let fileType = output.fileType
        for stream in source.input.streams where stream.index != source.videoIndex {
            let index = stream.index, codecName = stream.codec.name
            let route = StreamRoute.route(for: stream, into: output, audio: audio)
            // An audio stream whose parameters the demuxer never found (a file cut short) could
            // be neither copied nor decoded: the input is at fault, not the output.
            if stream.mediaType == .audio && route != .drop(notice: false) && (stream.sampleRate <= 0 || stream.channelCount <= 0) {
                throw MediaError(file: source.path, detail: "audio stream \(index) (\(codecName)) has no sample rate or channels: the file is damaged or cut short")
            }
            switch route {
            case .copy:
                consumers[index] = try StreamCopier(from: stream, to: try muxer.addStream(copying: stream), file: target)
            case .reencodeAudio(let encoderName, let notice):
                let reencoder = try AudioReencoder(stream: stream, input: source.path, encoderName: encoderName, muxer: muxer)
                consumers[index] = reencoder
                audioReencoders.append(reencoder)
                if notice {
                    warn("\(source.path): audio stream \(index) (\(codecName)) cannot be stored in a \(fileType) file; re-encoded with \(reencoder.encoderName)")
                }
            case .convertSubtitles(let encoderName):
                consumers[index] = try SubtitleConverter(stream: stream, input: source.path, encoderName: encoderName, muxer: muxer)
                warn("\(source.path): subtitle stream \(index) (\(codecName)) cannot be stored in a \(fileType) file; converted to \(encoderName)")
            case .drop(let notice):
                guard notice else { continue }
                let what = "stream \(index) (\(stream.mediaType == .unknown ? "data" : stream.mediaType.name), \(codecName))"
                droppedStreams.append(what)
                warn("\(source.input.path): \(what) cannot be stored in a \(fileType) file; left out of \(target)")
            }
        }
    }

    /// Marks and encodes one decoded frame. `exclusive` says the frame is this output's
    /// alone (it may be marked in place); otherwise a reference is taken and copied on write.
    func consume(_ timed: VideoSource.TimedFrame, exclusive: Bool) throws {
        switch video {
        case .segmentwise(let segments):
            try segments.consume(timed)
            framesWritten = segments.framesWritten
            return
        case .spliced(let spliced):
            let before = spliced.picturesEncoded
            try spliced.consume(timed, exclusive: exclusive)
            framesWritten += spliced.picturesEncoded - before
            return
        case .encoded, .copied:
            break
        }
        guard case .encoded(let marker, let encoder, let sink, let scratchFrame, let scratchPacket) = video else { return }
        var frame = timed.frame
        if !exclusive {
            try scratchFrame.reference(timed.frame, file: target)
            frame = scratchFrame
        }
        defer { if !exclusive { scratchFrame.unref() } }
        let marked = try marker.mark(frame, at: timed.time)
        marked.presentationTimestamp = timed.pts
        // The decoder's picture type would carry the input's keyframes over; only the schedule
        // and the HLS segment starts place them.
        marked.clearPictureType()
        let startsSegment = segmentStarts?.startsSegment(at: timed.time) == true
        if startsSegment || keyframes?.isKeyframe(at: timed.time) == true { marked.requestKeyframe() }
        try encoder.send(marked)
        framesWritten += 1
        try encoder.writePackets(to: sink, using: scratchPacket)
    }

    /// Passes on a packet of the input: another stream's to its consumer, and the video's
    /// (`videoPacket`: its index in decode order) when the video is copied or spliced.
    func passThrough(_ packet: Packet, videoPacket: Int?) throws {
        let index = packet.streamIndex
        if index == source.videoIndex {
            switch video {
            case .copied(let copier):
                framesWritten += 1
                try copier.copy(packet)
            case .spliced(let spliced):
                guard let videoPacket else { return }
                if !spliced.replaces(videoPacket) { framesWritten += 1 }
                try spliced.passThrough(packet, index: videoPacket)
            case .segmentwise(let segments):
                try segments.pass(packet)
                framesWritten = segments.framesWritten
            case .encoded:
                break
            }
            return
        }
        guard index < consumers.count, let consumer = consumers[index] else { return }
        try consumer.consume(packet)
    }

    /// The decoder finished a run of the packets smart rendering selected, before input video packet `end`.
    func decodeRunEnded(before end: Int) throws {
        if case .spliced(let spliced) = video { try spliced.decodeRunEnded(before: end) }
    }

    /// Gives the output up: its temporary file is removed now, and no later call may write.
    /// A batch does this to one failed output while the others sharing its decode go on.
    func abandon() {
        switch destination {
        case .file(let output): output.discard()
        case .presentation(let presentation, _): presentation.abandon()
        }
    }

    /// Drains the encoder, finishes the file and moves it into place. A video stream that
    /// gave no frame at all (a file cut short after its header) is an error, never an
    /// output holding only the audio.
    func finish() throws {
        guard framesWritten > 0 else {
            throw MediaError(file: source.path, detail: "its video stream has no frame that can be decoded (truncated or damaged)")
        }
        switch video {
        case .encoded(_, let encoder, let sink, _, let scratchPacket):
            try encoder.send(nil)
            try encoder.writePackets(to: sink, using: scratchPacket)
        case .spliced(let spliced):
            try spliced.finish()
        case .segmentwise(let segments):
            try segments.finish()
        case .copied:
            break
        }
        for reencoder in audioReencoders { try reencoder.finish() }
        switch destination {
        case .file(let output):
            try muxer.finish()
            try output.commit()
        case .presentation(let presentation, let segmenter):
            try segmenter.finish()
            try muxer.finish()
            try presentation.commit()
        }
    }
}

/// Something an input stream's packets are handed to: a copier, an audio re-encoder, a
/// subtitle converter.
protocol PacketConsumer: AnyObject {
    func consume(_ packet: Packet) throws
}

extension StreamCopier: PacketConsumer {
    func consume(_ packet: Packet) throws { try copy(packet) }
}

extension AudioReencoder: PacketConsumer {
    func consume(_ packet: Packet) throws { try consume(Optional(packet)) }
}

extension SubtitleConverter: PacketConsumer {}
