import CFFmpeg

/// An owned `AVPacket`.
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
    var streamIndex: Int { Int(pointer.pointee.stream_index) }
}

/// An owned `AVFrame`.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws {
        guard let f = av_frame_alloc() else { throw ResourceError.memory("allocating a frame") }
        pointer = f
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&f)
    }

    func unref() { av_frame_unref(pointer) }

    var width: Int { Int(pointer.pointee.width) }
    var height: Int { Int(pointer.pointee.height) }
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }
}

/// What a send/receive call pair reports: a result, a request for more input, or the end.
enum CodecStep {
    case produced
    case needsInput
    case endOfStream
}
