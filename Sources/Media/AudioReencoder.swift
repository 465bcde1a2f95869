internal import CFFmpeg

/// Re-encodes one audio stream: decode, resample to the encoder's format and rate, regroup
/// into the encoder's frame size, encode, and hand the packets to a sink.
///
/// Timestamps start from the stream's first decoded sample, so audio stays in sync with
/// the video; after that they advance by samples written, which keeps them gap-free. Where
/// the input's own timestamps say audio is missing (a gap) or doubled (an overlap) by more
/// than `driftTolerance`, silence is inserted or samples dropped, so the sound stays where
/// the input's clock puts it however long the file.
package final class AudioReencoder {
    /// Where the encoded packets go; set once, before the first packet is consumed.
    package private(set) var sink: PacketSink?
    private let decoder: Decoder
    private let encoder: Encoder
    private let resampler: AudioResampler
    private let fifo: AudioFIFO
    /// Resampled audio on its way to the FIFO, grown when needed and reused.
    private var staging: SampleBuffer?
    private let decoded: Frame
    private let chunk: Frame
    private let packet: Packet
    private let inputTimeBase: Rational
    private let file: String
    private var nextPts: Int64?
    /// Largest gap or overlap left alone: well under one video frame at 50 fps, far above
    /// container timestamp rounding (Matroska's millisecond).
    static let driftTolerance = 0.02

    /// A re-encoder of `stream` (of the file named `input`) with the encoder named
    /// `encoderName`, writing into a new stream of `muxer`.
    package convenience init(stream: InputStream, input: String, encoderName: String, muxer: Muxer) throws {
        try self.init(stream: stream, input: input, encoderName: encoderName, file: muxer.target,
                      globalHeader: muxer.container.needsGlobalHeader)
        sink = try muxer.addStream(encodedBy: encoder, replacing: stream)
    }

    /// A re-encoder whose packets go to `sink` (set with `write(to:)`); `file` names the output in
    /// errors; `globalHeader` when the container wants codec headers out of band.
    package init(stream: InputStream, input: String, encoderName: String, file: String, globalHeader: Bool) throws {
        self.file = file
        inputTimeBase = stream.timeBase
        decoder = try Decoder(stream: stream, file: input, threads: 1)
        encoder = try Encoder(codecName: encoderName, file: file)
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
        if globalHeader { enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open(options: [:])

        resampler = try AudioResampler(from: (layout, dec.sample_fmt, dec.sample_rate), to: encoder, file: file)
        fifo = try AudioFIFO(format: enc.pointee.sample_fmt, channels: enc.pointee.ch_layout.nb_channels)
        decoded = try Frame()
        chunk = try Frame()
        packet = try Packet()
    }

    private func destination() -> PacketSink {
        guard let sink else { preconditionFailure("an audio re-encoder needs its sink before it encodes") }
        return sink
    }

    /// Sends the encoded packets to `sink` (when not made with a muxer).
    package func write(to sink: PacketSink) {
        precondition(self.sink == nil, "an audio re-encoder writes to one sink")
        self.sink = sink
    }

    /// A stream of `muxer` for what this encoder makes, in place of `input` (an HLS
    /// presentation's initialization segment describes the encoded audio so).
    package func addStream(to muxer: Muxer, replacing input: InputStream) throws -> MuxedStream {
        try muxer.addStream(encodedBy: encoder, replacing: input)
    }

    /// The encoder's time base: the packets' timestamps count in it.
    package var timeBase: Rational { encoder.timeBase }

    var encoderName: String { encoder.name }
    private var sampleRate: Int32 { encoder.context.pointee.sample_rate }
    private var sampleFormat: AVSampleFormat { encoder.context.pointee.sample_fmt }
    private var channelCount: Int32 { encoder.context.pointee.ch_layout.nb_channels }

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
    package func consume(_ input: Packet?) throws {
        // A damaged audio packet: the decoder conceals it, as the ffmpeg tool does.
        if case .damaged = try decoder.send(input) { return }
        while true {
            switch try decoder.receive(into: decoded) {
            case .frame: break
            case .needsInput, .endOfStream: return
            case .damaged(let error): throw error
            }
            defer { decoded.unref() }
            let start = decoded.bestEffortTimestamp.map { inputTimeBase.convert($0, to: encoder.timeBase) }
            var overlap: Int64 = 0
            if nextPts == nil {
                nextPts = start ?? 0
            } else if let start {
                overlap = try keepInSync(frameStart: start)
            }
            if overlap >= frameSamples(decoded) { continue }  // all of it was heard already
            try resample(decoded, droppingFirst: Int32(overlap))
            try encodeFullFrames(flushing: false)
        }
    }

    /// Drains decoder, resampler and encoder at the end of the input.
    package func finish() throws {
        try consume(nil)
        try resample(nil)
        try encodeFullFrames(flushing: true)
        try encoder.send(nil)
        try encoder.writePackets(to: destination(), using: packet)
    }

    /// Compares where the decoded frame says it starts with where the samples written so far
    /// end, and fills a gap with silence. Returns how many of the frame's samples (at the
    /// output rate) repeat time already written — an overlap — to be dropped.
    private func keepInSync(frameStart: Int64) throws -> Int64 {
        let rate = Int64(sampleRate)
        guard let nextPts else { return 0 }
        let written = nextPts + Int64(fifo.count) + resampler.delay(at: rate)
        let drift = frameStart - written
        let tolerance = Int64(Self.driftTolerance * Double(rate))
        if drift > tolerance { try appendSilence(samples: drift) }
        return drift < -tolerance ? -drift : 0
    }

    /// The frame's length in samples at the output rate.
    private func frameSamples(_ frame: Frame) -> Int64 {
        Rational(1, frame.pointer.pointee.sample_rate).convert(Int64(frame.pointer.pointee.nb_samples), to: encoder.timeBase)
    }

    private func appendSilence(samples: Int64) throws {
        var remaining = samples
        while remaining > 0 {
            // In pieces of at most a second, encoded as they go, so a long gap costs no memory.
            let count = Int32(min(remaining, Int64(sampleRate)))
            let buffer = try stagingBuffer(capacity: count)
            av_samples_set_silence(buffer.planes, 0, count, channelCount, sampleFormat)
            try fifo.write(buffer, count: count, file: file)
            try encodeFullFrames(flushing: false)
            remaining -= Int64(count)
        }
    }

    private func stagingBuffer(capacity: Int32) throws -> SampleBuffer {
        if let staging, staging.capacity >= capacity { return staging }
        staging = nil  // the old buffer goes before the larger one is made
        let buffer = try SampleBuffer(channels: channelCount, capacity: capacity, format: sampleFormat, file: file)
        staging = buffer
        return buffer
    }

    private func resample(_ frame: Frame?, droppingFirst dropped: Int32 = 0) throws {
        let inSamples = frame.map { Int32($0.pointer.pointee.nb_samples) } ?? 0
        let capacity = resampler.outputCapacity(forInput: inSamples)
        guard capacity > 0 else { return }
        let buffer = try stagingBuffer(capacity: capacity)
        let converted = try resampler.convert(frame, into: buffer, capacity: capacity)
        if converted > dropped { try fifo.write(buffer, count: converted - dropped, offset: dropped, file: file) }
    }

    private func encodeFullFrames(flushing: Bool) throws {
        let frameSize = encoder.context.pointee.frame_size > 0 ? encoder.context.pointee.frame_size : 1024
        while fifo.count >= frameSize || (flushing && fifo.count > 0) {
            let count = min(frameSize, fifo.count)
            chunk.unref()
            chunk.pointer.pointee.nb_samples = count
            chunk.pointer.pointee.format = sampleFormat.rawValue
            chunk.pointer.pointee.sample_rate = sampleRate
            try check(av_channel_layout_copy(&chunk.pointer.pointee.ch_layout, &encoder.context.pointee.ch_layout),
                      OutputError.call("setting up audio", file: file))
            try check(av_frame_get_buffer(chunk.pointer, 0), OutputError.call("allocating audio", file: file))
            try fifo.read(into: chunk, count: count, file: file)
            chunk.presentationTimestamp = nextPts ?? 0
            nextPts = (nextPts ?? 0) + Int64(count)
            try encoder.send(chunk)
            try encoder.writePackets(to: destination(), using: packet)
        }
    }
}

/// An owned `SwrContext` converting decoded audio to an encoder's format, rate and layout.
final class AudioResampler {
    private var context: OpaquePointer?
    private let file: String

    init(from source: (layout: AVChannelLayout, format: AVSampleFormat, rate: Int32), to encoder: Encoder, file: String) throws {
        self.file = file
        var inLayout = source.layout
        try check(swr_alloc_set_opts2(&context, &encoder.context.pointee.ch_layout, encoder.context.pointee.sample_fmt,
                                      encoder.context.pointee.sample_rate, &inLayout, source.format, source.rate, 0, nil),
                  OutputError.call("setting up audio resampling", file: file))
        guard context != nil else { throw ResourceError.memory("setting up audio resampling") }
        try check(swr_init(context), OutputError.call("setting up audio resampling", file: file))
    }

    deinit { swr_free(&context) }

    /// Samples (at `rate`) still inside the resampler.
    func delay(at rate: Int64) -> Int64 { swr_get_delay(context, rate) }

    /// At most how many samples converting `count` input samples gives.
    func outputCapacity(forInput count: Int32) -> Int32 { swr_get_out_samples(context, count) }

    /// Converts `frame` (nil: flushes the delay line) into `buffer`; returns the samples written.
    func convert(_ frame: Frame?, into buffer: SampleBuffer, capacity: Int32) throws -> Int32 {
        let input = frame.flatMap { $0.pointer.pointee.extended_data }
            .map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        let count = frame.map { Int32($0.pointer.pointee.nb_samples) } ?? 0
        let converted = swr_convert(context, buffer.planes, capacity, input, input == nil ? 0 : count)
        return try check(converted, MediaError.call("resampling audio", file: file))
    }
}

/// An owned `AVAudioFifo`: samples waiting to make up an encoder's frame.
final class AudioFIFO {
    private let fifo: OpaquePointer
    private let format: AVSampleFormat
    private let channels: Int32

    init(format: AVSampleFormat, channels: Int32) throws {
        guard let fifo = av_audio_fifo_alloc(format, channels, 4096) else { throw ResourceError.memory("allocating the audio buffer") }
        self.fifo = fifo
        self.format = format
        self.channels = channels
    }

    deinit { av_audio_fifo_free(fifo) }

    var count: Int32 { av_audio_fifo_size(fifo) }

    /// Appends `count` samples of `buffer`, starting `offset` samples in.
    func write(_ buffer: SampleBuffer, count: Int32, offset: Int32 = 0, file: String) throws {
        let planar = av_sample_fmt_is_planar(format) != 0
        let step = Int(offset) * Int(av_get_bytes_per_sample(format)) * (planar ? 1 : Int(channels))
        var pointers = (0..<(planar ? Int(channels) : 1)).map { UnsafeMutableRawPointer(buffer.planes[$0]).map { $0 + step } }
        try check(av_audio_fifo_write(fifo, &pointers, count), OutputError.call("buffering audio", file: file))
    }

    /// Moves `count` samples into `frame`'s buffers.
    func read(into frame: Frame, count: Int32, file: String) throws {
        let planes = UnsafeMutableRawPointer(frame.dataPointers).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        try check(av_audio_fifo_read(fifo, planes, count), OutputError.call("buffering audio", file: file))
    }
}

/// An owned sample buffer (`av_samples_alloc_array_and_samples`): one pointer per plane.
final class SampleBuffer {
    let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    let capacity: Int32

    init(channels: Int32, capacity: Int32, format: AVSampleFormat, file: String) throws {
        var buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
        try check(av_samples_alloc_array_and_samples(&buffer, nil, channels, capacity, format, 0),
                  OutputError.call("allocating audio samples", file: file))
        guard let buffer else { throw ResourceError.memory("allocating audio samples") }
        planes = buffer
        self.capacity = capacity
    }

    deinit {
        // The samples (one block, at the first plane pointer), then the pointer array.
        av_freep(planes)
        var array: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>? = planes
        av_freep(&array)
    }
}
