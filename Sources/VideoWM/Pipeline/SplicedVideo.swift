import Animation
import Overlay

/// What smart rendering needs for one output: the input's packet index (shared by every output
/// of a job) and the spans this output re-encodes.
struct SpliceJob {
    let index: VideoPacketIndex
    let codec: VideoCodec
    let plan: SmartPlan
    /// H.264: the SPS/PPS id the re-encoded spans take, one the input does not use (nil otherwise).
    let parameterSetID: Int?
}

/// A smart-rendered output's video: the pictures of each span marked and encoded again by an
/// encoder of the input's codec and constraints, every other packet copied, all of it put in
/// order by a `SpliceSink` (docs/design/smart-rendering.md, sections 4–6).
///
/// Each span gets its own encoder, opened at its first picture and drained at its last: none of
/// FFmpeg's H.264/HEVC/VP9 encoders here can be flushed and used again, and one encoder kept
/// across spans would hold a span's last pictures until the next span begins, so the copied
/// packets between them (and the audio the muxer interleaves with them) would wait in memory.
final class SplicedVideo {
    private let job: SpliceJob
    private let stream: InputStream
    private let video: VideoStreamDescription
    private let marker: FrameMarker
    private let sink: SpliceSink
    private let settings: EncodeSettings
    private let target: String
    /// The span each replaced picture belongs to, and the input's duration of that picture.
    private var spanOfPicture: [Int64: Int] = [:]
    private var durationOfPicture: [Int64: Int64] = [:]
    private var open: (span: Int, encoder: Encoder, received: Set<Int64>)?
    /// The span whose first pictures wait (unmarked) for its quality trial.
    private var waiting: (span: Int, pictures: [(frame: Frame, pts: Int64, time: PresentationTime)])?
    /// Spans fully encoded and written.
    private var completedSpans = 0
    /// The encoder opened for the stream header (its parameter sets), kept for the first span.
    private var headerEncoder: Encoder?
    /// For H.264: the SPS/PPS id the encoder writes, one the input does not use.
    private let parameterSetID: Int
    private let scratchFrame: Frame
    private let scratchPacket: Packet
    private(set) var picturesEncoded = 0
    /// Each quality-matched span's CRF and what chose it, in span order (for `-v`).
    private(set) var spanQualities: [SpanQualityReport] = []

    /// - Parameter timecode: the stream's timecode clock for `{timecode}`, as a full render has it.
    init(job: SpliceJob, source: VideoSource, compositor: Compositor, settings: EncodeSettings, timecode: Timecode?, muxer: Muxer, target: String,
         warn: @escaping WarningHandler) throws {
        self.job = job
        let stream = source.stream, video = source.video
        self.stream = stream
        self.video = video
        self.settings = settings
        self.target = target
        parameterSetID = job.parameterSetID ?? 0
        scratchFrame = try Frame()
        scratchPacket = try Packet()
        for (n, span) in job.plan.spans.enumerated() {
            for packet in span.replacedPackets {
                let pts = job.index.packets[packet].pts
                spanOfPicture[pts] = n
                durationOfPicture[pts] = job.index.packets[packet].duration
            }
        }
        var encoderHeader: [UInt8] = []
        if !job.plan.spans.isEmpty {
            // A refusal here is a Failure, which the caller turns into a full render (auto) before anything is written.
            let encoder = try Self.encoder(for: 0, job: job, video: video, stream: stream, settings: settings, parameterSetID: parameterSetID, file: target)
            encoderHeader = encoder.extradata
            headerEncoder = encoder
        }
        headerEncoderHeader = encoderHeader
        let bitstream: SpliceBitstream
        do {
            bitstream = try SpliceBitstream(codec: job.codec, inputFraming: job.index.framing, inputExtradata: stream.extradata,
                                            inputParameterSets: job.index.parameterSets, encoderHeader: encoderHeader,
                                            annexBOutput: muxer.container.storesAnnexB,
                                            allowingFrameNumGaps: job.plan.spans.contains { $0.keyframeBecomingIDR != nil })
        } catch {
            throw SpliceSink.Failure(reason: "\(error)")
        }
        let output = try muxer.addSplicedVideoStream(copying: stream, extradata: bitstream.extradata,
                                                     tag: bitstream.sampleEntryTag(mp4: muxer.container.family == .mp4))
        sink = SpliceSink(destination: output, timeBase: stream.timeBase, plan: job.plan, decodeTimestamps: job.index.decodeTimestamps,
                          bitstream: bitstream, file: target)
        marker = try FrameMarker.prepared(compositor: compositor, video: video, timecode: timecode, file: source.path, format: video.pixelFormat,
                                          outputWidth: video.width, outputHeight: video.height, warn: warn)
    }

    /// The encoder parameter sets the sample entry lists; every span's encoder must write the same.
    private let headerEncoderHeader: [UInt8]

