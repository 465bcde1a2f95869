import Animation
import LeakTrace
import Overlay

/// A video opened for leak tracing: its picture as a viewer sees it (size, rotation, pixel
/// shape) and the timestamp of its first presented frame, time zero for every reading.
final class GreyVideo {
    let path: String
    let description: VideoStreamDescription
    let durationSeconds: Double?
    /// The first presented frame's timestamp, found by decoding that frame once.
    let firstTimestamp: Int64

    init(path: String) throws {
        self.path = path
        let input = try InputFile(path: path)
        guard let stream = input.bestVideoStream() else { throw MediaError(file: path, detail: "has no video stream") }
        description = stream.video
        guard description.width > 0, description.height > 0 else {
            throw MediaError(file: path, detail: "the video stream has no picture size")
        }
        let timeBase = stream.timeBase
        durationSeconds = timeBase.isValid ? stream.duration.map(timeBase.seconds) ?? input.durationSeconds : input.durationSeconds
        let frames = try GreyFrames(video: nil, path: path, input: input, stream: stream, width: 1, height: 1, mode: .everyFrame)
        guard try frames.advance() != nil, let first = frames.currentTimestamp else {
            throw MediaError(file: path, detail: "no frame with a timestamp could be decoded")
        }
        firstTimestamp = first
    }

    /// The displayed picture's size: square pixels, upright.
    var displaySize: (width: Int, height: Int) {
        description.rotation.displaySize(storedWidth: description.pixelAspect.squareWidth(ofStoredWidth: description.width),
                                         storedHeight: description.height)
    }

    /// A size at most `maximumWidth` wide with the displayed picture's shape (never enlarged).
    func greySize(maximumWidth: Int) -> (width: Int, height: Int) {
        let display = displaySize
        let width = min(display.width, maximumWidth)
        return (width, max(2, Int((Double(width) * Double(display.height) / Double(display.width)).rounded())))
    }

    /// Every frame from the first, timed as `transcode` times them.
    func everyFrame(width: Int, height: Int) throws -> GreyFrames {
        try GreyFrames(video: self, path: path, width: width, height: height, mode: .everyFrame)
    }

    /// The keyframes only: they decode on their own, so a long video is looked over quickly.
    func keyframes(width: Int, height: Int) throws -> GreyFrames {
        try GreyFrames(video: self, path: path, width: width, height: height, mode: .keyframes)
    }

    /// Frames from the keyframe at or before `seconds` on (from the first frame when seeking fails).
    func frames(from seconds: Double, width: Int, height: Int) throws -> GreyFrames {
        try GreyFrames(video: self, path: path, width: width, height: height, mode: .from(seconds))
    }
}

/// One reading of a video as grey pictures of a chosen size, in display orientation, for
/// `LeakAnalyzer`. Frames are converted (by swscale, to 8-bit full-range luma) only when the
/// analyzer asks for their picture.
final class GreyFrames: LumaFrameSource {
    enum Mode {
        case everyFrame
        case keyframes
        case from(Double)
    }

    private let path: String
    private let input: InputFile
    private let stream: InputStream
    private let decoder: Decoder
    private let packet: Packet
    private let frame: Frame
    private let mode: Mode
    private let width: Int
    private let height: Int
    private let rotation: DisplayRotation
    /// Time zero's timestamp for readings that do not start at the first frame.
    private let firstTimestamp: Int64?
    private var clock: FrameClock
    private var scaler: Scaler?
    private var thumbnailScaler: Scaler?
    private var sizedScaler: Scaler?
    private var draining = false
    private var sawKeyframe = false
    private(set) var currentTimestamp: Int64?

    convenience init(video: GreyVideo?, path: String, width: Int, height: Int, mode: Mode) throws {
        let input = try InputFile(path: path)
        guard let stream = input.bestVideoStream() else { throw MediaError(file: path, detail: "has no video stream") }
        try self.init(video: video, path: path, input: input, stream: stream, width: width, height: height, mode: mode)
    }

