import CFFmpeg

/// An owned muxing `AVFormatContext` writing to `path`, with the container chosen from
/// `formatFileName`'s extension (the real target; `path` is its temporary sibling).
final class OutputFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    let target: String
    private var headerWritten = false
    private var ioOpen = false
    /// Ticks added to every timestamp of an output stream before muxing, by stream index.
    private var timestampShifts: [Int32: Int64] = [:]

    init(path: String, target: String) throws {
        self.path = path
        self.target = target
        guard let format = av_guess_format(nil, target, nil) else {
            throw RequestError(subject: target, problem: "unknown output format (use an extension such as .mp4, .mov, .mkv or .webm)")
        }
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let code = avformat_alloc_output_context2(&ctx, format, nil, path)
        try check(code, OutputError.call("creating the output", file: target, stage: .creating))
        guard let ctx else { throw ResourceError.memory("creating the output") }
        context = ctx
        ctx.pointee.interrupt_callback.callback = { _ in Interruption.isRequested ? 1 : 0 }
    }

    deinit {
        if ioOpen { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    var formatName: String { String(cString: context.pointee.oformat.pointee.name) }

    /// Whether the container can hold a stream of this codec.
    func accepts(_ codec: AVCodecID) -> Bool {
        // FFmpeg 5.1's MP4 muxer lists FLAC but refuses it at write time as experimental.
        if codec == AV_CODEC_ID_FLAC && isMP4Family { return false }
        return avformat_query_codec(context.pointee.oformat, codec, FF_COMPLIANCE_NORMAL) == 1
    }

    /// MP4, MOV and their relatives (one muxer family, with the same options).
    var isMP4Family: Bool { ["mp4", "mov", "ipod", "3gp", "3g2", "psp", "ismv", "f4v"].contains(formatName) }

    /// Matroska and WebM (one muxer family).
    var isMatroskaFamily: Bool { ["matroska", "webm"].contains(formatName) }

    var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    func addStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let s = avformat_new_stream(context, nil) else { throw ResourceError.memory("adding a stream") }
        return s
    }

    /// A stream for what `encoder` (opened) produces, in place of input stream `replacing`:
    /// that stream's language, title and disposition, the encoder's parameters.
    func addStream(encodedBy encoder: Encoder, replacing input: UnsafeMutablePointer<AVStream>,
                   timeBase: AVRational) throws -> UnsafeMutablePointer<AVStream> {
        let stream = try addStream()
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context),
                  OutputError.call("setting up stream \(input.pointee.index)", file: target))
        stream.pointee.time_base = timeBase
        stream.pointee.disposition = input.pointee.disposition
        av_dict_copy(&stream.pointee.metadata, input.pointee.metadata, 0)
        return stream
    }

    func writeHeader(options: [String: String]) throws {
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            var options: OpaquePointer?
            av_dict_set(&options, "protocol_whitelist", "file", 0)
            let code = avio_open2(&context.pointee.pb, "file:" + path, AVIO_FLAG_WRITE, &context.pointee.interrupt_callback, &options)
            av_dict_free(&options)
            try check(code, OutputError.call("opening for writing", file: target, stage: .creating))
            ioOpen = true
        }
        if formatName == "matroska" {
            // Matroska stores negative times (a block's time is signed relative to its
            // cluster), so an audio track that starts before zero — AAC priming from an MP4 —
            // stays there instead of every stream being pushed later to make room for it.
            // WebM keeps FFmpeg's shift: browsers' readers are less forgiving.
            context.pointee.avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED
        }
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        let code = avformat_write_header(context, &dict)
        av_dict_free(&dict)
        try check(code, OutputError.call("writing the header", file: target))
        headerWritten = true
        timestampShifts = opusCodecDelayShifts()
    }

    /// Matroska stores Opus's pre-skip as CodecDelay and readers subtract it from every
    /// block time, so an Opus packet at −6.5 ms must be written at 0. libavformat up to
    /// 59.30 writes the CodecDelay but not the shift (later versions do both): the first
    /// packet then lands before zero and the muxer pushes every stream 7 ms later, on each
    /// pass through the file. Do the shift ourselves there.
    private func opusCodecDelayShifts() -> [Int32: Int64] {
        let fixedInLibavformat: UInt32 = 59 << 16 | 31 << 8 | 0
        guard isMatroskaFamily, avformat_version() < fixedInLibavformat else { return [:] }
        var shifts: [Int32: Int64] = [:]
        for i in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[i], let par = stream.pointee.codecpar,
                  par.pointee.codec_id == AV_CODEC_ID_OPUS, par.pointee.initial_padding > 0 else { continue }
            // The same rounding as the CodecDelay the muxer writes and the reader subtracts.
            shifts[stream.pointee.index] = av_rescale_q(Int64(par.pointee.initial_padding), AVRational(num: 1, den: 48000), stream.pointee.time_base)
        }
        return shifts
    }

    func write(_ packet: Packet) throws {
        if let shift = timestampShifts[packet.pointer.pointee.stream_index] {
            let p = packet.pointer
            if p.pointee.pts != vwm_nopts_value() { p.pointee.pts += shift }
            if p.pointee.dts != vwm_nopts_value() { p.pointee.dts += shift }
        }
        let code = av_interleaved_write_frame(context, packet.pointer)
        try check(code, OutputError.call("writing", file: target))
        try checkIOError()
    }

    /// Writes the trailer and closes the file, reporting any write error seen on the way
    /// (a full disk must not end in a "successful" truncated file).
    func finish() throws {
        precondition(headerWritten, "finish before writeHeader")
        try check(av_write_trailer(context), OutputError.call("finishing", file: target))
        try checkIOError()
        if ioOpen {
            let code = avio_closep(&context.pointee.pb)
            ioOpen = false
            try check(code, OutputError.call("closing", file: target))
        }
    }

    private func checkIOError() throws {
        if let pb = context.pointee.pb, pb.pointee.error < 0 {
            try check(pb.pointee.error, OutputError.call("writing", file: target))
        }
    }
}
