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
        /// The feature frames' pictures at `StillFrameSearch.detailSize`, a byte a pixel, kept
        /// from the one reading when they fit `detailBudget` (nil: decoded again when a crop
        /// needs them).
        public var detailPictures: [(time: Double, picture: CompactLuma)]?

        public init(thumbnails: [TimedLuma], featureFrames: [FeatureFrame], display: (width: Int, height: Int),
                    detailPictures: [(time: Double, picture: CompactLuma)]? = nil) {
            self.thumbnails = thumbnails
            self.featureFrames = featureFrames
            self.display = display
            self.detailPictures = detailPictures
        }
    }

    /// The still is searched for features at most this wide.
    public static let featureWidth = 960
    public static let stillFeatureBudget = 2500
    public static let frameFeatureBudget = 1500
    /// The thumbnails scoring best, around which the original is searched frame by frame.
    static let bestThumbnails = 6
    /// A placement showing less of the frame than this is looked for again in more detail.
    static let detailCoverage = 0.6
    static let detailWidth = 1280
    /// The bytes of detail pictures an overview keeps (a 150-s lecture of slides needs about 25
    /// of 0.9 MB each at 720p); past it, a crop's search decodes them again, seeking to each.
    public static let detailBudget = 128 << 20

    /// The size a crop's features are looked for in the original's frames: the display's, at
    /// most `detailWidth` wide.
    public static func detailSize(display: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let width = min(display.width, detailWidth)
        return (width, max(2, Int((Double(width) * Double(display.height) / Double(display.width)).rounded())))
    }
    /// A span found from the thumbnails is searched frame by frame this much wider on each side.
    static let spanMargin = 0.6

    public init() {}

    /// The still's features, found on the largest level of its pyramid at most `width` wide,
    /// and that level's scale.
    public static func features(of still: PicturePyramid, width: Int = featureWidth) -> (features: CornerFeatures, scale: Double) {
        let picture = still.levels.first { $0.width <= width } ?? still.levels[still.levels.count - 1]
        return (CornerFeatures(picture, budget: stillFeatureBudget), Double(picture.width) / Double(still.width))
    }

    /// Matches `still` with the original: its placement, then its instant. `openOriginal` reads
    /// the original's every frame from a time on (from the keyframe before it), as pictures of
    /// the size asked.
    public func match(_ still: PicturePyramid, overview: Overview,
                      openOriginal: @escaping (Double, (width: Int, height: Int)) throws -> any LumaFrameSource) throws -> StillMatch {
        guard let firstThumbnail = overview.thumbnails.first else { throw StillMatchError.noOriginalFrames }
        let thumbnailSize = (width: firstThumbnail.image.width, height: firstThumbnail.image.height)
        StillTraceDiagnostics.note("start")
        let (features, scale) = Self.features(of: still)
        StillTraceDiagnostics.note("still features \(features.count)")
        var found = StillPlacementSearch.place(still: features, stillScale: scale, stillSize: (still.width, still.height),
                                               frames: overview.featureFrames, display: overview.display)
        // A still that shows a small part of the frame enlarged (a crop) has few features at the
        // overview's size: its looks are tried again at the display's size, up to `detailWidth`.
        let shown = found.map { StillView(still, map: $0.map, display: overview.display, width: 64, height: 36).warped.coverage } ?? 0
        if shown < Self.detailCoverage {
            let detailed = try detailFrames(overview, openOriginal: openOriginal)
            let (detailFeatures, detailScale) = Self.features(of: still, width: Self.detailWidth)
            if let again = StillPlacementSearch.place(still: detailFeatures, stillScale: detailScale, stillSize: (still.width, still.height),
                                                      frames: detailed, display: overview.display), again.inliers > found?.inliers ?? 0 {
                let overviewIndex = { (index: Int) in overview.featureFrames.firstIndex { $0.time == detailed[index].time } ?? 0 }
                found = StillPlacement(map: again.map, inliers: again.inliers, frame: overviewIndex(again.frame),
                                       rivals: again.rivals.map(overviewIndex))
            }
        }
        guard let placement = found else { throw StillMatchError.notFound }
        // The look the placement shows, then the placement made exact on the thumbnail of that
        // look and on its frame at twice the size, then the look again through the exact placement.
        StillTraceDiagnostics.note("placed")
        var map = placement.map
        var coarse = try coarseSearch(still, map: map, overview: overview, near: overview.featureFrames[placement.frame].time)
        guard coarse.view.warped.coverage > 0.01 else { throw StillMatchError.notFound }
        StillTraceDiagnostics.note("coarse 1")
        map = PlacementRefinement.refine(map, still: still, frame: overview.thumbnails[coarse.best].image, display: overview.display, radius: 6)
        StillTraceDiagnostics.note("refined 1")
        let largerSize = (width: 2 * thumbnailSize.width, height: 2 * thumbnailSize.height)
        if let larger = try frame(at: overview.thumbnails[coarse.best].time, size: largerSize, openOriginal: openOriginal) {
            map = PlacementRefinement.refine(map, still: still, frame: larger, display: overview.display, radius: 3)
        }
        StillTraceDiagnostics.note("refined 2")
        coarse = try coarseSearch(still, map: map, overview: overview, near: overview.thumbnails[coarse.best].time)
        StillTraceDiagnostics.note("coarse 2")
        let (view, fit) = (coarse.view, coarse.fit)
        // The spans to search frame by frame: around the best thumbnails, and around every
        // thumbnail the still cannot tell from the best (a slide that stays, several slots long).
        let thumbnails = overview.thumbnails
        let ranked = thumbnails.indices.sorted { (coarse.scores[$0], $0) < (coarse.scores[$1], $1) }
        let alike = thumbnails.indices.filter {
            StillTiming.indistinguishable(thumbnails[$0].image, from: thumbnails[coarse.best].image, view: view, fit: fit)
        }
        let spans = Self.spans(Set(ranked.prefix(Self.bestThumbnails) + alike + Self.thumbnails(ofLooks: placement.rivals, overview: overview))
            .map { thumbnails[$0].time })
        let openThumbnails: (Double) throws -> any LumaFrameSource = { try openOriginal($0, thumbnailSize) }
        // Every frame of those spans: the best (pixels alike in every frame add alike to every
        // score, so the whole view ranks them by where they differ), then those the still cannot
        // tell from it.
        var frames: [(time: Double, picture: CompactLuma)] = []
        var best: TimedLuma?
        var bestScore = Double.infinity
        try forEachFrame(in: spans, openOriginal: openThumbnails) { time, picture in
            let score = StillTiming.score(view, frame: picture, fit: fit)
            if score < bestScore { (best, bestScore) = (TimedLuma(time: time, image: picture), score) }
            frames.append((time, CompactLuma(picture)))
        }
        guard let best else { throw StillMatchError.noOriginalFrames }
        StillTraceDiagnostics.note("fine 1: \(frames.count) frames in \(spans.count) spans \(spans.map { "\($0.lowerBound)-\($0.upperBound)" }), best \(best.time) at \(bestScore)")
        let uncovered = view.hiding(StillTiming.ownMarks(view, best: best.image, fit: fit))
        let times = frames.filter {
            $0.time == best.time || StillTiming.indistinguishable($0.picture.image, from: best.image, view: uncovered, fit: fit)
        }.map(\.time)
        StillTraceDiagnostics.note("fine 2")
        return StillMatch(map: map, time: best.time, times: times, inliers: placement.inliers, coverage: view.warped.coverage)
    }

    /// The still seen through `map` on the thumbnails' grid, its tones fitted to the thumbnail
    /// nearest `time`, and every thumbnail's score; `best`: the best-scoring thumbnail.
    private func coarseSearch(_ still: PicturePyramid, map: Homography, overview: Overview, near time: Double) throws
        -> (view: StillView, fit: PhotometricFit, scores: [Double], best: Int) {
        let thumbnails = overview.thumbnails
        let view = StillView(still, map: map, display: overview.display, width: thumbnails[0].image.width, height: thumbnails[0].image.height)
        let nearest = thumbnails.indices.min { abs(thumbnails[$0].time - time) < abs(thumbnails[$1].time - time) } ?? 0
        let fit = PhotometricFit.fit(still: view.warped.image, original: thumbnails[nearest].image, valid: view.warped.valid)
        let scores = StillTiming.scores(view, frames: thumbnails.map(\.image), fit: fit)
        let best = scores.indices.min { (scores[$0], $0) < (scores[$1], $1) } ?? 0
        return (view, fit, scores, best)
    }

    /// The overview's feature frames again, at the display's size (up to `detailWidth` wide).
    private func detailFrames(_ overview: Overview,
                              openOriginal: (Double, (width: Int, height: Int)) throws -> any LumaFrameSource) throws -> [FeatureFrame] {
        let size = Self.detailSize(display: overview.display)
        var pictures: [TimedLuma] = []
        for frame in overview.featureFrames {
            if let kept = overview.detailPictures?.first(where: { $0.time == frame.time }) {
                pictures.append(TimedLuma(time: kept.time, image: kept.picture.image))
            } else if let picture = try self.frame(at: frame.time, size: size, openOriginal: openOriginal) {
                pictures.append(TimedLuma(time: frame.time, image: picture))
            }
        }
        return FeatureFrame.finding(in: pictures, displayWidth: overview.display.width)
    }

    /// The original's frame shown at `time` (the first at or after it), `size` large.
    private func frame(at time: Double, size: (width: Int, height: Int),
                       openOriginal: (Double, (width: Int, height: Int)) throws -> any LumaFrameSource) throws -> LumaImage? {
        var source = try openOriginal(max(0, time - 0.5), size)
        var last: LumaImage?
        while let shown = try source.advance() {
            last = try source.picture()
            if shown >= time - 1e-3 { break }
        }
        return last
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

    /// The thumbnails of the looks (slides) the feature frames `looks` begin, at most
    /// `lookThumbnails` of each: searched frame by frame whatever their coarse scores. Thumbnails
    /// a fraction of a second apart catch a moving pointer or speaker elsewhere than the still
    /// does, which can outweigh the number that tells one slide of a template from the next, so
    /// the slides the still's features fit nearly as well are each searched whole.
    static func thumbnails(ofLooks looks: [Int], overview: Overview) -> [Int] {
        let starts = overview.featureFrames.map(\.time).sorted()
        return looks.flatMap { look -> [Int] in
            let start = overview.featureFrames[look].time
            let end = starts.first { $0 > start } ?? .infinity
            // From a thumbnail interval before the feature frame: the slide began before it was seen.
            return Array(overview.thumbnails.indices.filter {
                overview.thumbnails[$0].time >= start - StillOriginal.thumbnailInterval && overview.thumbnails[$0].time < end
            }.prefix(Self.lookThumbnails))
        }
    }

    /// At most this many thumbnails of a look are searched whole (half a minute).
    static let lookThumbnails = 60

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
