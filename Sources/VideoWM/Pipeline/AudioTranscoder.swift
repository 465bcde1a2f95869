import CFFmpeg

/// Re-encodes one audio stream whose codec the output container cannot hold (or when
/// `--audio aac|opus` asks for it): decode, resample to the encoder's format and rate,
/// regroup into the encoder's frame size, encode.
///
/// Timestamps start from the stream's first decoded sample, so audio stays in sync with
/// the video; after that they advance by samples written, which keeps them gap-free.
final class AudioTranscoder {
    let inputIndex: Int
    let outputStream: UnsafeMutablePointer<AVStream>
    private let decoder: Decoder
    private let encoder: Encoder
    private let resampler: OpaquePointer
    private let fifo: OpaquePointer
    private let decoded: Frame
    private let chunk: Frame
    private let packet: Packet
    private let inputTimeBase: AVRational
    private let file: String
    private var nextPts: Int64?

    /// The encoder for a `--audio` choice, or for the container when copying is impossible.
    enum Codec: String {
        case aac, opus
        var encoderName: String { self == .aac ? "aac" : "libopus" }
    }

    init(stream: UnsafeMutablePointer<AVStream>, codec: Codec, muxer: OutputFile) throws {
        file = muxer.target
        inputIndex = Int(stream.pointee.index)
        inputTimeBase = stream.pointee.time_base
        decoder = try Decoder(stream: stream, file: file, threads: 1)
        encoder = try Encoder(codecName: codec.encoderName, file: file)
        let dec = decoder.context.pointee
        let enc = encoder.context
        enc.pointee.sample_rate = Self.closestSampleRate(to: dec.sample_rate, supported: encoder.codec.pointee.supported_samplerates)
        enc.pointee.sample_fmt = encoder.codec.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_FLTP
        var layout = dec.ch_layout
        if layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&layout, layout.nb_channels)
        }
        try check(av_channel_layout_copy(&enc.pointee.ch_layout, &layout), "setting up the audio encoder", file: file, status: .ioError)
        enc.pointee.bit_rate = Int64(min(Int(layout.nb_channels), 2) * 96_000)
        enc.pointee.time_base = AVRational(num: 1, den: enc.pointee.sample_rate)
        if muxer.needsGlobalHeader { enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open(options: [:])

        var swr: OpaquePointer?
        var inLayout = layout
        try check(swr_alloc_set_opts2(&swr, &enc.pointee.ch_layout, enc.pointee.sample_fmt, enc.pointee.sample_rate,
                                      &inLayout, dec.sample_fmt, dec.sample_rate, 0, nil),
                  "setting up audio resampling", file: file, status: .ioError)
        guard let allocated = swr else { throw VideoWMError(.ioError, "out of memory setting up audio resampling") }
        resampler = allocated
        try check(swr_init(allocated), "setting up audio resampling", file: file, status: .ioError)
        guard let f = av_audio_fifo_alloc(enc.pointee.sample_fmt, enc.pointee.ch_layout.nb_channels, 4096) else {
            swr_free(&swr)
            throw VideoWMError(.ioError, "out of memory for the audio buffer")
        }
        fifo = f
        decoded = try Frame()
        chunk = try Frame()
        packet = try Packet()

        outputStream = try muxer.addStream()
        try check(avcodec_parameters_from_context(outputStream.pointee.codecpar, enc), "setting up the audio stream", file: file, status: .ioError)
        outputStream.pointee.time_base = enc.pointee.time_base
        outputStream.pointee.disposition = stream.pointee.disposition
        av_dict_copy(&outputStream.pointee.metadata, stream.pointee.metadata, 0)
    }

    deinit {
        var swr: OpaquePointer? = resampler
        swr_free(&swr)
        av_audio_fifo_free(fifo)
    }

    var encoderName: String { encoder.name }

    private static func closestSampleRate(to rate: Int32, supported: UnsafePointer<Int32>?) -> Int32 {
        guard var p = supported else { return rate > 0 ? rate : 48000 }
        var best: Int32 = 0
        while p.pointee != 0 {
            if best == 0 || abs(p.pointee - rate) < abs(best - rate) { best = p.pointee }
            p += 1
        }
        return best == 0 ? 48000 : best
    }

    /// Decodes one input packet (or nil to drain) and writes what the encoder produces.
    func consume(_ input: Packet?, into muxer: OutputFile) throws {
        do {
            _ = try decoder.send(input)
        } catch let error as VideoWMError where error.status == .dataError {
            return  // A damaged audio packet: the decoder conceals it, as the ffmpeg tool does.
        }
        while try decoder.receive(into: decoded) == .produced {
            defer { decoded.unref() }
            if nextPts == nil {
                let pts = decoded.pointer.pointee.best_effort_timestamp
                nextPts = pts == vwm_nopts_value() ? 0 : av_rescale_q(pts, inputTimeBase, encoder.context.pointee.time_base)
            }
            try resample(decoded)
            try encodeFullFrames(into: muxer, flushing: false)
        }
    }

    /// Drains decoder, resampler and encoder at the end of the input.
    func finish(into muxer: OutputFile) throws {
        try consume(nil, into: muxer)
        try resample(nil)
        try encodeFullFrames(into: muxer, flushing: true)
        try encoder.send(nil)
        try writePackets(into: muxer)
    }

    private func resample(_ frame: Frame?) throws {
        let inSamples = frame.map { Int32($0.pointer.pointee.nb_samples) } ?? 0
        let capacity = swr_get_out_samples(resampler, inSamples)
        guard capacity > 0 else { return }
        var buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
        let channels = encoder.context.pointee.ch_layout.nb_channels
        try check(av_samples_alloc_array_and_samples(&buffer, nil, channels, capacity, encoder.context.pointee.sample_fmt, 0),
                  "allocating audio samples", file: file, status: .ioError)
        defer {
            av_freep(buffer)
            av_freep(&buffer)
        }
        // Draining (no frame) passes no input, which makes swresample flush its delay line.
        let input = frame.flatMap { $0.pointer.pointee.extended_data }
            .map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        let converted = swr_convert(resampler, buffer, capacity, input, input == nil ? 0 : inSamples)
        try check(converted, "resampling audio", file: file, status: .dataError)
        if converted > 0 {
            let written = buffer!.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: Int(channels)) {
                av_audio_fifo_write(fifo, $0, converted)
            }
            try check(written, "buffering audio", file: file, status: .ioError)
        }
    }

    private func encodeFullFrames(into muxer: OutputFile, flushing: Bool) throws {
        let enc = encoder.context.pointee
        let frameSize = enc.frame_size > 0 ? enc.frame_size : 1024
        while av_audio_fifo_size(fifo) >= frameSize || (flushing && av_audio_fifo_size(fifo) > 0) {
            let count = min(frameSize, av_audio_fifo_size(fifo))
            chunk.unref()
            chunk.pointer.pointee.nb_samples = count
            chunk.pointer.pointee.format = enc.sample_fmt.rawValue
            chunk.pointer.pointee.sample_rate = enc.sample_rate
            try check(av_channel_layout_copy(&chunk.pointer.pointee.ch_layout, &encoder.context.pointee.ch_layout), "setting up audio", file: file, status: .ioError)
            try check(av_frame_get_buffer(chunk.pointer, 0), "allocating audio", file: file, status: .ioError)
            let read = withUnsafeMutablePointer(to: &chunk.pointer.pointee.data) { data in
                data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) { av_audio_fifo_read(fifo, $0, count) }
            }
            try check(read, "buffering audio", file: file, status: .ioError)
            chunk.pointer.pointee.pts = nextPts ?? 0
            nextPts = (nextPts ?? 0) + Int64(count)
            try encoder.send(chunk)
            try writePackets(into: muxer)
        }
    }

    private func writePackets(into muxer: OutputFile) throws {
        while try encoder.receive(into: packet) == .produced {
            av_packet_rescale_ts(packet.pointer, encoder.context.pointee.time_base, outputStream.pointee.time_base)
            packet.pointer.pointee.stream_index = outputStream.pointee.index
            try muxer.write(packet)
            packet.unref()
        }
    }
}
