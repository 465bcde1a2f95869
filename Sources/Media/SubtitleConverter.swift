internal import CFFmpeg

/// Converts a text subtitle stream into another text format — SubRip, ASS or WebVTT into
/// mov_text for MP4/MOV, into WebVTT for WebM — by decoding each event (to ASS) and encoding
/// it again with the same start, duration, language and disposition. Bitmap subtitles (DVD,
/// PGS) cannot become text; callers leave them out.
package final class SubtitleConverter {
    let sink: MuxedStream
    private let decoder: Decoder
    private let encoder: Encoder
    private let packet: Packet
    private let file: String
    /// Encoded events are small (a few lines of text with styling); this is ffmpeg's size.
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    /// A converter of `stream` (of the file named `input`) to what the encoder named
    /// `encoderName` writes, into a new stream of `muxer`.
    package init(stream: InputStream, input: String, encoderName: String, muxer: Muxer) throws {
        file = muxer.target
        decoder = try Decoder(stream: stream, file: input, threads: 1)
        encoder = try Encoder(codecName: encoderName, file: file)
        let dec = decoder.context.pointee, enc = encoder.context
        enc.pointee.time_base = stream.timeBase.av
        // The ASS header carries the styles the events refer to; text encoders read it.
        if let header = dec.subtitle_header, dec.subtitle_header_size > 0 {
            let size = Int(dec.subtitle_header_size)
            guard let copy = av_mallocz(size + 1)?.assumingMemoryBound(to: UInt8.self) else {
                throw ResourceError.memory("setting up subtitles")
            }
            copy.update(from: header, count: size)
            enc.pointee.subtitle_header = copy  // freed with the encoder's context
            enc.pointee.subtitle_header_size = Int32(size)
        }
        try encoder.open(options: [:])
        packet = try Packet()
        sink = try muxer.addStream(encodedBy: encoder, replacing: stream)
    }

    /// Re-encodes the event in `input` (one packet is one event) and writes it.
    package func consume(_ input: Packet) throws {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        // A damaged event is skipped, as a player would; it cannot corrupt the others.
        guard avcodec_decode_subtitle2(decoder.context, &subtitle, &got, input.pointer) >= 0, got != 0 else { return }
        defer { avsubtitle_free(&subtitle) }
        guard subtitle.num_rects > 0, subtitle.pts != vwm_nopts_value() else { return }
        // The event's times are milliseconds after `pts` (microseconds); encode it starting at 0.
        let microseconds = AVRational(num: 1, den: AV_TIME_BASE), milliseconds = AVRational(num: 1, den: 1000)
        let start = subtitle.pts + av_rescale_q(Int64(subtitle.start_display_time), milliseconds, microseconds)
        let duration = Int64(subtitle.end_display_time) - Int64(subtitle.start_display_time)
        subtitle.pts = start
        subtitle.end_display_time = UInt32(clamping: duration)
        subtitle.start_display_time = 0
        let size = buffer.withUnsafeMutableBufferPointer {
            avcodec_encode_subtitle(encoder.context, $0.baseAddress, Int32($0.count), &subtitle)
        }
        try check(size, MediaError.call("converting subtitles", file: file))
        guard size > 0 else { return }
        packet.unref()
        try check(av_new_packet(packet.pointer, size), OutputError.call("converting subtitles", file: file))
        buffer.withUnsafeBufferPointer {
            guard let base = $0.baseAddress else { return }
            packet.pointer.pointee.data.update(from: base, count: Int(size))
        }
        let timeBase = sink.timeBase.av
        packet.pointer.pointee.pts = av_rescale_q(start, microseconds, timeBase)
        packet.pointer.pointee.dts = packet.pointer.pointee.pts
        packet.pointer.pointee.duration = av_rescale_q(duration, milliseconds, timeBase)
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        try sink.write(packet, timeBase: sink.timeBase)
        packet.unref()
    }
}
