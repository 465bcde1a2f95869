import Animation
import CAVCodec
import CAVFormat
import CAVUtil
import Foundation
import Overlay

/// What a finished transcode reports.
public struct TranscodeSummary: Sendable {
    public var videoFrames: Int
    public var copiedStreams: Int
    public var droppedStreams: [String]
}

/// Progress of a running job: presentation time reached and the total, in seconds.
public typealias ProgressHandler = (_ doneSeconds: Double, _ totalSeconds: Double?, _ frames: Int) -> Void

/// `videowm transcode`: every video frame decoded, marked at its presentation time and
/// re-encoded; every other stream the output container accepts copied untouched.
///
/// The stages follow FFmpeg's `doc/examples/transcode.c`: demux (`InputFile`), decode
/// (`Decoder`), mark (`Compositor`), encode (`Encoder`), mux (`OutputFile`), with timestamps
/// rescaled at every time-base boundary and flushing as its own step.
public struct Transcoder {
    public var input: String
    public var output: String
    public var compositor: Compositor
    public var settings: EncodeSettings
    public var overwrite: Bool
    public var warn: WarningHandler
    public var progress: ProgressHandler?

    public init(input: String, output: String, compositor: Compositor, settings: EncodeSettings,
                overwrite: Bool, warn: @escaping WarningHandler, progress: ProgressHandler? = nil) {
        self.input = input
        self.output = output
        self.compositor = compositor
        self.settings = settings
        self.overwrite = overwrite
        self.warn = warn
        self.progress = progress
    }

    public func run() throws -> TranscodeSummary {
        let source = try InputFile(path: input)
        guard let videoIndex = source.bestVideoStreamIndex() else {
            throw VideoWMError.corrupt(input, "has no video stream")
        }
        let destination = try AtomicOutput(target: output, overwrite: overwrite, inputs: [input])
        let job = try TranscodeJob(source: source, videoIndex: videoIndex, destination: destination, transcoder: self)
        let summary = try job.run()
        try destination.commit()
        return summary
    }
}

/// The state of one running transcode.
final class TranscodeJob {
    let source: InputFile
    let videoIndex: Int
    let destination: AtomicOutput
    let muxer: OutputFile
    let decoder: Decoder
    let encoder: Encoder
    let compositor: Compositor
    let rotation: DisplayRotation
    let warn: WarningHandler
    let progress: ProgressHandler?
    /// Output stream index for each input stream, nil when the stream is dropped.
    var streamMap: [Int: Int] = [:]
    var droppedStreams: [String] = []
    var videoOutputStream: UnsafeMutablePointer<AVStream>
    var clock: FrameClock
    /// Created on first use: it needs the encoder's pixel format, chosen while opening it.
    lazy var marker = FrameMarker(compositor: compositor, targetFormat: encoder.context.pointee.pix_fmt,
                                  rotation: rotation, file: source.path)
    var lastPts: Int64?
    var lastDuration: Int64 = 0
    var framesEncoded = 0
    var lastTimeSeconds = 0.0
    let encodedPacket: Packet

    init(source: InputFile, videoIndex: Int, destination: AtomicOutput, transcoder: Transcoder) throws {
        self.source = source
        self.videoIndex = videoIndex
        self.destination = destination
        self.compositor = transcoder.compositor
        self.warn = transcoder.warn
        self.progress = transcoder.progress
        let inputStream = source.stream(videoIndex)
        muxer = try OutputFile(path: destination.temporaryPath, target: transcoder.output)
        decoder = try Decoder(stream: inputStream, file: source.path, threads: transcoder.settings.threads)
        let codec = transcoder.settings.videoCodec(forOutput: transcoder.output)
        encoder = try Encoder(codecName: codec.encoderName, file: transcoder.output)
        rotation = Self.displayRotation(of: inputStream)
        let timeBase = inputStream.pointee.time_base
        clock = FrameClock(timeBaseNumerator: timeBase.num, timeBaseDenominator: timeBase.den)
        encodedPacket = try Packet()
        videoOutputStream = try muxer.addStream()
        try configureEncoder(codec: codec, settings: transcoder.settings, inputStream: inputStream)
        try mapOtherStreams()
        try compositor.prepare(storedWidth: Int(decoder.context.pointee.width), storedHeight: Int(decoder.context.pointee.height), rotation: rotation)
        av_dict_copy(&muxer.context.pointee.metadata, source.context.pointee.metadata, 0)
        try copyChapters()
        var muxOptions: [String: String] = [:]
        if ["mp4", "mov", "ipod", "3gp"].contains(muxer.formatName) { muxOptions["movflags"] = "+faststart" }
        try muxer.writeHeader(options: muxOptions)
    }

