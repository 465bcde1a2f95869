import CFFmpeg

/// An owned decoding `AVCodecContext` for one input stream.
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let file: String

    init(stream: UnsafeMutablePointer<AVStream>, file: String, threads: Int = 0) throws {
        self.file = file
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw VideoWMError.corrupt(file, "no decoder for \(name) (stream \(stream.pointee.index))")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw VideoWMError(.ioError, "out of memory creating a decoder") }
        context = ctx
        try check(avcodec_parameters_to_context(ctx, parameters), "copying codec parameters", file: file, status: .dataError)
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        ctx.pointee.thread_count = Int32(threads)  // 0: as many as FFmpeg finds useful
        // Frame and slice threads together, as the ffmpeg tool does.
        ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        try check(avcodec_open2(ctx, codec, nil), "opening the \(String(cString: codec.pointee.name)) decoder", file: file, status: .dataError)
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Sends a packet, or nil to drain. Returns false when the decoder wants frames read first.
    func send(_ packet: Packet?) throws -> Bool {
        let code = avcodec_send_packet(context, packet?.pointer)
        if code == AVErrorCode.tryAgain { return false }
        if code == AVErrorCode.endOfFile { return true }
        if code < 0 { throw ffmpegFailure(code, "decoding", file: file, status: .dataError) }
        return true
    }

    func receive(into frame: Frame) throws -> CodecStep {
        let code = avcodec_receive_frame(context, frame.pointer)
        if code == AVErrorCode.tryAgain { return .needsInput }
        if code == AVErrorCode.endOfFile { return .endOfStream }
        if code < 0 { throw ffmpegFailure(code, "decoding", file: file, status: .dataError) }
        return .produced
    }
}
