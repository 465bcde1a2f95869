import LeakTrace

/// The original read once for a still's trace: a thumbnail every `StillOriginal.thumbnailInterval`
/// seconds, and the corner features of a frame whenever the slides' look has changed (at most
/// one every `StillOriginal.featureInterval` seconds), which is all `StillFrameSearch` needs
/// to find where and when the still shows the lecture.
enum StillOverviewReader {
    static func read(_ video: GreyVideo) throws -> (overview: StillFrameSearch.Overview, thumbnailSize: (width: Int, height: Int)) {
        let pictureSize = video.greySize(maximumWidth: StillOriginal.featureWidth)
        let thumbnailSize = LeakTrace.thumbnailSize(width: pictureSize.width, height: pictureSize.height,
                                                    thumbnailWidth: StillOriginal.thumbnailWidth)
        let frames = try video.everyFrame(width: pictureSize.width, height: pictureSize.height)
        var thumbnails: [TimedLuma] = []
        var featurePictures: [TimedLuma] = []
        var lastFeatures: TimedLuma?
        // The same frames at the size a crop's search looks at, while they fit the budget: a
        // crop would otherwise decode each again from the keyframe before it.
        let detailSize = StillFrameSearch.detailSize(display: video.displaySize)
        var detailPictures: [(time: Double, picture: CompactLuma)]? = []
        let detailBytes = detailSize.width * detailSize.height
        var nextThumbnail = -Double.infinity
        while let time = try frames.advance() {
            guard time >= nextThumbnail - 1e-6 else { continue }
            nextThumbnail = time + StillOriginal.thumbnailInterval
            let thumbnail = TimedLuma(time: time, image: try frames.thumbnail(width: StillOriginal.thumbnailWidth))
            thumbnails.append(thumbnail)
            if StillOriginal.needsFeatures(time: time, thumbnail: thumbnail.image, lastTime: lastFeatures?.time,
                                           lastThumbnail: lastFeatures?.image) {
                featurePictures.append(TimedLuma(time: time, image: try frames.picture()))
                if let kept = detailPictures?.count {
                    if (kept + 1) * detailBytes <= StillFrameSearch.detailBudget {
                        detailPictures?.append((time, CompactLuma(try frames.picture(size: detailSize))))
                    } else {
                        detailPictures = nil
                    }
                }
                lastFeatures = thumbnail
            }
        }
        let featureFrames = FeatureFrame.finding(in: featurePictures, displayWidth: video.displaySize.width)
        let overview = StillFrameSearch.Overview(thumbnails: thumbnails, featureFrames: featureFrames, display: video.displaySize,
                                                 detailPictures: detailPictures)
        return (overview, (thumbnails.first?.image.width ?? thumbnailSize.width, thumbnails.first?.image.height ?? thumbnailSize.height))
    }
}
