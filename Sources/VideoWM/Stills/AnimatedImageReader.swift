import Animation
import Foundation
import Overlay

/// Decodes every frame of an animated logo, with its timing: GIF and APNG through FFmpeg
/// (whose decoders compose each frame onto the canvas, applying disposal and blending, and
/// whose GIF demuxer already turns delays under 0.02 s into 0.1 s, as browsers do), animated
/// WebP through libwebp's demux API (FFmpeg 5.1 decodes only still WebP).
///
/// A file that is not animated (a PNG, a one-frame GIF, a still WebP) gives nil: callers
/// read it as a still, exactly as before.
enum AnimatedImageReader {
    /// More frames than this is not a logo; refused rather than held in memory.
    static let maximumFrames = 1000
    /// Every frame is kept decoded (and later scaled): at most this many pixels in all.
    static let maximumTotalPixels = 250_000_000

    /// What kind of animation a file's first bytes announce, if any.
    enum Kind: Equatable { case gif, apng, webp }

    /// The animation in the first bytes of a file: GIF's signature; PNG's `acTL` chunk before
    /// `IDAT` (what makes it APNG); WebP's `VP8X` header with the animation flag.
    static func kind(ofFileStart bytes: [UInt8]) -> Kind? {
        func starts(_ prefix: [UInt8], at i: Int = 0) -> Bool {
            i + prefix.count <= bytes.count && Array(bytes[i..<i + prefix.count]) == prefix
        }
        if starts(Array("GIF8".utf8)) { return .gif }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            var i = 8
            while i + 8 <= bytes.count {
                let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
                if starts(Array("acTL".utf8), at: i + 4) { return .apng }
                if starts(Array("IDAT".utf8), at: i + 4) { return nil }
                i += 12 + length
            }
            return nil
        }
        if starts(Array("RIFF".utf8)), starts(Array("WEBPVP8X".utf8), at: 8), bytes.count > 20, bytes[20] & 0x02 != 0 {
            return .webp
        }
        return nil
    }

    /// The animation at `path` (a local file), or nil when it has one frame or is no animation.
    static func read(path: String, name: String? = nil) throws -> AnimatedImage? {
        let name = name ?? path
        // Opened without blocking, regular files only: a FIFO or a device gives nil here and
        // is refused by the still reader that follows.
        guard let start = try? BoundedRead.prefix(of: path, count: ImageHeader.prefixBytes) else { return nil }
        switch kind(ofFileStart: start) {
        case nil: return nil
        case .webp: return try readWebP(path: path, name: name)
        case .gif, .apng: return try readWithFFmpeg(path: path, name: name)
        }
    }

    /// Frames and durations from FFmpeg's GIF or APNG decoder.
    private static func readWithFFmpeg(path: String, name: String) throws -> AnimatedImage? {
        let input = try InputFile(path: path, name: name)
        guard let stream = input.firstVideoStream else { throw MediaError(file: name, detail: "not an image") }
        let video = stream.video
        try StillImageReader.checkSize(width: video.width, height: video.height, path: name)
        let timeBase = stream.timeBase
        guard timeBase.isValid else { throw MediaError(file: name, detail: "has no time base for its frames") }
        let decoder = try Decoder(stream: stream, file: name, threads: 1, strict: true)
        let packet = try Packet()
        let frame = try Frame()
        var frames: [StraightRGBAImage] = []
        var durations: [PresentationTime] = []
        func receiveAll() throws {
            while true {
                switch try decoder.receive(into: frame) {
                case .frame:
                    defer { frame.unref() }
                    try checkLimits(count: frames.count + 1, width: frame.width, height: frame.height, name: name)
                    let decoded = StillImageReader.DecodedFrame(frame: frame, exifOrientation: nil, iccProfile: nil, name: name)
                    frames.append(try StillImageReader.rgba(from: decoded).image)
                    let ticks = frame.packetDuration ?? 0
                    durations.append(PresentationTime(value: ticks * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator)))
                case .needsInput, .endOfStream: return
                case .damaged(let error): throw error
                }
            }
        }
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == stream.index else { continue }
            if case .damaged(let error) = try decoder.send(packet) { throw error }
            try receiveAll()
        }
        if case .damaged(let error) = try decoder.send(nil) { throw error }
        try receiveAll()
        guard frames.count > 1, frames.allSatisfy({ $0.width == frames[0].width && $0.height == frames[0].height }) else { return nil }
        return AnimatedImage(frames: frames, durations: durations)
    }

    /// Frames and durations from libwebp's animation decoder (straight RGBA, composed on the canvas).
    private static func readWebP(path: String, name: String) throws -> AnimatedImage? {
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError(file: name, problem: .unreadable(what: "the image")) }
        return try [UInt8](data).withUnsafeBufferPointer { bytes -> AnimatedImage? in
            let decoder = try WebPAnimationDecoder(bytes, file: name)
            try StillImageReader.checkSize(width: decoder.width, height: decoder.height, path: name)
            try checkLimits(count: decoder.frameCount, width: decoder.width, height: decoder.height, name: name)
            var frames: [StraightRGBAImage] = []
            var durations: [PresentationTime] = []
            var previousEnd = 0
            while let (pixels, endMilliseconds) = try decoder.next() {
                frames.append(StraightRGBAImage(width: decoder.width, height: decoder.height, pixels: pixels))
                durations.append(PresentationTime(milliseconds: Int64(max(0, endMilliseconds - previousEnd))))
                previousEnd = endMilliseconds
            }
            guard frames.count > 1 else { return nil }
            return AnimatedImage(frames: frames, durations: durations)
        }
    }

    private static func checkLimits(count: Int, width: Int, height: Int, name: String) throws {
        guard count <= maximumFrames, count * width * height <= maximumTotalPixels else {
            throw MediaError(file: name, detail: "is an animation of \(count) frames of \(width)×\(height), over the limit of \(maximumFrames) frames and \(maximumTotalPixels / 1_000_000) megapixels in all for a logo")
        }
    }
}
