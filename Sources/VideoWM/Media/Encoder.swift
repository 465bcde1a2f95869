import CFFmpeg

/// An owned encoding `AVCodecContext`.
final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>
    let file: String

    /// Creates (but does not open) an encoder; the caller fills in the context, then calls `open`.
    init(codecName: String, file: String) throws {
        self.file = file
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw EncoderError(encoder: codecName, file: file, problem: .unavailable)
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceError.memory("creating an encoder") }
        self.codec = codec
        context = ctx
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    var name: String { String(cString: codec.pointee.name) }

    /// Pixel formats the encoder accepts (empty when it does not say).
    var supportedPixelFormats: [AVPixelFormat] {
        guard var p = codec.pointee.pix_fmts else { return [] }
        var formats: [AVPixelFormat] = []
        while p.pointee != AV_PIX_FMT_NONE {
            formats.append(p.pointee)
            p += 1
        }
        return formats
    }

    func open(options: [String: String]) throws {
        var dict: OpaquePointer?
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        let code = avcodec_open2(context, codec, &dict)
        var leftover: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let e = av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            leftover.append(String(cString: e.pointee.key))
            entry = e
        }
        av_dict_free(&dict)
        try check(code) { EncoderError(encoder: name, file: file, problem: .openFailed, code: $0) }
        if !leftover.isEmpty {
            throw EncoderError(encoder: name, file: file, problem: .optionsNotTaken(leftover))
        }
    }

    func send(_ frame: Frame?) throws {
        let code = avcodec_send_frame(context, frame?.pointer)
        if code != AVErrorCode.endOfFile { try check(code, OutputError.call("encoding with \(name)", file: file)) }
    }

    func receive(into packet: Packet) throws -> CodecStep {
        let code = avcodec_receive_packet(context, packet.pointer)
        if code == AVErrorCode.tryAgain { return .needsInput }
        if code == AVErrorCode.endOfFile { return .endOfStream }
        try check(code, OutputError.call("encoding with \(name)", file: file))
        return .produced
    }
}
