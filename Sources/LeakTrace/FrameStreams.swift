// How the analyzer walks its two streams: the leak's opening kept small while aligning,
// then the original read alongside the rest of the leak.

/// Frames already in memory (tests, small inputs).
public struct ArrayFrameSource: LumaFrameSource {
    private let frames: [TimedLuma]
    private var index = -1

    public init(_ frames: [TimedLuma]) { self.frames = frames }

    public mutating func advance() throws -> Double? {
        index = min(index + 1, frames.count)
        return index < frames.count ? frames[index].time : nil
    }

    public mutating func picture() throws -> LumaImage { frames[index].image }
}

/// The start of the leak, kept small: a thumbnail of every frame, a picture every `sampleInterval`.
struct LeakWindow {
    struct Sample {
        var time: Double
        var image: CompactLuma
    }

    var thumbnails: [TimedLuma] = []
    /// Whether the window holds the whole leak (it ended before the window's seconds were up).
    private(set) var reachedEnd = false
    /// Samples read but not yet handed out by `nextSample`.
    private(set) var samples: [Sample] = []
    private var handedOut = 0
    let sampleInterval: Double
    private var lastSampleTime = -Double.infinity

    /// Reads up to `seconds` of the leak. Pictures are kept every `sampleInterval`, or less often
    /// when `seconds` of them would take more than `maximumSamplePixels` bytes (large frames);
    /// after the window, sampling is back to `sampleInterval`.
    static func read(_ leak: inout some LumaFrameSource, seconds: Double, sampleInterval: Double, thumbnailWidth: Int,
                     maximumSamplePixels: Int = .max) throws -> LeakWindow {
        var window = LeakWindow(sampleInterval: sampleInterval)
        var windowInterval = sampleInterval
        window.reachedEnd = true
        while let time = try leak.advance() {
            window.thumbnails.append(TimedLuma(time: time, image: try leak.thumbnail(width: thumbnailWidth)))
            if window.takesSample(at: time, every: windowInterval) {
                let picture = try leak.picture()
                if window.samples.isEmpty {
                    let affordable = Double(maximumSamplePixels) / Double(picture.width * picture.height)
                    windowInterval = max(sampleInterval, seconds / max(affordable, 1))
                }
                window.samples.append(Sample(time: time, image: CompactLuma(picture)))
            }
            if time - window.thumbnails[0].time >= seconds {
                window.reachedEnd = false
                break
            }
        }
        return window
    }

    init(sampleInterval: Double) { self.sampleInterval = sampleInterval }

    mutating func takesSample(at time: Double, every interval: Double? = nil) -> Bool {
        guard time >= lastSampleTime + (interval ?? sampleInterval) - 1e-6 else { return false }
        lastSampleTime = time
        return true
    }

    /// The next sample: those kept while aligning first (each released once handed out), then
    /// frames of the rest of the leak as they come due.
    mutating func nextSample(from leak: inout some LumaFrameSource) throws -> TimedLuma? {
        if handedOut < samples.count {
            let sample = samples[handedOut]
            handedOut += 1
            if handedOut == samples.count { (samples, handedOut) = ([], 0) }
            return TimedLuma(time: sample.time, image: sample.image.image)
        }
        while let time = try leak.advance() {
            if takesSample(at: time) { return TimedLuma(time: time, image: try leak.picture()) }
        }
        return nil
    }
}

/// Walks the original alongside the leak: for each leak sample, the original frame shown
/// nearest the original time its piece of the leak shows (`LeakTimeline`). Only frames that can
/// be that nearest one are converted: the current frame once it is within a frame's step of the
/// target, and the one after. Targets go forward within a piece; at a cut the caller opens the
/// original again where the next piece is (`needsReopening`).
struct OriginalPairing {
    /// The frame the source is on, and its picture once converted.
    private var current: (time: Double, picture: LumaImage?)?
    /// The frame before it, kept when it was close enough to a target to be the answer.
    private var previous: (time: Double, picture: LumaImage)?
    private var step = 0.0
    private var ended = false
    /// A target this far past the frame the source is on is reached by opening the original
    /// there (a seek decodes from the keyframe before) rather than decoding every frame between.
    static let farAhead = 10.0

    /// Whether `target` lies behind the source (a piece of the leak from earlier in the original)
    /// or far ahead of it, so the original must be opened again there.
    func needsReopening(for target: Double) -> Bool {
        guard let now = current?.time ?? previous?.time else { return false }
        return target < (previous?.time ?? now) - max(step, 0.05) || target > now + Self.farAhead
    }

    mutating func frame(atOriginal target: Double, from source: inout any LumaFrameSource) throws -> LumaImage? {
        if current == nil, !ended { try move(&source) }
        while !ended, let now = current, now.time < target {
            if step == 0 || target - now.time <= step * 1.01 {
                previous = (now.time, try now.picture ?? source.picture())
            }
            try move(&source)
        }
        let before = previous.flatMap { target - $0.time <= max(step, 0.5) ? $0 : nil }
        guard let after = current else { return before?.picture }
        if let before, target - before.time <= after.time - target { return before.picture }
        guard after.time - target <= max(step, 0.5) else { return before?.picture }
        let picture = try after.picture ?? source.picture()
        current?.picture = picture
        return picture
    }

    private mutating func move(_ source: inout any LumaFrameSource) throws {
        guard let time = try source.advance() else {
            (current, ended) = (nil, true)
            return
        }
        if let now = current, time > now.time { step = time - now.time }
        current = (time, nil)
    }
}

/// A thumbnail `width` pixels wide with the picture's shape (never enlarged).
public func thumbnail(_ image: LumaImage, width: Int) -> LumaImage {
    let size = thumbnailSize(width: image.width, height: image.height, thumbnailWidth: width)
    return image.resized(width: size.width, height: size.height)
}

/// The size of a thumbnail `thumbnailWidth` wide of a `width`×`height` picture.
public func thumbnailSize(width: Int, height: Int, thumbnailWidth: Int) -> (width: Int, height: Int) {
    let thumbnailHeight = max(4, Int((Double(thumbnailWidth) * Double(height) / Double(width)).rounded()))
    return (min(thumbnailWidth, width), min(thumbnailHeight, height))
}

/// Up to `count` elements spread evenly over `items`.
func spread<T>(_ items: [T], count: Int) -> [T] {
    guard items.count > count, count > 0 else { return items }
    return (0..<count).map { items[$0 * (items.count - 1) / max(count - 1, 1)] }
}

/// The frame nearest `time`, if one lies within `tolerance` seconds (`frames` sorted by time).
func nearest(_ frames: [TimedLuma], to time: Double, within tolerance: Double) -> TimedLuma? {
    guard !frames.isEmpty else { return nil }
    let best = nearestIndex(count: frames.count, to: time) { frames[$0].time }
    return abs(frames[best].time - time) <= tolerance ? frames[best] : nil
}

/// The index of the time nearest `target` among `count` times in increasing order (`count` > 0),
/// `time(i)` giving the i-th: the earlier of two as near.
func nearestIndex(count: Int, to target: Double, time: (Int) -> Double) -> Int {
    var low = 0, high = count
    while low < high {
        let middle = (low + high) / 2
        if time(middle) < target { low = middle + 1 } else { high = middle }
    }
    if low == count { return count - 1 }
    return low > 0 && target - time(low - 1) <= time(low) - target ? low - 1 : low
}
