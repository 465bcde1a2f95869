internal import CFFmpeg

/// Where the packets of one output stream go: a muxer's stream (`MuxedStream`). Encoders,
/// stream copiers and audio and subtitle converters all write through this, so a stream's
/// packets may come from several of them.
package protocol PacketSink: AnyObject {
    /// Writes `packet`, whose timestamps count in `timeBase`; the sink rescales them.
    func write(_ packet: Packet, timeBase: Rational) throws
}

/// One stream of a muxer, as the destination of its packets.
package final class MuxedStream: PacketSink {
    let stream: UnsafeMutablePointer<AVStream>
    private unowned let muxer: Muxer

    init(muxer: Muxer, stream: UnsafeMutablePointer<AVStream>) {
        self.muxer = muxer
        self.stream = stream
    }

    var index: Int { Int(stream.pointee.index) }

    /// Replaces the stream's codec header (before the muxer writes its header): a copied H.264
    /// stream whose sample entry also lists the parameter sets of re-encoded segments.
    func setCodecHeader(_ bytes: [UInt8]) throws {
        guard let par = stream.pointee.codecpar else { preconditionFailure("avformat_new_stream gives every stream its parameters") }
        av_freep(&par.pointee.extradata)
        par.pointee.extradata_size = 0
        guard let data = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else { throw ResourceError.memory("a codec header") }
        let buffer = data.bindMemory(to: UInt8.self, capacity: bytes.count)
        bytes.withUnsafeBufferPointer {
            guard let base = $0.baseAddress else { return }
            buffer.update(from: base, count: bytes.count)
        }
        par.pointee.extradata = buffer
        par.pointee.extradata_size = Int32(bytes.count)
    }

    /// The stream's time base; the muxer may change it when it writes the header.
    var timeBase: Rational { Rational(stream.pointee.time_base) }

    package func write(_ packet: Packet, timeBase source: Rational) throws {
        packet.rescale(from: source, to: timeBase)
        packet.streamIndex = index
        try muxer.write(packet)
    }
}
