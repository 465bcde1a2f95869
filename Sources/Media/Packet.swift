internal import CFFmpeg

/// An owned `AVPacket`: compressed data of one stream, with its timestamps.
package final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    package init() throws {
        guard let p = av_packet_alloc() else { throw ResourceError.memory("allocating a packet") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    package func unref() { av_packet_unref(pointer) }

    /// Moves `other`'s data and properties into this packet, leaving `other` empty.
    func take(_ other: Packet) {
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, other.pointer)
    }

    /// Makes this packet another reference to `other`'s data and properties.
    package func reference(_ other: Packet, file: String) throws {
        unref()
        try check(av_packet_ref(pointer, other.pointer), OutputError.call("referencing a packet", file: file))
    }

    package var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }

    /// The packet starts a picture that decodes on its own (a keyframe).
    package var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// Converts the timestamps and duration from one time base to another.
    package func rescale(from source: Rational, to target: Rational) {
        av_packet_rescale_ts(pointer, source.av, target.av)
    }

    /// Moves both timestamps by `ticks` (of the packet's time base), where they are set.
    func shift(by ticks: Int64) {
        if pointer.pointee.pts != vwm_nopts_value() { pointer.pointee.pts += ticks }
        if pointer.pointee.dts != vwm_nopts_value() { pointer.pointee.dts += ticks }
    }

    /// A new packet referring to this one's data and properties (kept after this one is reused).
    package func retained(file: String) throws -> Packet {
        let copy = try Packet()
        try copy.reference(self, file: file)
        return copy
    }

    /// Forgets the byte position in the input, which means nothing in the output.
    package func clearPosition() { pointer.pointee.pos = -1 }

    /// How many bytes the packet holds.
    package var size: Int { Int(pointer.pointee.size) }

    /// The byte offset in the file where the packet starts, when the demuxer knows it.
    var position: Int64? { pointer.pointee.pos >= 0 ? pointer.pointee.pos : nil }

    /// Runs `body` with the packet's bytes, which stay alive (and unchanged) for the call only.
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) {
            try body(UnsafeRawBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size)))
        }
    }

    /// Gives the packet `data` in place of its bytes, keeping its timestamps, duration and flags.
    package func replaceData(with data: [UInt8], file: String) throws {
        guard let fresh = av_packet_alloc() else { throw ResourceError.memory("allocating a packet") }
        var owned: UnsafeMutablePointer<AVPacket>? = fresh
        defer { av_packet_free(&owned) }
        try check(av_new_packet(fresh, Int32(data.count)), OutputError.call("allocating a packet", file: file))
        data.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            fresh.pointee.data.update(from: base, count: source.count)
        }
        try check(av_packet_copy_props(fresh, pointer), OutputError.call("copying packet properties", file: file))
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, fresh)
    }

    // MARK: Timing and flags

    /// The presentation timestamp in the stream's time base; nil when the packet has none.
    package var presentationTimestamp: Int64? {
        get { pointer.pointee.pts == vwm_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? vwm_nopts_value() }
    }

    /// The decode timestamp in the stream's time base; nil when the packet has none.
    package var decodeTimestamp: Int64? {
        get { pointer.pointee.dts == vwm_nopts_value() ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? vwm_nopts_value() }
    }

    /// How long the packet's picture or samples last, in the stream's time base (0: unknown).
    package var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }

    /// The demuxer marks the packet to be decoded but not shown (an MP4 edit list starts after it).
    package var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
}
