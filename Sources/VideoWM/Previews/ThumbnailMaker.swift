import Animation
import Foundation
import Overlay

/// `videowm thumbnail`: the frame of a video shown at a time, marked exactly as `transcode`
/// marks it, written upright as a still.
public enum ThumbnailMaker {
    /// `scale` sizes the thumbnail as `transcode` sizes the video (the frame scaled, then
    /// marked); `upscale` lets it grow. `hdr`: what becomes of a PQ or HLG frame.
    public static func make(video: String, output: String, at seconds: Double, compositor: Compositor, overwrite: Bool,
                            quality: Int = 90, scale: ScaleRequest? = nil, upscale: Bool = false,
                            hdr: HDRStillRendering = .toneMappedToSDR, warn: WarningHandler = { _ in }) throws {
        _ = try StillImageWriter.checkFormat(output)
        let locator = try VideoFrameLocator(path: video)
        compositor.timecode = locator.timecode(warn: warn)
        let destination = try StillImageWriter.reserve(output, overwrite: overwrite, inputs: [video])
        let wanted = PresentationTime(seconds: seconds)
        let located = try locator.frame(at: wanted)
        // The video's own end, its last frame's, not the container's duration (which may count
        // longer audio, or a timestamp jump): `--at` the end itself gives the last frame.
        if let end = located.videoEnd, wanted > end {
            let lasts = String(format: "%.3f", end.seconds)
            throw RequestError(subject: "--at \(seconds)", problem: "\(video) lasts only \(lasts) s (its last frame is shown from "
                               + String(format: "%.3f", located.time.seconds) + " s); give a time from 0 to \(lasts)")
        }
        let still = try MarkedStill.upright(located, rotation: locator.rotation, compositor: compositor, file: video,
                                            request: scale.map { ($0, upscale) }, hdr: hdr)
        try StillImageWriter.write(still.image, into: destination, settings: StillImageWriter.Settings(quality: quality, codePoints: still.codePoints))
    }
}
