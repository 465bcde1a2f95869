import CFFmpeg

/// Re-encodes one audio stream whose codec the output container cannot hold (or when
/// `--audio aac|opus` asks for it): decode, resample to the encoder's format and rate,
/// regroup into the encoder's frame size, encode.
///
/// Timestamps start from the stream's first decoded sample, so audio stays in sync with
/// the video; after that they advance by samples written, which keeps them gap-free. Where
/// the input's own timestamps say audio is missing (a gap) or doubled (an overlap) by more
/// than `driftTolerance`, silence is inserted or samples dropped, so the sound stays where
/// the input's clock puts it however long the file.
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
    /// Resampled audio on its way to the FIFO, grown when needed and reused.
    private var staging: (buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, capacity: Int32)?
    /// Largest gap or overlap left alone: well under one video frame at 50 fps, far above
    /// container timestamp rounding (Matroska's millisecond).
    static let driftTolerance = 0.02

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
        try check(av_channel_layout_copy(&enc.pointee.ch_layout, &layout), OutputError.call("setting up the audio encoder", file: file))
        enc.pointee.bit_rate = Int64(min(Int(layout.nb_channels), 2) * 96_000)
        enc.pointee.time_base = AVRational(num: 1, den: enc.pointee.sample_rate)
        if muxer.needsGlobalHeader { enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open(options: [:])

        var swr: OpaquePointer?
        var inLayout = layout
        try check(swr_alloc_set_opts2(&swr, &enc.pointee.ch_layout, enc.pointee.sample_fmt, enc.pointee.sample_rate,
                                      &inLayout, dec.sample_fmt, dec.sample_rate, 0, nil),
                  OutputError.call("setting up audio resampling", file: file))
        guard let allocated = swr else { throw ResourceError.memory("setting up audio resampling") }
        resampler = allocated
        try check(swr_init(allocated), OutputError.call("setting up audio resampling", file: file))
        guard let f = av_audio_fifo_alloc(enc.pointee.sample_fmt, enc.pointee.ch_layout.nb_channels, 4096) else {
            swr_free(&swr)
            throw ResourceError.memory("allocating the audio buffer")
        }
        fifo = f
        decoded = try Frame()
        chunk = try Frame()
        packet = try Packet()

        outputStream = try muxer.addStream(encodedBy: encoder, replacing: stream, timeBase: enc.pointee.time_base)
    }

    deinit {
        var swr: OpaquePointer? = resampler
        swr_free(&swr)
        av_audio_fifo_free(fifo)
        if var buffer = staging?.buffer {
            av_freep(buffer)
            av_freep(&buffer)
        }
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
        // A damaged audio packet: the decoder conceals it, as the ffmpeg tool does.
        if case .damaged = try decoder.send(input) { return }
        while true {
            switch try decoder.receive(into: decoded) {
            case .frame: break
            case .needsInput, .endOfStream: return
            case .damaged(let error): throw error
            }
            defer { decoded.unref() }
            let pts = decoded.pointer.pointee.best_effort_timestamp
            let start = pts == vwm_nopts_value() ? nil : av_rescale_q(pts, inputTimeBase, encoder.context.pointee.time_base)
            var overlap: Int64 = 0
            if nextPts == nil {
                nextPts = start ?? 0
            } else if let start {
                overlap = try keepInSync(frameStart: start, into: muxer)
            }
            if overlap >= frameSamples(decoded) { continue }  // all of it was heard already
            try resample(decoded, droppingFirst: Int32(overlap))
            try encodeFullFrames(into: muxer, flushing: false)
        }
    }

    /// Compares where the decoded frame says it starts with where the samples written so far
    /// end, and fills a gap with silence. Returns how many of the frame's samples (at the
    /// output rate) repeat time already written — an overlap — to be dropped.
    private func keepInSync(frameStart: Int64, into muxer: OutputFile) throws -> Int64 {
        let rate = Int64(encoder.context.pointee.sample_rate)
        let written = nextPts! + Int64(av_audio_fifo_size(fifo)) + swr_get_delay(resampler, rate)
        let drift = frameStart - written
        let tolerance = Int64(Self.driftTolerance * Double(rate))
        if drift > tolerance { try appendSilence(samples: drift, into: muxer) }
        return drift < -tolerance ? -drift : 0
    }

    /// The frame's length in samples at the output rate.
    private func frameSamples(_ frame: Frame) -> Int64 {
        av_rescale_q(Int64(frame.pointer.pointee.nb_samples), AVRational(num: 1, den: frame.pointer.pointee.sample_rate),
                     encoder.context.pointee.time_base)
    }

    private func appendSilence(samples: Int64, into muxer: OutputFile) throws {
        var remaining = samples
        let enc = encoder.context.pointee
        while remaining > 0 {
            // In pieces of at most a second, encoded as they go, so a long gap costs no memory.
            let count = Int32(min(remaining, Int64(enc.sample_rate)))
            let buffer = try stagingBuffer(capacity: count)
            av_samples_set_silence(buffer, 0, count, enc.ch_layout.nb_channels, enc.sample_fmt)
            try writeToFIFO(buffer, count: count)
            try encodeFullFrames(into: muxer, flushing: false)
            remaining -= Int64(count)
        }
    }

    private func stagingBuffer(capacity: Int32) throws -> UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?> {
        if let staging, staging.capacity >= capacity { return staging.buffer }
        if var old = staging?.buffer {
            av_freep(old)
            av_freep(&old)
            staging = nil
        }
        var buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
        try check(av_samples_alloc_array_and_samples(&buffer, nil, encoder.context.pointee.ch_layout.nb_channels, capacity,
                                                     encoder.context.pointee.sample_fmt, 0),
                  OutputError.call("allocating audio samples", file: file))
        staging = (buffer!, capacity)
        return buffer!
    }

    /// Appends `count` samples of `buffer` to the FIFO, starting `offset` samples in.
    private func writeToFIFO(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int32, offset: Int32 = 0) throws {
        let enc = encoder.context.pointee
        let planar = av_sample_fmt_is_planar(enc.sample_fmt) != 0
        let planes = planar ? Int(enc.ch_layout.nb_channels) : 1
        let step = Int(offset) * Int(av_get_bytes_per_sample(enc.sample_fmt)) * (planar ? 1 : Int(enc.ch_layout.nb_channels))
        var pointers = (0..<planes).map { UnsafeMutableRawPointer(buffer[$0]).map { $0 + step } }
        let written = av_audio_fifo_write(fifo, &pointers, count)
        try check(written, OutputError.call("buffering audio", file: file))
    }

    /// Drains decoder, resampler and encoder at the end of the input.
    func finish(into muxer: OutputFile) throws {
        try consume(nil, into: muxer)
        try resample(nil)
        try encodeFullFrames(into: muxer, flushing: true)
        try encoder.send(nil)
        try writePackets(into: muxer)
    }

    private func resample(_ frame: Frame?, droppingFirst dropped: Int32 = 0) throws {
        let inSamples = frame.map { Int32($0.pointer.pointee.nb_samples) } ?? 0
        let capacity = swr_get_out_samples(resampler, inSamples)
        guard capacity > 0 else { return }
        let buffer = try stagingBuffer(capacity: capacity)
        // Draining (no frame) passes no input, which makes swresample flush its delay line.
        let input = frame.flatMap { $0.pointer.pointee.extended_data }
            .map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        let converted = swr_convert(resampler, buffer, capacity, input, input == nil ? 0 : inSamples)
        try check(converted, MediaError.call("resampling audio", file: file))
        if converted > dropped { try writeToFIFO(buffer, count: converted - dropped, offset: dropped) }
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
            try check(av_channel_layout_copy(&chunk.pointer.pointee.ch_layout, &encoder.context.pointee.ch_layout), OutputError.call("setting up audio", file: file))
            try check(av_frame_get_buffer(chunk.pointer, 0), OutputError.call("allocating audio", file: file))
            let read = withUnsafeMutablePointer(to: &chunk.pointer.pointee.data) { data in
                data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) { av_audio_fifo_read(fifo, $0, count) }
            }
            try check(read, OutputError.call("buffering audio", file: file))
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
