import Foundation

/// Which frame of the original a still picture shows, and where in the still that frame is.
public struct StillMatch: Sendable {
    /// Original display pixels → still pixels.
    public var map: Homography
    /// The instant found (seconds on the original's clock), and every instant that fits the
    /// still as well (frames that differ from it nowhere the still shows them apart).
    public var time: Double
    public var times: [Double]
    /// Feature pairs that agree with the map.
    public var inliers: Int
    /// The share of the original's display the still shows.
    public var coverage: Double
}

/// Why a still could not be matched with the original.
public enum StillMatchError: Error, Equatable, CustomStringConvertible {
    /// The still shares too few features with any frame of the original.
    case notFound
    /// The original gave no frames.
    case noOriginalFrames

    public var description: String {
        switch self {
        case .notFound: "the picture shows no frame of the original (too few features in common with any of its frames)"
        case .noOriginalFrames: "the original has no decodable frames"
        }
    }
}

/// Finds the frame a still shows, in three steps: the placement, from corner features the still
/// shares with one of a few frames spread over the original (`StillPlacementSearch`); the
/// spans of the original that look like the still through that placement, from thumbnails
/// taken every `StillOriginal.thumbnailInterval`; then every frame of those spans, compared
/// where they differ from each other (a pointer, a speaker, a build of the slide).
public struct StillFrameSearch {
    /// The original as looked over once: thumbnails at a fixed interval (on `thumbnailWidth`),
    /// and the frames whose features are compared (fewer: one per look of the slides).
    public struct Overview: Sendable {
        public var thumbnails: [TimedLuma]
        public var featureFrames: [FeatureFrame]
        public var display: (width: Int, height: Int)

        public init(thumbnails: [TimedLuma], featureFrames: [FeatureFrame], display: (width: Int, height: Int)) {
            self.thumbnails = thumbnails
            self.featureFrames = featureFrames
            self.display = display
        }
    }

    /// The still is searched for features at most this wide.
    public static let featureWidth = 960
    public static let stillFeatureBudget = 2500
    public static let frameFeatureBudget = 1500
    /// A span found from the thumbnails is searched frame by frame this much wider on each side.
    static let spanMargin = 0.6

    public init() {}

    /// The still's features, found on the largest level of its pyramid at most `featureWidth`
    /// wide, and that level's scale.
    public static func features(of still: PicturePyramid) -> (features: CornerFeatures, scale: Double) {
        let picture = still.levels.first { $0.width <= featureWidth } ?? still.levels[still.levels.count - 1]
        return (CornerFeatures(picture, budget: stillFeatureBudget), Double(picture.width) / Double(still.width))
    }

    /// Matches `still` with the original: its placement, then its instant. `openOriginal` reads
    /// the original's every frame from a time on (from the keyframe before it), as pictures the
    /// size of the overview's thumbnails.
    public func match(_ still: PicturePyramid, overview: Overview,
                      openOriginal: (Double) throws -> any LumaFrameSource) throws -> StillMatch {
        guard let firstThumbnail = overview.thumbnails.first else { throw StillMatchError.noOriginalFrames }
        let (features, scale) = Self.features(of: still)
        guard let placement = StillPlacementSearch.place(still: features, stillScale: scale, stillSize: (still.width, still.height),
                                                         frames: overview.featureFrames, display: overview.display) else {
            throw StillMatchError.notFound
        }
        let view = StillView(still, map: placement.map, display: overview.display, width: firstThumbnail.image.width,
                             height: firstThumbnail.image.height)
        guard view.warped.coverage > 0.01 else { throw StillMatchError.notFound }
        // The tones fitted on the frame the placement was found on, at the thumbnails' size.
        let placedTime = overview.featureFrames[placement.frame].time
        let nearest = overview.thumbnails.min { abs($0.time - placedTime) < abs($1.time - placedTime) } ?? overview.thumbnails[0]
        let fit = PhotometricFit.fit(still: view.warped.image, original: nearest.image, valid: view.warped.valid)
        let coarse = StillTiming.scores(view, frames: overview.thumbnails.map(\.image), fit: fit)
        let spans = Self.spans(StillTiming.closeToBest(coarse).map { overview.thumbnails[$0].time })
        // Every frame of those spans: the best (pixels alike in every frame add alike to every
        // score, so the whole view ranks them by where they differ), then again, those the still
        // cannot tell from it.
        var best: TimedLuma?
        var bestScore = Double.infinity
        try forEachFrame(in: spans, openOriginal: openOriginal) { time, picture in
            let score = StillTiming.scores(view, frames: [picture], fit: fit)[0]
            if score < bestScore { (best, bestScore) = (TimedLuma(time: time, image: picture), score) }
        }
        guard let best else { throw StillMatchError.noOriginalFrames }
        var times: [Double] = []
        try forEachFrame(in: spans, openOriginal: openOriginal) { time, picture in
            if time == best.time || StillTiming.indistinguishable(picture, from: best.image, view: view, fit: fit) { times.append(time) }
        }
        return StillMatch(map: placement.map, time: best.time, times: times, inliers: placement.inliers, coverage: view.warped.coverage)
    }

    /// Calls `body` with every frame of the original in `spans` (each widened by `spanMargin`).
    private func forEachFrame(in spans: [ClosedRange<Double>], openOriginal: (Double) throws -> any LumaFrameSource,
                              _ body: (Double, LumaImage) throws -> Void) throws {
        for span in spans {
            var source = try openOriginal(max(0, span.lowerBound - Self.spanMargin))
            while let time = try source.advance() {
                if time > span.upperBound + Self.spanMargin { break }
                guard time >= span.lowerBound - Self.spanMargin else { continue }
                try body(time, try source.picture())
            }
        }
    }

    /// Times a thumbnail interval or less apart joined into spans.
    static func spans(_ times: [Double]) -> [ClosedRange<Double>] {
        var spans: [ClosedRange<Double>] = []
        for time in times.sorted() {
            if let last = spans.last, time - last.upperBound <= StillOriginal.thumbnailInterval * 1.5 {
                spans[spans.count - 1] = last.lowerBound...time
            } else {
                spans.append(time...time)
            }
        }
        return spans
    }
}

/// How the original is looked over for a still.
public enum StillOriginal {
    /// A thumbnail of the original this often (seconds).
    public static let thumbnailInterval = 0.5
    public static let thumbnailWidth = 320
    /// Frames for features are taken at most this often, and at least when the look changes.
    public static let featureInterval = 2.0
    public static let featureWidth = 640
    /// Two thumbnails whose mean difference is under this many grey levels show the same look:
    /// the later needs no features of its own.
    public static let sameLook: Float = 2.5

    /// Whether a frame at `time` whose thumbnail is `thumbnail` should have its features
    /// found, the last frame that had being at `lastTime` with `lastThumbnail`.
    public static func needsFeatures(time: Double, thumbnail: LumaImage, lastTime: Double?, lastThumbnail: LumaImage?) -> Bool {
        guard let lastTime, let lastThumbnail else { return true }
        guard time - lastTime >= featureInterval - 1e-6 else { return false }
        guard lastThumbnail.width == thumbnail.width, lastThumbnail.height == thumbnail.height else { return true }
        var sum: Float = 0
        for i in thumbnail.pixels.indices { sum += abs(thumbnail.pixels[i] - lastThumbnail.pixels[i]) }
        return sum / Float(thumbnail.pixels.count) >= sameLook
    }
}
