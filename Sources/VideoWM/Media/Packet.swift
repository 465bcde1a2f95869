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

    /// Sets both timestamps and the duration (in the packet's time base): a re-encoded picture
    /// takes the decode time and duration of the input packet it replaces.
    func setTimestamps(presentation: Int64, decode: Int64, duration: Int64) {
        pointer.pointee.pts = presentation
        pointer.pointee.dts = decode
        pointer.pointee.duration = duration
    }

    /// A new packet holding `bytes` with this one's properties (timestamps, flags, stream).
    func withData(_ bytes: [UInt8], file: String) throws -> Packet {
        let copy = try Packet()
        try check(av_new_packet(copy.pointer, Int32(bytes.count)), OutputError.call("allocating a packet", file: file))
        bytes.withUnsafeBytes { copy.pointer.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
        try check(av_packet_copy_props(copy.pointer, pointer), OutputError.call("copying a packet's properties", file: file))
        return copy
    }
}
