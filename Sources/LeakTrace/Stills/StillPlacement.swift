import Foundation

/// Where the lecture's frame is in a still picture: the homography from the original's display
/// pixels to the still's pixels, found from corner features the still shares with one of the
/// original's frames.
public struct StillPlacement: Sendable {
    /// Original display pixels → still pixels.
    public var map: Homography
    /// Feature pairs that agree with the map.
    public var inliers: Int
    /// Which of the frames searched it was found on.
    public var frame: Int
    /// The frames searched that nearly as many pairs agree with (`StillPlacementSearch.rivalShare`
    /// of `inliers` or more), `frame` among them: slides of one template differ in a number or
    /// a word, which features barely tell apart.
    public var rivals: [Int] = []
}

/// A frame of the original looked over for a still: its time and features, found on a picture
/// of it `scale` times the display's size.
public struct FeatureFrame: Sendable {
    public var time: Double
    public var features: CornerFeatures
    /// Picture pixels per display pixel.
    public var scale: Double

    public init(time: Double, features: CornerFeatures, scale: Double) {
        self.time = time
        self.features = features
        self.scale = scale
    }

    /// The features of each picture (frames of a display `displayWidth` pixels wide), found on
    /// every core.
    public static func finding(in pictures: [TimedLuma], displayWidth: Int) -> [FeatureFrame] {
        let results = ConcurrentResults<FeatureFrame>(count: pictures.count)
        DispatchQueue.concurrentPerform(iterations: pictures.count) { index in
            let picture = pictures[index]
            results.set(index, FeatureFrame(time: picture.time, features: CornerFeatures(picture.image, budget: StillFrameSearch.frameFeatureBudget),
                                            scale: Double(picture.image.width) / Double(displayWidth)))
        }
        return pictures.indices.map(results.get)
    }
}

public enum StillPlacementSearch {
    /// Feature pairs a placement needs to be believed: four define any homography, and a chance
    /// alignment of a few letters can gather a handful more.
    public static let minimumInliers = 12
    /// How far (in the original's display pixels per 640 pixels of its width) a feature may
    /// land from where the map sends its pair.
    static let toleranceAt640 = 3.0
    /// Frames tried with RANSAC: those with the most descriptor matches.
    static let framesTried = 6

    /// The placement that the most feature pairs agree with, over `frames` (each the still's
    /// `stillFeatures`, found on the still shrunk by `stillScale`, against the frame's), nil
    /// when no frame gives `minimumInliers`. `display` is the original's display size.
    public static func place(still stillFeatures: CornerFeatures, stillScale: Double, stillSize: (width: Int, height: Int),
                             frames: [FeatureFrame], display: (width: Int, height: Int)) -> StillPlacement? {
        // Descriptor matches per frame first (cheap); RANSAC only on the frames with most.
        let matches = ConcurrentResults<[FeatureMatch]>(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { index in
            matches.set(index, FeatureMatching.match(stillFeatures, frames[index].features))
        }
        let order = frames.indices.sorted { (matches.get($0).count, -$0) > (matches.get($1).count, -$1) }
        let stillRect = PlaneRect(minX: 0, minY: 0, maxX: Double(stillSize.width), maxY: Double(stillSize.height))
        let displayRect = PlaneRect(minX: 0, minY: 0, maxX: Double(display.width), maxY: Double(display.height))
        let tolerance = toleranceAt640 * Double(display.width) / 640
        var best: StillPlacement?
        var found: [(frame: Int, inliers: Int)] = []
        for index in order.prefix(framesTried) {
            let pairs = matches.get(index)
            guard pairs.count >= minimumInliers else { continue }
            let frame = frames[index]
            let from = pairs.map { (x: Double(stillFeatures.xs[$0.query]) / stillScale, y: Double(stillFeatures.ys[$0.query]) / stillScale) }
            let to = pairs.map { (x: Double(frame.features.xs[$0.reference]) / frame.scale, y: Double(frame.features.ys[$0.reference]) / frame.scale) }
            // Found as still → display (the tolerance is the display's), then turned round.
            let estimate = RobustHomography.estimate(from: from, to: to, threshold: tolerance, minimumInliers: minimumInliers) { map in
                plausible(map, stillRect: stillRect, displayRect: displayRect)
            }
            StillTraceDiagnostics.note("  frame \(index) at \(frame.time): \(pairs.count) matches, \(estimate?.inliers.count ?? 0) inliers \(estimate.map { "\($0.map)" } ?? "")")
            if let estimate { found.append((index, estimate.inliers.count)) }
            guard let estimate, estimate.inliers.count > best?.inliers ?? 0, let map = estimate.map.inverse else { continue }
            best = StillPlacement(map: map, inliers: estimate.inliers.count, frame: index)
        }
        if let inliers = best?.inliers {
            best?.rivals = found.filter { Double($0.inliers) >= rivalShare * Double(inliers) }.map(\.frame)
        }
        return best
    }

    /// A frame whose placement gathers this share of the best's feature pairs may show the
    /// still's slide as well (`StillPlacement.rivals`).
    static let rivalShare = 0.85

    /// A map from the still into the display that a screen, a photograph of it or a crop can
    /// give: no mirror image or fold either way, a scale between a twentieth and twenty, and
    /// the still and the display overlapping.
    static func plausible(_ stillToDisplay: Homography, stillRect: PlaneRect, displayRect: PlaneRect) -> Bool {
        guard stillToDisplay.keepsOrientation(of: stillRect), let back = stillToDisplay.inverse, back.keepsOrientation(of: displayRect),
              let box = stillToDisplay.boundingBox(of: stillRect) else { return false }
        let scale = stillToDisplay.localScale(x: stillRect.width / 2, y: stillRect.height / 2)
        return scale > 0.05 && scale < 20 && box.intersection(displayRect).area > 0.02 * displayRect.area
    }
}

/// Results written by concurrent workers, one index each, read after all have finished.
final class ConcurrentResults<Value>: @unchecked Sendable {
    private var values: [Value?]
    private let lock = NSLock()

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Value) {
        lock.lock()
        values[index] = value
        lock.unlock()
    }

    func get(_ index: Int) -> Value {
        lock.lock()
        defer { lock.unlock() }
        guard let value = values[index] else { preconditionFailure("result \(index) read before it was written") }
        return value
    }
}
