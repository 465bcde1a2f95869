import Animation
import Foundation
import Overlay

/// The encoding and muxing half of a job: one output file fed by a `VideoSource`, assembled as
/// its `OutputPlan` says.
///
/// Assembled from Media's stages: the video is either marked (`FrameMarker`) and re-encoded
/// (`Encoder`), or smart-rendered (`SplicedVideo`: only the GOPs a mark touches re-encoded, the
/// rest copied), or copied packet for packet (`StreamCopier`); every other stream goes where its
/// route says (copied, re-encoded by an `AudioReencoder`, converted by a `SubtitleConverter`).
/// All of them write into the `Muxer`'s streams through `PacketSink`. The file appears only when
/// `finish()` succeeds. (An `.m3u8` output is a `PresentationRow`'s, not this.)
final class MarkedOutput {
    let output: OutputTarget
    /// The output's path, as errors name it.
    var target: String { output.path }
    private let source: VideoSource
    private let file: AtomicOutput
    private let muxer: Muxer
    private let video: VideoTrack
    /// What consumes each input stream's packets, by input stream index (nil: left out).
    private var consumers: [PacketConsumer?]
    /// Audio re-encoders, drained in stream order at the end.
    private var audioReencoders: [AudioReencoder] = []
    let droppedStreams: [String]
    private(set) var framesWritten = 0
    /// Which frames are forced keyframes (`--gop` in seconds); nil leaves them to the encoder.
    private var keyframes: KeyframeSchedule?

    /// How the output's video is made.
    private enum VideoTrack {
        case encoded(marker: FrameMarker, encoder: Encoder, sink: PacketSink, scratchFrame: Frame, scratchPacket: Packet)
        case copied(StreamCopier)
        case spliced(SplicedVideo)
    }

    var copiesVideo: Bool {
        if case .copied = video { return true }
        return false
    }

    /// Opens the output `plan` describes (its temporary file, muxer, encoder and converters) and
    /// writes the header; the plan's notices are said here.
    init(plan: OutputPlan, source: VideoSource, compositor: Compositor, settings: EncodeSettings, overwrite: Bool,
         warn: @escaping WarningHandler) throws {
        self.source = source
        output = plan.target
        droppedStreams = plan.droppedStreams
        let target = plan.target
        file = try AtomicOutput(target: target.path, overwrite: overwrite, inputs: [source.path])
        muxer = try Muxer(path: file.temporaryPath, target: target)
        consumers = Array(repeating: nil, count: source.input.streams.count)
        let timecode = source.input.timecode(of: source.stream, warn: warn)
        let videoTimeBase: Rational
        switch plan.video {
        case .copy:
            video = .copied(try StreamCopier(from: source.stream, to: try muxer.addStream(copying: source.stream), file: target.path))
            videoTimeBase = source.stream.timeBase
        case .splice(let job):
            video = .spliced(try SplicedVideo(job: job, source: source, compositor: compositor, settings: settings, timecode: timecode,
                                              muxer: muxer, target: target.path, warn: warn))
            videoTimeBase = source.stream.timeBase
        case .encode(let configuration, let scaled):
            let encoder = try Encoder(configuration, file: target.path)
            let sink = try muxer.addVideoStream(encodedBy: encoder, replacing: source.stream)
            let marker = try FrameMarker.prepared(compositor: compositor, video: source.video, timecode: timecode, file: source.path,
                                                  format: configuration.pixelFormat, outputWidth: configuration.width,
                                                  outputHeight: configuration.height, scaled: scaled, warn: warn)
            video = .encoded(marker: marker, encoder: encoder, sink: sink, scratchFrame: try Frame(), scratchPacket: try Packet())
            keyframes = configuration.forcedKeyframes.map(KeyframeSchedule.init)
            videoTimeBase = encoder.timeBase
        }
        for notice in plan.notices { warn(notice) }
        for (index, route) in plan.routes {
            let stream = source.input.stream(index)
            switch route {
            case .copy:
                consumers[index] = try StreamCopier(from: stream, to: try muxer.addStream(copying: stream), file: target.path)
            case .reencodeAudio(let encoderName, _):
                let reencoder = try AudioReencoder(stream: stream, input: source.path, encoderName: encoderName, muxer: muxer)
                consumers[index] = reencoder
                audioReencoders.append(reencoder)
            case .convertSubtitles(let encoderName):
                consumers[index] = try SubtitleConverter(stream: stream, input: source.path, encoderName: encoderName, muxer: muxer)
            case .drop:
                continue
            }
        }
        muxer.copyMetadataAndChapters(from: source.input)
        for (key, value) in plan.tags { try muxer.setTag(key, to: value) }
        try muxer.writeHeader(options: muxerOptions(for: muxer, videoTimeBase: videoTimeBase))
    }

    /// Marks and encodes one decoded frame. `exclusive` says the frame is this output's
    /// alone (it may be marked in place); otherwise a reference is taken and copied on write.
    func consume(_ timed: VideoSource.TimedFrame, exclusive: Bool) throws {
        switch video {
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
        // The decoder's picture type would carry the input's keyframes over; only the schedule places them.
        marked.clearPictureType()
        if keyframes?.isKeyframe(at: timed.time) == true { marked.requestKeyframe() }
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
        file.discard()
    }

    /// How each quality-matched span of a smart render was encoded (empty otherwise).
    var spanQualities: [SpanQualityReport] {
        if case .spliced(let spliced) = video { return spliced.spanQualities }
        return []
    }

    /// Drains the encoder, finishes the file and moves it into place. A video stream that
    /// gave no frame at all (a file cut short after its header) is an error, never an
    /// output holding only the audio.
    func finish() throws {
        guard framesWritten > 0 else {
            // Out of address space (ulimit -v), a decoder may conceal every picture rather than say so.
            if !SystemShortage.addressSpaceAvailable() { throw ResourceError.memory("decoding \(source.path)") }
            throw MediaError(file: source.path, detail: "its video stream has no frame that can be decoded (truncated or damaged)")
        }
        switch video {
        case .encoded(_, let encoder, let sink, _, let scratchPacket):
            try encoder.send(nil)
            try encoder.writePackets(to: sink, using: scratchPacket)
        case .spliced(let spliced):
            try spliced.finish()
        case .copied:
            break
        }
        for reencoder in audioReencoders { try reencoder.finish() }
        try muxer.finish()
        try file.commit()
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