    /// The encoder configuration for span `span`: the input's codec, profile, level, pixel format,
    /// size, colour and reorder depth, at `crf` (the quality trial's, capped at twice the bytes
    /// replaced) or at the rate of the packets it replaces; `--crf`/`--bitrate` win over both.
    private static func configuration(for span: Int, job: SpliceJob, video: VideoStreamDescription, stream: InputStream, settings: EncodeSettings,
                                      parameterSetID: Int, crf: Double? = nil) -> VideoEncoderConfiguration {
        let replaced = job.plan.spans[span].replacedPackets
        let input = SpliceEncoderSettings.Input(codec: job.codec, profileName: stream.profileName, level: stream.level,
                                                reorderDelay: stream.reorderDelay, gopFrames: job.index.longestGOP,
                                                matchedBitRate: job.index.bitRate(of: replaced))
        let seconds = job.index.timeBase.seconds(replaced.reduce(Int64(0)) { $0 + max(job.index.packets[$1].duration, 0) })
        let splice = SpliceEncoderSettings(input: input, crf: settings.crf, bitRate: settings.bitRate, preset: settings.preset,
                                           spsID: parameterSetID, matchedCRF: crf, spanSeconds: seconds)
        return VideoEncoderConfiguration(
            encoderName: splice.encoderName, pixelFormat: video.pixelFormat, width: video.width, height: video.height,
            sampleAspect: video.codecSampleAspect, timeBase: stream.timeBase, frameRate: video.frameRate,
            // The input's own tags, unspecified ones included: the spliced pictures must say what the copied ones say.
            color: video.color, threads: settings.threads, bitRate: splice.bitRate, maxRate: splice.maxRate, bufferSize: splice.bufferSize,
            // Parameter sets are placed by SpliceBitstream, never repeated by the encoder.
            globalHeader: true, options: splice.options)
    }

    private static func encoder(for span: Int, job: SpliceJob, video: VideoStreamDescription, stream: InputStream, settings: EncodeSettings,
                                parameterSetID: Int, file: String, crf: Double? = nil) throws -> Encoder {
        try openingOurEncoder(span: span) {
            try Encoder(configuration(for: span, job: job, video: video, stream: stream, settings: settings, parameterSetID: parameterSetID,
                                      crf: crf), file: file)
        }
    }

    /// Runs `body`, which opens an encoder with settings this type chose; a refusal is a splice that
    /// cannot be made (`auto` renders in full instead), never the user's usage error.
    private static func openingOurEncoder<T>(span: Int, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as EncoderError {
            throw SpliceSink.Failure(reason: "the \(error.encoder) encoder refused the settings chosen for span \(span + 1)"
                                        + (error.code.map { " (\($0))" } ?? ""), refusedEncoder: error)
        }
    }

    /// Spans match the input's quality unless the user chose a CRF or a bit rate.
    private var matchesQuality: Bool { settings.crf == nil && settings.bitRate == nil }

    /// The CRF for span `span` from a trial encode of its first pictures (`SpanQuality`), inside
    /// the range the input's profile allows and the byte bound the trials measure.
    private func trialCRF(span: Int, pictures: [(frame: Frame, pts: Int64, time: PresentationTime)]) throws -> Double {
        let codec = job.codec
        let range = SpanQuality.crfRange(codec, profileName: stream.profileName, bitDepth: video.pixelFormat.bitDepth)
        let initial = min(max(SpanQuality.initialCRF(codec: codec, meanQuantiser: job.index.meanQuantiser(of: job.plan.spans[span].replacedPackets)),
                              range.lowerBound), range.upperBound)
        // Pictures the marker would convert first (a size or format change mid-stream) are not the encoder's own: no trial.
        guard pictures.allSatisfy({ $0.frame.pixelFormat == video.pixelFormat && $0.frame.width == video.width && $0.frame.height == video.height })
        else { return initial }
        let spanJob = job, spanVideo = video, spanStream = stream, spanSettings = settings, id = parameterSetID
        let choice = try Self.openingOurEncoder(span: span) {
            try SpanQualityTrial.chooseCRF(pictures: pictures.map { ($0.frame, $0.pts) }, replacedBytes: replacedBytes(span: span, pictures: pictures.map(\.pts)),
                                           initial: initial, range: range, file: target) { crf in
                Self.configuration(for: span, job: spanJob, video: spanVideo, stream: spanStream, settings: spanSettings, parameterSetID: id, crf: crf)
            }
        }
        let times = job.plan.spans[span].replacedPackets.map { job.index.timeBase.seconds(job.index.packets[$0].pts - job.index.firstPresentationTimestamp) }
        spanQualities.append(SpanQualityReport(span: span + 1, startSeconds: times.min() ?? 0, endSeconds: times.max() ?? 0, choice: choice))
        return choice.crf
    }

    /// The bytes of span `span`'s input packets for the pictures at `timestamps`.
    private func replacedBytes(span: Int, pictures timestamps: [Int64]) -> Int {
        let wanted = Set(timestamps)
        return job.plan.spans[span].replacedPackets.reduce(0) { wanted.contains(job.index.packets[$1].pts) ? $0 + job.index.sizes[$1] : $0 }
    }

    /// Whether input video packet `index` is re-encoded rather than copied.
    func replaces(_ index: Int) -> Bool { sink.isReplaced(index) }

