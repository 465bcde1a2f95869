internal import CWebP

/// An owned libwebp `WebPAnimDecoder` over bytes the caller keeps alive for its lifetime:
/// decodes an animated WebP frame by frame, each composed on the canvas (disposal and
/// blending applied) as straight RGBA.
package final class WebPAnimationDecoder {
    private let pointer: OpaquePointer
    package let width: Int
    package let height: Int
    package let frameCount: Int
    private let file: String

    package init(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws {
        self.file = file
        var data = WebPData(bytes: bytes.baseAddress, size: bytes.count)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw MediaError(file: file, detail: "libwebp's animation decoder does not match its header")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&data, &options) else { throw MediaError(file: file, detail: "not a readable animated WebP") }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            WebPAnimDecoderDelete(decoder)
            throw MediaError(file: file, detail: "not a readable animated WebP")
        }
        pointer = decoder
        width = Int(info.canvas_width)
        height = Int(info.canvas_height)
        frameCount = Int(info.frame_count)
    }

    deinit { WebPAnimDecoderDelete(pointer) }

    /// The next frame's pixels and the time its display ends, in ms from the start; nil after the last.
    package func next() throws -> (pixels: [UInt8], endMilliseconds: Int)? {
        guard WebPAnimDecoderHasMoreFrames(pointer) != 0 else { return nil }
        var buffer: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(pointer, &buffer, &timestamp) != 0, let buffer else {
            throw MediaError(file: file, detail: "a frame of the animated WebP is damaged")
        }
        return (Array(UnsafeBufferPointer(start: buffer, count: width * height * 4)), Int(timestamp))
    }
}
