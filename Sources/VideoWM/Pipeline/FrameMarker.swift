import CFFmpeg
import Animation
import Overlay

/// Marks decoded frames: converts them to the target pixel format when needed (reusing one
/// converter and one output frame), then blends the marks in YUV, in place.
///
/// Transcode and thumbnail share this, which is what makes a thumbnail's mark identical
/// to the mark on the same frame of the video.
final class FrameMarker {
    let compositor: Compositor
    let targetFormat: AVPixelFormat
    let rotation: DisplayRotation
    let file: String
    private var converter: FrameConverter?

    init(compositor: Compositor, targetFormat: AVPixelFormat, rotation: DisplayRotation, file: String) {
        precondition(PlanarYUVLayout(targetFormat) != nil, "marks need a planar YUV target")
        self.compositor = compositor
        self.targetFormat = targetFormat
        self.rotation = rotation
        self.file = file
    }

    /// The format marks are blended in for a stream decoding to `decoded`: the same when it can be, else 4:2:0.
    static func markingFormat(forDecoded decoded: AVPixelFormat) -> AVPixelFormat {
        PlanarYUVLayout(decoded) != nil ? decoded : AV_PIX_FMT_YUV420P
    }

    /// Returns the marked frame: `frame` itself, or the converter's reused output frame.
    func mark(_ frame: Frame, at time: PresentationTime, expectedWidth: Int, expectedHeight: Int) throws -> Frame {
        guard frame.width == expectedWidth, frame.height == expectedHeight else {
            throw VideoWMError.corrupt(file, "the picture size changes mid-stream (\(expectedWidth)×\(expectedHeight) to \(frame.width)×\(frame.height)); not supported yet")
        }
        var target = frame
        if frame.pixelFormat != targetFormat {
            if converter == nil || converter!.sourceFormat != frame.pixelFormat {
                let f = frame.pointer.pointee
                converter = try FrameConverter(width: frame.width, height: frame.height, from: frame.pixelFormat, to: targetFormat,
                                               sourceMatrix: swsMatrix(for: f.colorspace, height: frame.height),
                                               sourceFullRange: f.color_range == AVCOL_RANGE_JPEG, targetFullRange: f.color_range == AVCOL_RANGE_JPEG)
            }
            target = try converter!.convert(frame)
        }
        if !compositor.isEmpty {
            try check(av_frame_make_writable(target.pointer), "preparing a frame", file: file, status: .ioError)
            try compositor.composite(onto: planarCanvas(for: target.pointer, layout: PlanarYUVLayout(targetFormat)!), at: time, rotation: rotation)
        }
        return target
    }
}
