import CFFmpeg
import Animation
import Foundation
import Overlay

/// The encoding and muxing half of a job: one output file fed by a `VideoSource`.
///
/// The video is either re-encoded with marks (`compositor` has layers) or, when no layer
/// applies (a paid tier's clean copy), copied packet for packet. Every other stream the
/// container accepts is copied. The file appears only when `finish()` succeeds.
final class MarkedOutput {
    let target: String
    private let source: VideoSource
    private let destination: AtomicOutput
    private let muxer: OutputFile
    private let encoder: Encoder?
    private let marker: FrameMarker?
    private let warn: WarningHandler
    /// Output stream index for each input stream; absent when the stream is left out.
    private var streamMap: [Int: Int] = [:]
    /// Audio streams re-encoded instead of copied, by input stream index.
    private var audioTranscoders: [Int: AudioTranscoder] = [:]
    /// Text subtitles converted to the container's text format, by input stream index.
    private var subtitleTranscoders: [Int: SubtitleTranscoder] = [:]
    private let audioMode: EncodeSettings.AudioMode
    private(set) var droppedStreams: [String] = []
    private let videoOutputStream: UnsafeMutablePointer<AVStream>
    private let scratchFrame: Frame
    private let scratchPacket: Packet
    private(set) var framesWritten = 0

    var copiesVideo: Bool { encoder == nil }
    /// The hidden file being written until `finish()` moves it to `target`.
    var temporaryPath: String { destination.temporaryPath }

    /// What happens to the video when no layer applies.
    enum UnmarkedVideo {
        /// Copy it packet for packet (a batch row whose `unless` removed every layer).
        case copy
        /// Re-encode it anyway (`transcode` with an empty config still changes codec or quality as asked).
        case reencode
    }

    init(source: VideoSource, target: String, compositor: Compositor, settings: EncodeSettings,
         overwrite: Bool, unmarkedVideo: UnmarkedVideo = .copy, warn: @escaping WarningHandler) throws {
        self.source = source
        self.target = target
        self.warn = warn
        audioMode = settings.audio
        destination = try AtomicOutput(target: target, overwrite: overwrite, inputs: [source.path])
        muxer = try OutputFile(path: destination.temporaryPath, target: target)
        scratchFrame = try Frame()
        scratchPacket = try Packet()
        let inputStream = source.videoStream
        videoOutputStream = try muxer.addStream()
        if compositor.isEmpty && unmarkedVideo == .copy {
            encoder = nil
            marker = nil
            try Self.copyStreamSetup(from: inputStream, to: videoOutputStream, file: target)
        } else {
            let codec = settings.videoCodec(forOutput: target)
            let encoder = try Encoder(codecName: codec.encoderName, file: target)
            try Self.configure(encoder, codec: codec, settings: settings, source: source, muxer: muxer)
            try check(avcodec_parameters_from_context(videoOutputStream.pointee.codecpar, encoder.context), OutputError.call("setting up the video stream", file: target))
            videoOutputStream.pointee.time_base = encoder.context.pointee.time_base
            videoOutputStream.pointee.sample_aspect_ratio = encoder.context.pointee.sample_aspect_ratio
            videoOutputStream.pointee.avg_frame_rate = inputStream.pointee.avg_frame_rate
            videoOutputStream.pointee.r_frame_rate = inputStream.pointee.r_frame_rate
            videoOutputStream.pointee.disposition = inputStream.pointee.disposition
            av_dict_copy(&videoOutputStream.pointee.metadata, inputStream.pointee.metadata, 0)
            // Keep the display rotation: marks are drawn rotated into the stored frame, so the
            // player's one rotation makes both picture and mark upright.
            Self.copyDisplayMatrix(from: inputStream, to: videoOutputStream)
            try LayerError.rethrowing { try compositor.prepare(storedWidth: source.width, storedHeight: source.height, rotation: source.rotation, pixelAspect: source.pixelAspect) }
            self.encoder = encoder
            marker = FrameMarker(compositor: compositor, targetFormat: encoder.context.pointee.pix_fmt,
                                 rotation: source.rotation, pixelAspect: source.pixelAspect, file: source.path, pictureWidth: source.width, pictureHeight: source.height,
                                 outputWidth: Int(encoder.context.pointee.width), outputHeight: Int(encoder.context.pointee.height), warn: warn)
            if Int(encoder.context.pointee.width) != source.width || Int(encoder.context.pointee.height) != source.height {
                warn("\(source.path): \(source.width)×\(source.height) padded to \(encoder.context.pointee.width)×\(encoder.context.pointee.height) for \(String(cString: av_get_pix_fmt_name(encoder.context.pointee.pix_fmt))) (the encoder needs even sizes); the extra column or row repeats the edge")
            }
        }
        streamMap[source.videoIndex] = Int(videoOutputStream.pointee.index)
        try mapOtherStreams()
        av_dict_copy(&muxer.context.pointee.metadata, source.input.context.pointee.metadata, 0)
        copyChapters()
        var muxOptions: [String: String] = [:]
        if muxer.isMP4Family {
            muxOptions["movflags"] = "+faststart"
            // The video track keeps the input's clock, so every timestamp is stored exactly.
            let timeBase = videoOutputStream.pointee.time_base
            if timeBase.num == 1 && timeBase.den > 0 && timeBase.den <= 1_000_000 {
                muxOptions["video_track_timescale"] = String(timeBase.den)
                // Edit lists (a start offset, B-frame delay) count in the movie timescale: the same clock keeps them exact.
                muxOptions["movie_timescale"] = String(timeBase.den)
            }
        }
        try muxer.writeHeader(options: muxOptions)
    }

