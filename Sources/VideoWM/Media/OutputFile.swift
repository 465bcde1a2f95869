import CFFmpeg

/// An owned muxing `AVFormatContext` writing to `path`, with the container chosen from
/// `formatFileName`'s extension (the real target; `path` is its temporary sibling).
final class OutputFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    let target: String
    private var headerWritten = false
    private var ioOpen = false

    init(path: String, target: String) throws {
        self.path = path
        self.target = target
        guard let format = av_guess_format(nil, target, nil) else {
            throw VideoWMError.usage("\(target): unknown output format (use an extension such as .mp4, .mov, .mkv or .webm)")
        }
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let code = avformat_alloc_output_context2(&ctx, format, nil, path)
        guard code >= 0, let ctx else { throw ffmpegFailure(code, "creating the output", file: target, status: .cannotCreate) }
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

    var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    func addStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let s = avformat_new_stream(context, nil) else { throw VideoWMError(.ioError, "out of memory adding a stream") }
        return s
    }

    func writeHeader(options: [String: String]) throws {
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            var options: OpaquePointer?
            av_dict_set(&options, "protocol_whitelist", "file", 0)
            let code = avio_open2(&context.pointee.pb, "file:" + path, AVIO_FLAG_WRITE, &context.pointee.interrupt_callback, &options)
            av_dict_free(&options)
            try check(code, "opening for writing", file: target, status: .cannotCreate)
            ioOpen = true
        }
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        let code = avformat_write_header(context, &dict)
        av_dict_free(&dict)
        try check(code, "writing the header", file: target, status: .ioError)
        headerWritten = true
    }

    func write(_ packet: Packet) throws {
        let code = av_interleaved_write_frame(context, packet.pointer)
        if code < 0 { throw ffmpegFailure(code, "writing", file: target, status: .ioError) }
        try checkIOError()
    }

    /// Writes the trailer and closes the file, reporting any write error seen on the way
    /// (a full disk must not end in a "successful" truncated file).
    func finish() throws {
        precondition(headerWritten, "finish before writeHeader")
        try check(av_write_trailer(context), "finishing", file: target, status: .ioError)
        try checkIOError()
        if ioOpen {
            let code = avio_closep(&context.pointee.pb)
            ioOpen = false
            try check(code, "closing", file: target, status: .ioError)
        }
    }

    private func checkIOError() throws {
        if let pb = context.pointee.pb, pb.pointee.error < 0 {
            throw ffmpegFailure(pb.pointee.error, "writing", file: target, status: .ioError)
        }
    }
}