    /// The rotation players apply to this stream (its display matrix), in clockwise quarter turns.
    static func displayRotation(of stream: UnsafeMutablePointer<AVStream>) -> DisplayRotation {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return .upright }
        let counterclockwise = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard counterclockwise.isFinite else { return .upright }
        return DisplayRotation(clockwiseQuarterTurns: Int((-counterclockwise / 90).rounded()))
    }

    private func configureEncoder(codec: EncodeSettings.VideoCodec, settings: EncodeSettings, inputStream: UnsafeMutablePointer<AVStream>) throws {
        let dec = decoder.context.pointee
        let enc = encoder.context
        enc.pointee.width = dec.width
        enc.pointee.height = dec.height
        enc.pointee.sample_aspect_ratio = dec.sample_aspect_ratio
        enc.pointee.pix_fmt = try chooseEncoderPixelFormat(decoded: dec.pix_fmt)
        // Keep the input's time base so every timestamp passes through exactly.
        enc.pointee.time_base = inputStream.pointee.time_base
        let rate = inputStream.pointee.avg_frame_rate.num > 0 ? inputStream.pointee.avg_frame_rate : inputStream.pointee.r_frame_rate
        if rate.num > 0 && rate.den > 0 { enc.pointee.framerate = rate }
        enc.pointee.color_primaries = dec.color_primaries
        enc.pointee.color_trc = dec.color_trc
        enc.pointee.colorspace = dec.colorspace
        enc.pointee.color_range = dec.color_range
        enc.pointee.chroma_sample_location = dec.chroma_sample_location
        enc.pointee.thread_count = Int32(settings.threads)
        enc.pointee.bit_rate = Int64(settings.bitRate ?? 0)
        if muxer.needsGlobalHeader { enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open(options: settings.encoderOptions(for: codec))
        try check(avcodec_parameters_from_context(videoOutputStream.pointee.codecpar, enc), "setting up the video stream", file: muxer.target, status: .ioError)
        videoOutputStream.pointee.time_base = enc.pointee.time_base
        videoOutputStream.pointee.sample_aspect_ratio = dec.sample_aspect_ratio
        videoOutputStream.pointee.avg_frame_rate = inputStream.pointee.avg_frame_rate
        videoOutputStream.pointee.r_frame_rate = inputStream.pointee.r_frame_rate
        videoOutputStream.pointee.disposition = inputStream.pointee.disposition
        av_dict_copy(&videoOutputStream.pointee.metadata, inputStream.pointee.metadata, 0)
        // Keep the display rotation: marks are drawn rotated into the stored frame, so the
        // player's rotation makes both picture and mark upright (applied once, by the player).
        var size: Int = 0
        if let matrix = av_stream_get_side_data(inputStream, AV_PKT_DATA_DISPLAYMATRIX, &size), size > 0,
           let copy = av_stream_new_side_data(videoOutputStream, AV_PKT_DATA_DISPLAYMATRIX, size) {
            copy.update(from: matrix, count: size)
        }
        streamMap[videoIndex] = Int(videoOutputStream.pointee.index)
    }

    /// The decoded format when the encoder takes it and marks can be blended into it;
    /// otherwise the encoder's closest format that can.
    private func chooseEncoderPixelFormat(decoded: AVPixelFormat) throws -> AVPixelFormat {
        let supported = encoder.supportedPixelFormats
        if PlanarYUVLayout(decoded) != nil && (supported.isEmpty || supported.contains(decoded)) { return decoded }
        let blendable = supported.filter { PlanarYUVLayout($0) != nil }
        guard !blendable.isEmpty else { throw VideoWMError(.usage, "the \(encoder.name) encoder takes no planar YUV format") }
        var list = blendable + [AV_PIX_FMT_NONE]
        let best = avcodec_find_best_pix_fmt_of_list(&list, decoded, 0, nil)
        return best == AV_PIX_FMT_NONE ? blendable[0] : best
    }

    private func mapOtherStreams() throws {
        for index in 0..<source.streamCount where index != videoIndex {
            let stream = source.stream(index)
            let par = stream.pointee.codecpar!
            let type = av_get_media_type_string(par.pointee.codec_type).map { String(cString: $0) } ?? "data"
            let codecName = String(cString: avcodec_get_name(par.pointee.codec_id))
            guard muxer.accepts(par.pointee.codec_id) else {
                let what = "stream \(index) (\(type), \(codecName))"
                droppedStreams.append(what)
                warn("\(source.path): \(what) cannot be stored in a .\((muxer.target as NSString).pathExtension) file; left out")
                continue
            }
            let out = try muxer.addStream()
            try check(avcodec_parameters_copy(out.pointee.codecpar, par), "copying stream \(index)", file: muxer.target, status: .ioError)
            out.pointee.codecpar.pointee.codec_tag = 0
            out.pointee.time_base = stream.pointee.time_base
            out.pointee.disposition = stream.pointee.disposition
            av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0)
            streamMap[index] = Int(out.pointee.index)
        }
    }

    private func copyChapters() throws {
        let count = Int(source.context.pointee.nb_chapters)
        guard count > 0, let chapters = source.context.pointee.chapters else { return }
        guard let list = av_calloc(count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride)?
            .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self) else { return }
        var copied = 0
        for i in 0..<count {
            guard let src = chapters[i], let chapter = av_mallocz(MemoryLayout<AVChapter>.stride)?.assumingMemoryBound(to: AVChapter.self) else { continue }
            chapter.pointee.id = src.pointee.id
            chapter.pointee.time_base = src.pointee.time_base
            chapter.pointee.start = src.pointee.start
            chapter.pointee.end = src.pointee.end
            av_dict_copy(&chapter.pointee.metadata, src.pointee.metadata, 0)
            list[copied] = chapter
            copied += 1
        }
        muxer.context.pointee.chapters = list
        muxer.context.pointee.nb_chapters = UInt32(copied)
    }

    func run() throws -> TranscodeSummary {
        let packet = try Packet()
        let frame = try Frame()
        let total = source.durationSeconds
        while try source.read(into: packet) {
            try Interruption.throwIfRequested()
            defer { packet.unref() }
            let index = packet.streamIndex
            if index == videoIndex {
                try decode(packet, into: frame)
            } else if let outIndex = streamMap[index] {
                let inStream = source.stream(index)
                let outStream = muxer.context.pointee.streams[outIndex]!
                av_packet_rescale_ts(packet.pointer, inStream.pointee.time_base, outStream.pointee.time_base)
                packet.pointer.pointee.stream_index = Int32(outIndex)
                packet.pointer.pointee.pos = -1
                try muxer.write(packet)
            }
            if let progress, index == videoIndex {
                progress(lastTimeSeconds, total, framesEncoded)
            }
        }
        // Flush: drain the decoder, then the encoder, so no frame at the end is lost.
        try decode(nil, into: frame)
        try encoder.send(nil)
        try writeEncodedPackets()
        try muxer.finish()
        progress?(lastTimeSeconds, total, framesEncoded)
        return TranscodeSummary(videoFrames: framesEncoded, copiedStreams: streamMap.count - 1, droppedStreams: droppedStreams)
    }

    private func decode(_ packet: Packet?, into frame: Frame) throws {
        _ = try decoder.send(packet)
        while true {
            switch try decoder.receive(into: frame) {
            case .produced:
                defer { frame.unref() }
                try encodeMarked(frame)
            case .needsInput, .endOfStream:
                return
            }
        }
    }

    private func encodeMarked(_ frame: Frame) throws {
        let f = frame.pointer
        // Each frame's own best-effort timestamp, never a counter: B-frames, VFR and
        // edit lists keep their timing.
        var pts: Int64? = f.pointee.best_effort_timestamp
        if pts == vwm_nopts_value() { pts = nil }
        let duration = f.pointee.pkt_duration > 0 ? f.pointee.pkt_duration : nil
        let time = clock.time(ofTimestamp: pts, duration: duration)
        lastTimeSeconds = time.seconds
        let outputPts = pts ?? ((lastPts ?? -lastDuration) + lastDuration)
        lastPts = outputPts
        lastDuration = duration ?? lastDuration

        let target = try marker.mark(frame, at: time, expectedWidth: Int(encoder.context.pointee.width),
                                     expectedHeight: Int(encoder.context.pointee.height))
        target.pointer.pointee.pts = outputPts
        target.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try encoder.send(target)
        framesEncoded += 1
        try writeEncodedPackets()
    }

    private func writeEncodedPackets() throws {
        while true {
            switch try encoder.receive(into: encodedPacket) {
            case .produced:
                av_packet_rescale_ts(encodedPacket.pointer, encoder.context.pointee.time_base, videoOutputStream.pointee.time_base)
                encodedPacket.pointer.pointee.stream_index = videoOutputStream.pointee.index
                try muxer.write(encodedPacket)
                encodedPacket.unref()
            case .needsInput, .endOfStream:
                return
            }
        }
    }
}
