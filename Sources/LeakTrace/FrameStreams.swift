// How the analyzer walks its two streams: the leak's opening kept small while aligning,
// then the original read alongside the rest of the leak.

/// Frames already in memory (tests, small inputs).
public struct ArrayFrameSource: LumaFrameSource {
    private var frames: ArraySlice<TimedLuma>

    public init(_ frames: [TimedLuma]) { self.frames = frames[...] }

    public mutating func next() throws -> TimedLuma? { frames.popFirst() }
}

/// The start of the leak, kept small: a thumbnail of every frame, a picture every `sampleInterval`.
struct LeakWindow {
    struct Sample {
        var time: Double
        var image: CompactLuma
    }

    var thumbnails: [TimedLuma] = []
    /// Samples read but not yet handed out by `nextSample`.
    private(set) var samples: [Sample] = []
    private var handedOut = 0
    let sampleInterval: Double
    private var lastSampleTime = -Double.infinity

    static func read(_ leak: inout some LumaFrameSource, seconds: Double, sampleInterval: Double, thumbnailWidth: Int) throws -> LeakWindow {
        var window = LeakWindow(sampleInterval: sampleInterval)
        while let frame = try leak.next() {
            window.thumbnails.append(TimedLuma(time: frame.time, image: thumbnail(frame.image, width: thumbnailWidth)))
            if window.takesSample(at: frame.time) { window.samples.append(Sample(time: frame.time, image: CompactLuma(frame.image))) }
            if frame.time - window.thumbnails[0].time >= seconds { break }
        }
        return window
    }

    init(sampleInterval: Double) { self.sampleInterval = sampleInterval }

    mutating func takesSample(at time: Double) -> Bool {
        guard time >= lastSampleTime + sampleInterval - 1e-6 else { return false }
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
        while let frame = try leak.next() {
            if takesSample(at: frame.time) { return frame }
        }
        return nil
    }
}

/// Walks the original alongside the leak: for each leak time, the original frame shown nearest
/// `leak time + offset`.
struct OriginalPairing {
    let offset: Double
    private var previous: TimedLuma?
    private var upcoming: TimedLuma?
    private var ended = false

    init(offset: Double) { self.offset = offset }

    mutating func frame(at leakTime: Double, from source: inout any LumaFrameSource) throws -> LumaImage? {
        let target = leakTime + offset
        while !ended, (upcoming?.time ?? -Double.infinity) < target {
            previous = upcoming
            upcoming = try source.next()
            if upcoming == nil { ended = true }
        }
        switch (previous, upcoming) {
        case let (p?, u?): return target - p.time <= u.time - target ? p.image : u.image
        case let (p?, nil): return target - p.time <= 0.5 ? p.image : nil
        case let (nil, u?): return u.time - target <= 0.5 ? u.image : nil
        case (nil, nil): return nil
        }
    }
}

/// A thumbnail `width` pixels wide with the picture's shape.
func thumbnail(_ image: LumaImage, width: Int) -> LumaImage {
    let height = max(4, Int((Double(width) * Double(image.height) / Double(image.width)).rounded()))
    return image.resized(width: min(width, image.width), height: min(height, image.height))
}

/// Up to `count` elements spread evenly over `items`.
func spread<T>(_ items: [T], count: Int) -> [T] {
    guard items.count > count, count > 0 else { return items }
    return (0..<count).map { items[$0 * (items.count - 1) / max(count - 1, 1)] }
}

/// The frame nearest `time`, if one lies within `tolerance` seconds.
func nearest(_ frames: [TimedLuma], to time: Double, within tolerance: Double) -> TimedLuma? {
    var low = 0, high = frames.count
    while low < high {
        let middle = (low + high) / 2
        if frames[middle].time < time { low = middle + 1 } else { high = middle }
    }
    let candidates = [low - 1, low].filter { frames.indices.contains($0) }
    guard let best = candidates.min(by: { abs(frames[$0].time - time) < abs(frames[$1].time - time) }),
          abs(frames[best].time - time) <= tolerance else { return nil }
    return frames[best]
}