    init(video: GreyVideo?, path: String, input: InputFile, stream: InputStream, width: Int, height: Int, mode: Mode) throws {
        precondition(width > 0 && height > 0, "an empty picture")
        self.path = path
        self.input = input
        self.stream = stream
        self.mode = mode
        self.width = width
        self.height = height
        rotation = stream.video.rotation
        firstTimestamp = video?.firstTimestamp
        if case .keyframes = mode {
            decoder = try Decoder(stream: stream, file: path, keyframesOnly: true)
        } else {
            decoder = try Decoder(stream: stream, file: path)
        }
        packet = try Packet()
        frame = try Frame()
        clock = FrameClock(timeBaseNumerator: stream.timeBase.numerator, timeBaseDenominator: stream.timeBase.denominator)
        if case .from(let seconds) = mode, let first = firstTimestamp, stream.timeBase.isValid {
            let target = FrameClock.timestamp(at: PresentationTime(seconds: max(0, seconds)), firstTimestamp: first,
                                              timeBaseNumerator: Int64(stream.timeBase.numerator),
                                              timeBaseDenominator: Int64(stream.timeBase.denominator))
            if input.seek(stream, toKeyframeBefore: target) { decoder.flush() }
        }
    }

    func advance() throws -> Double? {
        frame.unref()
        while try nextFrame() {
            let timestamp = frame.bestEffortTimestamp
            currentTimestamp = timestamp
            switch mode {
            case .everyFrame:
                return clock.time(ofTimestamp: timestamp, duration: frame.packetDuration).seconds
            case .keyframes, .from:
                // After a seek, pictures before the first keyframe lack their references.
                if !sawKeyframe, !frame.isKeyFrame { frame.unref(); continue }
                if case .keyframes = mode, !frame.isKeyFrame { frame.unref(); continue }
                sawKeyframe = true
                guard let timestamp, let first = firstTimestamp else { frame.unref(); continue }
                let timeBase = stream.timeBase
                return FrameClock.time(ofTimestamp: timestamp, firstTimestamp: first, timeBaseNumerator: Int64(timeBase.numerator),
                                       timeBaseDenominator: Int64(timeBase.denominator)).seconds
            }
        }
        return nil
    }

    func picture() throws -> LumaImage {
        try convert(to: (width, height), with: &scaler)
    }

    /// The current frame at `size` (display orientation), whatever size the reading was opened at.
    func picture(size: (width: Int, height: Int)) throws -> LumaImage {
        try convert(to: size, with: &sizedScaler)
    }

    func thumbnail(width thumbnailWidth: Int) throws -> LumaImage {
        let size = thumbnailSize(width: width, height: height, thumbnailWidth: thumbnailWidth)
        return try convert(to: size, with: &thumbnailScaler)
    }

    /// The current frame as grey at `size` (display orientation), through `scaler`, made anew
    /// when the frame's shape changes.
    private func convert(to size: (width: Int, height: Int), with scaler: inout Scaler?) throws -> LumaImage {
        let stored = rotation.swapsAxes ? (size.height, size.width) : (size.width, size.height)
        let current: Scaler
        if let scaler, scaler.width == frame.width, scaler.height == frame.height, scaler.format == frame.pixelFormat, scaler.target == stored.0 {
            current = scaler
        } else {
            // Full-range luma from whatever range the video has (the same conversion for leak and original).
            let colors = ColorConversion.toRGBA(from: frame.color, format: frame.pixelFormat, height: frame.height, stillRange: false)
            current = Scaler(width: frame.width, height: frame.height, format: frame.pixelFormat, target: stored.0,
                             scaler: try PixelScaler(from: (frame.width, frame.height, frame.pixelFormat), to: (stored.0, stored.1, .gray8),
                                                     colors: colors, file: path))
            scaler = current
        }
        var bytes = [UInt8](repeating: 0, count: stored.0 * stored.1)
        try bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try current.scaler.scale(frame, intoPacked: base, bytesPerRow: stored.0)
        }
        let image = bytes.withUnsafeBufferPointer { LumaImage(width: stored.0, height: stored.1, bytes: $0, bytesPerRow: stored.0) }
        return image.rotated(clockwiseQuarterTurns: rotation.clockwiseQuarterTurns)
    }

    private struct Scaler {
        var width: Int, height: Int, format: PixelFormat, target: Int
        var scaler: PixelScaler
    }

    /// The next decoded frame in presentation order; false at the end. Damaged data is
    /// concealed by the decoder, as `transcode` does by default; keyframe readings send only
    /// keyframe packets.
    private func nextFrame() throws -> Bool {
        while true {
            switch try decoder.receive(into: frame) {
            case .frame: return true
            case .endOfStream: return false
            case .damaged: continue
            case .needsInput: if draining { return false }
            }
            try Interruption.throwIfRequested()
            if try input.read(into: packet) {
                defer { packet.unref() }
                guard packet.streamIndex == stream.index else { continue }
                if case .keyframes = mode, !packet.isKeyframe { continue }
                _ = try decoder.send(packet)
            } else {
                draining = true
                _ = try decoder.send(nil)
            }
        }
    }
}
