internal import CFFmpeg

/// An owned FFmpeg bitstream filter (`AVBSFContext`): packets rewritten the way a muxer would
/// rewrite them before storing them. An HLS segment is written by our own fMP4 writer, so the
/// filters FFmpeg's MP4 muxer inserts by itself are applied here: `vp9_superframe` (libvpx's
/// hidden alt-ref frames joined to the next shown one: one packet per picture) and
/// `aac_adtstoasc` (ADTS headers of AAC from MPEG-TS dropped).
package final class BitstreamFilter {
    private let context: UnsafeMutablePointer<AVBSFContext>
    private let file: String

    /// The filter FFmpeg's MP4 muxer would put on a stream of `codec` whose first packet is
    /// `firstPacket`, nil when it needs none.
    package static func mp4FilterName(codec: CodecID, firstPacket: UnsafeRawBufferPointer, extradata: [UInt8]) -> String? {
        if codec == .vp9 { return "vp9_superframe" }
        // ADTS: the 12-bit sync word 0xFFF, and no AudioSpecificConfig out of band.
        if codec == .aac, extradata.isEmpty, firstPacket.count >= 2, firstPacket[0] == 0xFF, firstPacket[1] & 0xF0 == 0xF0 {
            return "aac_adtstoasc"
        }
        return nil
    }

    /// A filter named `name` for packets described by `stream`'s parameters, in `timeBase`.
    package convenience init(name: String, stream: InputStream, file: String) throws {
        try self.init(name: name, file: file) { try check(avcodec_parameters_copy($0, stream.pointer.pointee.codecpar), OutputError.call("setting up \(name)", file: file)) }
        context.pointee.time_base_in = stream.timeBase.av
        try initialize(name)
    }

    /// A filter named `name` for what `encoder` makes.
    package convenience init(name: String, encoder: Encoder, file: String) throws {
        try self.init(name: name, file: file) { try check(avcodec_parameters_from_context($0, encoder.context), OutputError.call("setting up \(name)", file: file)) }
        context.pointee.time_base_in = encoder.timeBase.av
        try initialize(name)
    }

    private init(name: String, file: String, parameters: (UnsafeMutablePointer<AVCodecParameters>) throws -> Void) throws {
        self.file = file
        guard let filter = av_bsf_get_by_name(name) else { throw OutputError(file: file, stage: .creating, detail: "this FFmpeg has no \(name) filter") }
        var ctx: UnsafeMutablePointer<AVBSFContext>?
        try check(av_bsf_alloc(filter, &ctx), OutputError.call("setting up \(name)", file: file, stage: .creating))
        guard let ctx else { throw ResourceError.memory("setting up \(name)") }
        context = ctx
        try parameters(ctx.pointee.par_in)
    }

    private func initialize(_ name: String) throws {
        try check(av_bsf_init(context), OutputError.call("setting up \(name)", file: file, stage: .creating))
    }

    deinit {
        var c: UnsafeMutablePointer<AVBSFContext>? = context
        av_bsf_free(&c)
    }

    /// Filters `packet` (nil: the end) and returns what comes out (none, one or more packets).
    package func filter(_ packet: Packet?) throws -> [Packet] {
        if let packet {
            let input = try packet.retained(file: file)
            try check(av_bsf_send_packet(context, input.pointer), OutputError.call("filtering a packet", file: file))
        } else {
            try check(av_bsf_send_packet(context, nil), OutputError.call("filtering a packet", file: file))
        }
        var out: [Packet] = []
        while true {
            let next = try Packet()
            let code = av_bsf_receive_packet(context, next.pointer)
            if code == AVErrorCode.tryAgain || code == AVErrorCode.endOfFile { return out }
            try check(code, OutputError.call("filtering a packet", file: file))
            out.append(next)
        }
    }
}
