import CFFmpeg

/// An owned `AVPacket`: compressed data of one stream, with its timestamps.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws {
        guard let p = av_packet_alloc() else { throw ResourceError.memory("allocating a packet") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    func unref() { av_packet_unref(pointer) }

    /// Makes this packet another reference to `other`'s data and properties.
    func reference(_ other: Packet, file: String) throws {
        unref()
        try check(av_packet_ref(pointer, other.pointer), OutputError.call("referencing a packet", file: file))
    }

    var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }

    /// Converts the timestamps and duration from one time base to another.
    func rescale(from source: Rational, to target: Rational) {
        av_packet_rescale_ts(pointer, source.av, target.av)
    }

    /// Moves both timestamps by `ticks` (of the packet's time base), where they are set.
    func shift(by ticks: Int64) {
        if pointer.pointee.pts != vwm_nopts_value() { pointer.pointee.pts += ticks }
        if pointer.pointee.dts != vwm_nopts_value() { pointer.pointee.dts += ticks }
    }

    /// The presentation timestamp, in the packet's time base (nil when unset).
    var presentationTimestamp: Int64? { pointer.pointee.pts == vwm_nopts_value() ? nil : pointer.pointee.pts }

    /// The decode timestamp, in the packet's time base (nil when unset).
    var decodeTimestamp: Int64? { pointer.pointee.dts == vwm_nopts_value() ? nil : pointer.pointee.dts }

    /// The duration in the packet's time base (0 when unknown).
    var duration: Int64 { pointer.pointee.duration }

    var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// A new packet referring to this one's data and properties (kept after this one is reused).
    func retained(file: String) throws -> Packet {
        let copy = try Packet()
        try copy.reference(self, file: file)
        return copy
    }

    /// Forgets the byte position in the input, which means nothing in the output.
    func clearPosition() { pointer.pointee.pos = -1 }

    /// The packet's bytes.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size)) }
}
