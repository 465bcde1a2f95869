import CFFmpeg
import Animation
import Foundation
import Overlay

/// `videowm thumbnail`: the frame of a video shown at a time, marked exactly as `transcode`
/// marks it, written upright as a still.
public enum ThumbnailMaker {
    public static func make(video: String, output: String, at seconds: Double, compositor: Compositor, overwrite: Bool) throws {
        _ = try StillImageWriter.checkFormat(output)
        let source = try InputFile(path: video)
        guard let index = source.bestVideoStreamIndex() else { throw VideoWMError.corrupt(video, "has no video stream") }
        let stream = source.stream(index)
        let decoder = try Decoder(stream: stream, file: video)
        let rotation = VideoSource.displayRotation(of: stream)
        let timeBase = stream.pointee.time_base
        var clock = FrameClock(timeBaseNumerator: timeBase.num, timeBaseDenominator: timeBase.den)
        let wanted = PresentationTime(seconds: seconds)

        // Decode from the start: times are measured from the first presented frame, and
        // decoding everything up to `seconds` is exact whatever the keyframe layout.
        // (Seeking to the nearest earlier keyframe is the obvious speed-up for long videos.)
        let packet = try Packet()
        let frame = try Frame()
        let shown = try Frame()
        var shownTime: PresentationTime?
        var finished = false
        func take() throws {
            while !finished {
                switch try decoder.receive(into: frame) {
                case .produced:
                    var pts: Int64? = frame.pointer.pointee.best_effort_timestamp
                    if pts == vwm_nopts_value() { pts = nil }
                    let duration = frame.pointer.pointee.pkt_duration
                    let t = clock.time(ofTimestamp: pts, duration: duration > 0 ? duration : nil)
                    if t <= wanted {
                        shown.unref()
                        av_frame_move_ref(shown.pointer, frame.pointer)
                        shownTime = t
                    } else {
                        finished = true
                        frame.unref()
                    }
                case .needsInput, .endOfStream:
                    return
                }
            }
        }
        while !finished, try source.read(into: packet) {
            defer { packet.unref() }
            try Interruption.throwIfRequested()
            guard packet.streamIndex == index else { continue }
            _ = try decoder.send(packet)
            try take()
        }
        if !finished {
            _ = try decoder.send(nil)
            try take()
        }
        guard let time = shownTime else { throw VideoWMError.corrupt(video, "no frame could be decoded") }
        if !finished, let duration = source.durationSeconds, seconds > duration + 0.5 {
            throw VideoWMError.usage("--at \(seconds): \(video) lasts only \(String(format: "%.3f", duration)) s")
        }
        let width = shown.width, height = shown.height
        let marker = FrameMarker(compositor: compositor, targetFormat: FrameMarker.markingFormat(forDecoded: shown.pixelFormat),
                                 rotation: rotation, file: video, pictureWidth: width, pictureHeight: height)
        let marked = try marker.mark(shown, at: time)
        let f = marked.pointer.pointee
        let toRGBA = try FrameConverter(width: width, height: height, from: marked.pixelFormat, to: AV_PIX_FMT_RGBA,
                                        sourceMatrix: swsMatrix(for: f.colorspace, height: height),
                                        sourceFullRange: f.color_range == AVCOL_RANGE_JPEG, targetFullRange: true)
        let rgba = try toRGBA.convert(marked).pointer.pointee
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let stride = Int(rgba.linesize.0)
        pixels.withUnsafeMutableBufferPointer { dst in
            for row in 0..<height {
                (dst.baseAddress! + row * width * 4).update(from: rgba.data.0! + row * stride, count: width * 4)
            }
        }
        var image = StraightRGBAImage(width: width, height: height, pixels: pixels)
        if rotation != DisplayRotation.upright {
            image = image.premultiplied().rotated(clockwiseQuarterTurns: rotation.clockwiseQuarterTurns).unpremultipliedOpaque()
        }
        try StillImageWriter.write(image, to: output, overwrite: overwrite, inputs: [video])
    }
}

extension PremultipliedRGBAImage {
    /// For opaque pictures, premultiplied and straight pixels are the same bytes.
    func unpremultipliedOpaque() -> StraightRGBAImage {
        StraightRGBAImage(width: width, height: height, pixels: pixels)
    }
}