    /// Copies input video packet `index` unless a span replaces it.
    func passThrough(_ packet: Packet, index: Int) throws {
        try sink.copy(packet, index: index)
    }

    /// Marks and encodes a decoded picture when a span replaces it; other pictures (references
    /// decoded for a span's leading pictures, or another output's spans) are not this output's.
    /// When spans match the input's quality, a span's first pictures wait (unmarked) for the trial
    /// that chooses its CRF.
    func consume(_ timed: VideoSource.TimedFrame, exclusive: Bool) throws {
        guard let span = spanOfPicture[timed.pts] else { return }
        if open == nil && waiting == nil {
            guard span == completedSpans else {
                throw SpliceSink.Failure(reason: "the pictures of span \(span + 1) came before span \(completedSpans + 1) was complete")
            }
            if matchesQuality { waiting = (span, []) } else { try openEncoder(span: span, crf: nil) }
        }
        if var held = waiting {
            guard held.span == span, !held.pictures.contains(where: { $0.pts == timed.pts }) else {
                throw SpliceSink.Failure(reason: "a picture at \(timed.pts) arrived outside its span's order")
            }
            let picture = try Frame()
            try picture.reference(timed.frame, file: target)
            held.pictures.append((picture, timed.pts, timed.time))
            waiting = held
            guard held.pictures.count == min(SpanQuality.trialPictures, job.plan.spans[span].replacedPackets.count) else { return }
            waiting = nil
            try openEncoder(span: span, crf: try trialCRF(span: span, pictures: held.pictures))
            for picture in held.pictures { try encode(picture.frame, pts: picture.pts, time: picture.time, span: span, exclusive: true) }
            return
        }
        try encode(timed.frame, pts: timed.pts, time: timed.time, span: span, exclusive: exclusive)
    }

    private func openEncoder(span: Int, crf: Double?) throws {
        let encoder: Encoder
        if crf == nil, let header = headerEncoder {
            encoder = header
        } else {
            encoder = try Self.encoder(for: span, job: job, video: video, stream: stream, settings: settings,
                                       parameterSetID: parameterSetID, file: target, crf: crf)
        }
        headerEncoder = nil
        if job.codec == .h264 && encoder.extradata != headerEncoderHeader {
            throw SpliceSink.Failure(reason: "the encoder's parameter sets for span \(span + 1) differ from the first span's")
        }
        open = (span, encoder, [])
    }

    private func encode(_ picture: Frame, pts: Int64, time: PresentationTime, span: Int, exclusive: Bool) throws {
        guard var current = open, current.span == span, !current.received.contains(pts) else {
            throw SpliceSink.Failure(reason: "a picture at \(pts) arrived outside its span's order")
        }
        var frame = picture
        if !exclusive {
            try scratchFrame.reference(picture, file: target)
            frame = scratchFrame
        }
        defer { if !exclusive { scratchFrame.unref() } }
        let marked = try marker.mark(frame, at: time)
        marked.presentationTimestamp = pts
        marked.clearPictureType()
        // A span starts with an IDR (a fresh encoder's first picture is one anyway).
        if current.received.isEmpty { marked.requestKeyframe() }
        try current.encoder.send(marked)
        current.received.insert(pts)
        open = current
        picturesEncoded += 1
        try writeEncodedPackets(of: current.encoder)
        if current.received.count == job.plan.spans[span].replacedPackets.count {
            try current.encoder.send(nil)
            try writeEncodedPackets(of: current.encoder)
            try sink.endSpan()
            open = nil
            completedSpans += 1
        }
    }

    /// Hands the encoder's ready packets to the sink, each with the input's duration for its picture.
    private func writeEncodedPackets(of encoder: Encoder) throws {
        while try encoder.receive(into: scratchPacket) == .produced {
            defer { scratchPacket.unref() }
            if encoder.timeBase != stream.timeBase { scratchPacket.rescale(from: encoder.timeBase, to: stream.timeBase) }
            if let pts = scratchPacket.presentationTimestamp, let duration = durationOfPicture[pts] { scratchPacket.duration = duration }
            try sink.writeEncoded(scratchPacket)
        }
    }

    /// The decoder finished a run of packets ending before input packet `end`: every span whose
    /// packets all lie before it must have had all its pictures.
    func decodeRunEnded(before end: Int) throws {
        for span in completedSpans..<job.plan.spans.count where job.plan.spans[span].decodedPackets.upperBound <= end {
            let received = open.flatMap { $0.span == span ? $0.received.count : nil }
                ?? waiting.flatMap { $0.span == span ? $0.pictures.count : nil } ?? 0
            throw SpliceSink.Failure(reason: "span \(span + 1) decoded to \(received) of its \(job.plan.spans[span].replacedPackets.count) pictures")
        }
    }

    /// Checks that every span was written in full.
    func finish() throws {
        guard open == nil, waiting == nil else { throw SpliceSink.Failure(reason: "span \((open?.span ?? waiting?.span ?? 0) + 1) was cut short") }
        try sink.finish()
    }
}
