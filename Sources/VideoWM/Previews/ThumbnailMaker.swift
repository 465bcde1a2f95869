import Animation
import Foundation
import Overlay

/// `videowm thumbnail`: the frame of a video shown at a time, marked exactly as `transcode`
/// marks it, written upright as a still.
public enum ThumbnailMaker {
    /// `scale` sizes the thumbnail as `transcode` sizes the video (the frame scaled, then
    /// marked); `upscale` lets it grow.
    public static func make(video: String, output: String, at seconds: Double, compositor: Compositor, overwrite: Bool,
                            quality: Int = 90, scale: ScaleRequest? = nil, upscale: Bool = false,
                            warn: WarningHandler = { _ in }) throws {
        _ = try StillImageWriter.checkFormat(output)
        let locator = try VideoFrameLocator(path: video)
        compositor.timecode = locator.timecode(warn: warn)
        let destination = try StillImageWriter.reserve(output, overwrite: overwrite, inputs: [video])
        let located = try locator.frame(at: PresentationTime(seconds: seconds))
        if located.isLast, let duration = locator.durationSeconds, seconds > duration + 0.5 {
            throw RequestError(subject: "--at \(seconds)", problem: "\(video) lasts only \(String(format: "%.3f", duration)) s")
        }
        let image = try MarkedStill.upright(located, rotation: locator.rotation, compositor: compositor, file: video,
                                            request: scale.map { ($0, upscale) })
        try StillImageWriter.write(image, into: destination, settings: StillImageWriter.Settings(quality: quality))
    }
}
