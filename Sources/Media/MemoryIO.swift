internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// An owned read-only `AVIOContext` over bytes in memory: media that is not one file, such as
/// an HLS initialization segment followed by its first media segment, read by `probe`.
package final class MemoryIO {
    let context: UnsafeMutablePointer<AVIOContext>
    private let source: Source

    /// The bytes and the read position, reached from FFmpeg's callbacks through `opaque`.
    private final class Source {
        let bytes: [UInt8]
        var position = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    package init(bytes: [UInt8]) throws {
        source = Source(bytes)
        let size = 64 * 1024
        guard let buffer = av_malloc(size) else { throw ResourceError.memory("allocating a read buffer") }
        let opaque = Unmanaged.passUnretained(source).toOpaque()
        guard let io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, opaque, { opaque, target, wanted in
            // `opaque` is the source passed here.
            guard let opaque else { return vwm_averror_eof() }
            let source = Unmanaged<Source>.fromOpaque(opaque).takeUnretainedValue()
            let count = min(Int(wanted), source.bytes.count - source.position)
            guard count > 0, let target else { return vwm_averror_eof() }
            source.bytes.withUnsafeBufferPointer {
                guard let base = $0.baseAddress else { return }
                target.update(from: base + source.position, count: count)
            }
            source.position += count
            return Int32(count)
        }, nil, { opaque, offset, whence in
            guard let opaque else { return Int64(vwm_averror(EINVAL)) }
            let source = Unmanaged<Source>.fromOpaque(opaque).takeUnretainedValue()
            if whence & AVSEEK_SIZE != 0 { return Int64(source.bytes.count) }
            let base: Int64
            switch whence & ~AVSEEK_FORCE {
            case SEEK_SET: base = 0
            case SEEK_CUR: base = Int64(source.position)
            case SEEK_END: base = Int64(source.bytes.count)
            default: return Int64(vwm_averror(EINVAL))
            }
            let target = base + offset
            guard target >= 0, target <= Int64(source.bytes.count) else { return Int64(vwm_averror(EINVAL)) }
            source.position = Int(target)
            return target
        }) else {
            av_free(buffer)
            throw ResourceError.memory("allocating a memory reader")
        }
        context = io
    }

    deinit {
        // FFmpeg may have replaced the buffer it was given; free the one it holds now.
        av_freep(&context.pointee.buffer)
        var c: UnsafeMutablePointer<AVIOContext>? = context
        avio_context_free(&c)
    }
}