    private static func copyDisplayMatrix(from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>) {
        var size: Int = 0
        if let matrix = av_stream_get_side_data(input, AV_PKT_DATA_DISPLAYMATRIX, &size), size > 0,
           let copy = av_stream_new_side_data(output, AV_PKT_DATA_DISPLAYMATRIX, size) {
            copy.update(from: matrix, count: size)
        }
    }

    private static func copyStreamSetup(from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>, file: String) throws {
        try check(avcodec_parameters_copy(output.pointee.codecpar, input.pointee.codecpar), OutputError.call("copying stream \(input.pointee.index)", file: file))
        output.pointee.codecpar.pointee.codec_tag = 0
        output.pointee.time_base = input.pointee.time_base
        output.pointee.disposition = input.pointee.disposition
        output.pointee.sample_aspect_ratio = input.pointee.sample_aspect_ratio
        output.pointee.avg_frame_rate = input.pointee.avg_frame_rate
        output.pointee.r_frame_rate = input.pointee.r_frame_rate
        av_dict_copy(&output.pointee.metadata, input.pointee.metadata, 0)
        copyDisplayMatrix(from: input, to: output)
    }

    private static func configure(_ encoder: Encoder, codec: EncodeSettings.VideoCodec, settings: EncodeSettings,
                                  source: VideoSource, muxer: OutputFile) throws {
        let dec = source.decoder.context.pointee
        let stream = source.videoStream.pointee
        let enc = encoder.context
        enc.pointee.pix_fmt = try chooseEncoderPixelFormat(encoder, decoded: dec.pix_fmt)
        let size = FrameMarker.encodableSize(width: Int(dec.width), height: Int(dec.height), format: enc.pointee.pix_fmt)
        enc.pointee.width = Int32(size.width)
        enc.pointee.height = Int32(size.height)
        enc.pointee.sample_aspect_ratio = dec.sample_aspect_ratio
        // Keep the input's time base so every timestamp passes through exactly.
        enc.pointee.time_base = stream.time_base
        let rate = stream.avg_frame_rate.num > 0 ? stream.avg_frame_rate : stream.r_frame_rate
        if rate.num > 0 && rate.den > 0 { enc.pointee.framerate = rate }
        enc.pointee.color_primaries = dec.color_primaries
        enc.pointee.color_trc = dec.color_trc
        let color = ConvertedColor(decodedFormat: dec.pix_fmt, colorspace: dec.colorspace, range: dec.color_range, height: Int(dec.height))
        enc.pointee.colorspace = color.colorspace
        enc.pointee.color_range = color.range
        enc.pointee.chroma_sample_location = dec.chroma_sample_location
        enc.pointee.thread_count = Int32(settings.threads)
        enc.pointee.bit_rate = Int64(settings.bitRate ?? 0)
        if muxer.needsGlobalHeader { enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open(options: settings.encoderOptions(for: codec))
    }

    /// The decoded format when the encoder takes it and marks can be blended into it;
    /// otherwise 4:2:0 (8- or 10-bit, following the source), which every player plays;
    /// otherwise the encoder's closest format that marks can be blended into.
    private static func chooseEncoderPixelFormat(_ encoder: Encoder, decoded: AVPixelFormat) throws -> AVPixelFormat {
        let supported = encoder.supportedPixelFormats
        if PlanarYUVLayout(decoded) != nil && (supported.isEmpty || supported.contains(decoded)) { return decoded }
        let deep = (av_pix_fmt_desc_get(decoded)?.pointee.comp.0.depth ?? 8) > 8
        for preferred in deep ? [AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV420P] : [AV_PIX_FMT_YUV420P]
        where supported.isEmpty || supported.contains(preferred) {
            return preferred
        }
        let blendable = supported.isEmpty ? [AV_PIX_FMT_YUV420P] : supported.filter { PlanarYUVLayout($0) != nil }
        guard !blendable.isEmpty else { throw EncoderError(encoder: encoder.name, problem: .noBlendablePixelFormat) }
        var list = blendable + [AV_PIX_FMT_NONE]
        let best = avcodec_find_best_pix_fmt_of_list(&list, decoded, 0, nil)
        return best == AV_PIX_FMT_NONE ? blendable[0] : best
    }

    private func mapOtherStreams() throws {
        let input = source.input
        for index in 0..<input.streamCount where index != source.videoIndex {
            let stream = input.stream(index)
            let par = stream.pointee.codecpar!
            if par.pointee.codec_type == AVMEDIA_TYPE_AUDIO, try mapAudio(stream) { continue }
            if par.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE, try mapSubtitles(stream) { continue }
            guard muxer.accepts(par.pointee.codec_id) else {
                let type = av_get_media_type_string(par.pointee.codec_type).map { String(cString: $0) } ?? "data"
                let what = "stream \(index) (\(type), \(String(cString: avcodec_get_name(par.pointee.codec_id))))"
                droppedStreams.append(what)
                warn("\(input.path): \(what) cannot be stored in a .\((target as NSString).pathExtension) file; left out of \(target)")
                continue
            }
            let out = try muxer.addStream()
            try Self.copyStreamSetup(from: stream, to: out, file: target)
            streamMap[index] = Int(out.pointee.index)
        }
    }

    /// Handles an audio stream that is not simply copied (re-encoded, or left out with
    /// `--audio none`); returns false when it should be copied like any other stream.
    private func mapAudio(_ stream: UnsafeMutablePointer<AVStream>) throws -> Bool {
        let index = Int(stream.pointee.index)
        let codecID = stream.pointee.codecpar.pointee.codec_id
        let containerDefault: AudioTranscoder.Codec = muxer.formatName == "webm" ? .opus : .aac
        let codec: AudioTranscoder.Codec
        switch audioMode {
        case .none:
            return true
        case .aac:
            codec = .aac
        case .opus:
            codec = .opus
        case .copy:
            if muxer.accepts(codecID) { return false }
            codec = containerDefault
        }
        let transcoder = try AudioTranscoder(stream: stream, codec: codec, muxer: muxer)
        audioTranscoders[index] = transcoder
        streamMap[index] = Int(transcoder.outputStream.pointee.index)
        if audioMode == .copy {
            warn("\(source.path): audio stream \(index) (\(String(cString: avcodec_get_name(codecID)))) cannot be stored in a .\((target as NSString).pathExtension) file; re-encoded with \(transcoder.encoderName)")
        }
        return true
    }

    /// Converts a text subtitle stream the container cannot hold to the text format it can;
    /// returns false when the stream is copied (or, bitmap subtitles, left out) instead.
    private func mapSubtitles(_ stream: UnsafeMutablePointer<AVStream>) throws -> Bool {
        let codecID = stream.pointee.codecpar.pointee.codec_id
        guard !muxer.accepts(codecID), SubtitleTranscoder.isText(codecID),
              let encoderName = SubtitleTranscoder.textEncoder(for: muxer),
              let encoderCodec = avcodec_find_encoder_by_name(encoderName), muxer.accepts(encoderCodec.pointee.id)
        else { return false }
        let index = Int(stream.pointee.index)
        let transcoder = try SubtitleTranscoder(stream: stream, encoderName: encoderName, muxer: muxer)
        subtitleTranscoders[index] = transcoder
        streamMap[index] = Int(transcoder.outputStream.pointee.index)
        warn("\(source.path): subtitle stream \(index) (\(String(cString: avcodec_get_name(codecID)))) cannot be stored in a .\((target as NSString).pathExtension) file; converted to \(encoderName)")
        return true
    }

    private func copyChapters() {
        let input = source.input.context.pointee
        let count = Int(input.nb_chapters)
        guard count > 0, let chapters = input.chapters,
              let list = av_calloc(count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self) else { return }
        // The muxer context owns the list and the chapters from here on (freed with it).
        muxer.context.pointee.chapters = list
        for i in 0..<count {
            guard let src = chapters[i],
                  let chapter = av_mallocz(MemoryLayout<AVChapter>.stride)?.assumingMemoryBound(to: AVChapter.self) else { continue }
            chapter.pointee.id = src.pointee.id
            chapter.pointee.time_base = src.pointee.time_base
            chapter.pointee.start = src.pointee.start
            chapter.pointee.end = src.pointee.end
            av_dict_copy(&chapter.pointee.metadata, src.pointee.metadata, 0)
            list[Int(muxer.context.pointee.nb_chapters)] = chapter
            muxer.context.pointee.nb_chapters += 1
        }
    }

    /// Marks and encodes one decoded frame. `exclusive` says the frame is this output's
    /// alone (it may be marked in place); otherwise a reference is taken and copied on write.
    func consume(_ timed: VideoSource.TimedFrame, exclusive: Bool) throws {
        guard let encoder, let marker else { return }
        var frame = timed.frame
        if !exclusive {
            scratchFrame.unref()
            try check(av_frame_ref(scratchFrame.pointer, timed.frame.pointer), OutputError.call("referencing a frame", file: target))
            frame = scratchFrame
        }
        defer { if !exclusive { scratchFrame.unref() } }
        let marked = try marker.mark(frame, at: timed.time)
        marked.pointer.pointee.pts = timed.pts
        marked.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try encoder.send(marked)
        framesWritten += 1
        try writeEncodedPackets()
    }

    /// Copies a packet of a passed-through stream (and of the video, when copying it).
    func passThrough(_ packet: Packet) throws {
        let index = packet.streamIndex
        if index == source.videoIndex && !copiesVideo { return }
        if let audio = audioTranscoders[index] {
            try audio.consume(packet, into: muxer)
            return
        }
        if let subtitles = subtitleTranscoders[index] {
            try subtitles.consume(packet, into: muxer)
            return
        }
        guard let outIndex = streamMap[index] else { return }
        scratchPacket.unref()
        try check(av_packet_ref(scratchPacket.pointer, packet.pointer), OutputError.call("referencing a packet", file: target))
        let outStream = muxer.context.pointee.streams[outIndex]!
        av_packet_rescale_ts(scratchPacket.pointer, source.input.stream(index).pointee.time_base, outStream.pointee.time_base)
        scratchPacket.pointer.pointee.stream_index = Int32(outIndex)
        scratchPacket.pointer.pointee.pos = -1
        if index == source.videoIndex { framesWritten += 1 }
        try muxer.write(scratchPacket)
    }

    private func writeEncodedPackets() throws {
        guard let encoder else { return }
        while try encoder.receive(into: scratchPacket) == .produced {
            av_packet_rescale_ts(scratchPacket.pointer, encoder.context.pointee.time_base, videoOutputStream.pointee.time_base)
            scratchPacket.pointer.pointee.stream_index = videoOutputStream.pointee.index
            try muxer.write(scratchPacket)
            scratchPacket.unref()
        }
    }

    /// Gives the output up: its temporary file is removed now, and no later call may write.
    /// A batch does this to one failed output while the others sharing its decode go on.
    func abandon() {
        destination.discard()
    }

    /// Drains the encoder, finishes the file and moves it into place.
    func finish() throws {
        if let encoder {
            try encoder.send(nil)
            try writeEncodedPackets()
        }
        for index in audioTranscoders.keys.sorted() {
            try audioTranscoders[index]!.finish(into: muxer)
        }
        try muxer.finish()
        try destination.commit()
    }
}
