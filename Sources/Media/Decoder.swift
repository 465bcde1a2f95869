internal import CFFmpeg
import Overlay

/// An owned decoding `AVCodecContext` for one input stream.
package final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let file: String

    /// A decoder for `stream`; `file` names it in errors. `strict` makes damaged data an error
    /// rather than something concealed: a still has no next frame to hide the damage behind.
    /// `keyframesOnly` skips every other picture (a quick look over a long video).
    package init(stream: InputStream, file: String, threads: Int = 0, strict: Bool = false, keyframesOnly: Bool = false) throws {
        self.file = file
        guard let parameters = stream.pointer.pointee.codecpar else {
            throw MediaError(file: file, detail: "stream \(stream.index) has no codec parameters")
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(file: file, detail: "no decoder for \(stream.codec.name) (stream \(stream.index))")
        }
        // When the system cannot start the decoder's threads (EAGAIN from pthread_create: a
        // thread limit, or no address space for their stacks), the decoder runs on ours.
        var opened = try Self.open(codec, parameters: parameters, stream: stream, file: file, threads: threads, strict: strict, keyframesOnly: keyframesOnly)
        if case .failure(let failure) = opened, failure.code == AVErrorCode.tryAgain, threads != 1 {
            opened = try Self.open(codec, parameters: parameters, stream: stream, file: file, threads: 1, strict: strict, keyframesOnly: keyframesOnly)
        }
        switch opened {
        case .success(let ctx):
            context = ctx
        case .failure(let failure):
            let code = failure.code, name = "the \(String(cString: codec.pointee.name)) decoder"
            if code == AVErrorCode.tryAgain { throw ResourceError(.threads, "for \(name) of \(file)") }
            try check(code, MediaError.call("opening \(name)", file: file))
            preconditionFailure("check returned for a failed open")
        }
    }

    /// Pictures the stream may show after a later one is decoded (`has_b_frames`): for a decoder
    /// opened on a global header, what its sequence parameter set declares.
    package var reorderDelay: Int { Int(context.pointee.has_b_frames) }

    /// A one-thread decoder for the packets `encoder` makes (its codec, size, format and global
    /// header): smart rendering's quality trial decodes its own re-encoded pictures to compare them
    /// with the input's.
    package init(decodingOutputOf encoder: Encoder, file: String) throws {
        self.file = file
        guard let codec = avcodec_find_decoder(encoder.codec.pointee.id) else {
            throw MediaError(file: file, detail: "no decoder for what \(encoder.name) makes")
        }
        guard let parameters = avcodec_parameters_alloc() else { throw ResourceError.memory("creating codec parameters") }
        var ownedParameters: UnsafeMutablePointer<AVCodecParameters>? = parameters
        defer { avcodec_parameters_free(&ownedParameters) }
        try check(avcodec_parameters_from_context(parameters, encoder.context), MediaError.call("copying codec parameters", file: file))
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceError.memory("creating a decoder") }
        var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
        let copied = avcodec_parameters_to_context(ctx, parameters)
        ctx.pointee.pkt_timebase = encoder.context.pointee.time_base
        ctx.pointee.thread_count = 1
        let code = copied < 0 ? copied : avcodec_open2(ctx, codec, nil)
        guard code >= 0 else {
            avcodec_free_context(&owned)
            try check(code, MediaError.call("opening a decoder for \(encoder.name)'s output", file: file))
            preconditionFailure("check returned for a failed open")
        }
        context = ctx
    }

    /// A context opened on `codec`, or avcodec_open2's failing code (the context freed).
    private static func open(_ codec: UnsafePointer<AVCodec>, parameters: UnsafeMutablePointer<AVCodecParameters>, stream: InputStream,
                             file: String, threads: Int, strict: Bool,
                             keyframesOnly: Bool) throws -> Result<UnsafeMutablePointer<AVCodecContext>, OpenFailure> {
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceError.memory("creating a decoder") }
        var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
        let copied = avcodec_parameters_to_context(ctx, parameters)
        guard copied >= 0 else {
            avcodec_free_context(&owned)
            try check(copied, MediaError.call("copying codec parameters", file: file))
            preconditionFailure("check returned for a failed copy")
        }
        ctx.pointee.pkt_timebase = stream.timeBase.av
        ctx.pointee.thread_count = Int32(threads)  // 0: as many as FFmpeg finds useful
        // Frame and slice threads together, as the ffmpeg tool does.
        ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        // A truncated JPEG otherwise decodes "successfully" with a grey lower part; explode
        // makes the decoders report damaged data.
        if strict { ctx.pointee.err_recognition |= AV_EF_EXPLODE }
        if keyframesOnly { ctx.pointee.skip_frame = AVDISCARD_NONKEY }
        let code = avcodec_open2(ctx, codec, nil)
        guard code >= 0 else {
            avcodec_free_context(&owned)
            return .failure(OpenFailure(code))
        }
        return .success(ctx)
    }

    /// avcodec_open2's failing code, as a `Result`'s failure.
    private struct OpenFailure: Error {
        let code: Int32
        init(_ code: Int32) { self.code = code }
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Forgets buffered frames and state, after a seek.
    package func flush() { avcodec_flush_buffers(context) }

    /// What the decoder made of a packet.
    package enum SendOutcome {
        case accepted
        /// The decoder holds frames that must be received before it takes more (`EAGAIN`).
        case mustReceiveFirst
        /// The packet is damaged; the decoder conceals what it can. Out of memory is thrown instead.
        case damaged(MediaError)
    }

    /// Sends a packet, or nil to drain.
    package func send(_ packet: Packet?) throws -> SendOutcome {
        let code = avcodec_send_packet(context, packet?.pointer)
        if code == AVErrorCode.tryAgain { return .mustReceiveFirst }
        if code >= 0 || code == AVErrorCode.endOfFile { return .accepted }
        return .damaged(try MediaError.decoding(code, file: file))
    }

    /// What a receive call gave.
    package enum ReceiveOutcome: Equatable {
        case frame
        case needsInput
        case endOfStream
        /// Decoding failed on damaged data (the caller counts, skips or stops).
        case damaged(MediaError)
    }

    package func receive(into frame: Frame) throws -> ReceiveOutcome {
        let code = avcodec_receive_frame(context, frame.pointer)
        if code == AVErrorCode.tryAgain { return .needsInput }
        if code == AVErrorCode.endOfFile { return .endOfStream }
        if code >= 0 { return .frame }
        return .damaged(try MediaError.decoding(code, file: file))
    }

    /// Decodes `packet` (nil drains): sends it and hands every frame the decoder has ready to
    /// `onFrame` (the frame is emptied after each call). A decoder that must give out frames
    /// before it takes more input (`mustReceiveFirst`) gets the same packet again once it has, so
    /// no packet is dropped. `onDamage` hears damaged data (`sending`: from the packet sent, else
    /// from a frame), to count it or stop.
    package func decode(_ packet: Packet?, into frame: Frame, onDamage: (MediaError, _ sending: Bool) throws -> Void,
                onFrame: (Frame) throws -> Void) throws {
        var sent = false
        while !sent {
            var refused = false
            switch try send(packet) {
            case .accepted: sent = true
            case .damaged(let damage):
                sent = true
                try onDamage(damage, true)
            case .mustReceiveFirst: refused = true
            }
            var received = 0
            receiving: while true {
                switch try receive(into: frame) {
                case .frame:
                    received += 1
                    defer { frame.unref() }
                    try onFrame(frame)
                case .needsInput, .endOfStream:
                    break receiving
                case .damaged(let damage):
                    try onDamage(damage, false)
                }
            }
            // A decoder that refuses input yet has nothing to give would never take the packet.
            if refused && received == 0 {
                throw MediaError(file: file, detail: "the decoder neither takes the next packet nor gives a frame")
            }
        }
    }
}

extension MediaError {
    /// The error for a failed decoding call, which callers treat as damaged data; thrown
    /// instead when the failure is not the data's (an interrupt, or memory running out).
    static func decoding(_ code: Int32, file: String) throws -> MediaError {
        if code == AVErrorCode.exit { throw InterruptedError() }
        let error = MediaError(file: file, operation: "decoding", code: ErrorCode(ffmpeg: code))
        if error.isResourceExhausted { throw error }
        // At the address-space limit (ulimit -v) a decoder's failed allocation comes back as
        // damaged data ("invalid data", a slice that would not decode): the run is out of memory,
        // not the input at fault, as `check` says for other calls.
        if !SystemShortage.addressSpaceAvailable() { throw ResourceError.memory("(\(error))") }
        return error
    }
}
