/// How the analyzer finds a leak's pieces (`LeakTimeline`) once the picture is aligned: the
/// fingerprints it compares and how much of the original it reads for them.
extension LeakAnalyzer {
    /// The leak's pieces around the coarse `offset` (`LeakTimeline.find`), on fingerprints of the
    /// picture's region: the window's thumbnails and, when `readToEnd`, the rest of the leak read
    /// to its end; the original read, as thumbnails, over every offset within `timelineReach`
    /// (or half the leak's length) of the coarse one. A leak cut together from parts of the
    /// original is found as long as its parts lie that close to where the keyframes placed its
    /// opening: cutting spans out moves each part later by what was cut before it. The keyframes
    /// alone cannot place the parts: slides that look alike (one layout, other words) match each
    /// other's keyframes as well as their own.
    func timeline(around offset: Double, crops: CropFractions, region: PlaneRect, window: LeakWindow, leak: inout some LumaFrameSource,
                  readToEnd: Bool, keyframes: [TimedLuma], openOriginal: (Double) throws -> any LumaFrameSource)
        throws -> (timeline: LeakTimeline, readLeakToEnd: Bool) {
        let printWidth = max(4, min(Self.timelinePrintWidth, Int(region.width)))
        let printHeight = max(3, Int((Double(printWidth) * region.height / region.width).rounded()))
        func print(_ image: LumaImage, of area: PlaneRect) -> LumaImage { image.resampled(from: area, width: printWidth, height: printHeight) }
        var leakPrints: [TimedLuma] = []
        func keep(_ time: Double, _ image: () throws -> LumaImage) rethrows {
            guard time - (leakPrints.last?.time ?? -.infinity) >= Self.timelineFrameStep - 1e-6 else { return }
            leakPrints.append(TimedLuma(time: time, image: print(try image(), of: region)))
        }
        for thumbnail in window.thumbnails { keep(thumbnail.time) { thumbnail.image } }
        let readsOn = readToEnd && !window.reachedEnd
        if readsOn {
            while let time = try leak.advance() { try keep(time) { try leak.thumbnail(width: thumbnailWidth) } }
        }
        guard let first = leakPrints.first, let last = leakPrints.last, let keyframe = keyframes.first else {
            return (LeakTimeline(offset: offset, leakStart: 0, leakEnd: 0), readsOn)
        }
        let single = LeakTimeline(offset: offset, leakStart: first.time, leakEnd: last.time)
        let map = SpatialRegistration.map(crops, original: keyframe.image, leakContent: region)
        let originalRegion = map.inverse.apply(region)
        let reach = max(Self.timelineReach, 1.5 * TemporalAlignment.medianStep(keyframes.map(\.time)), (last.time - first.time) / 2)
        let range = (offset - reach)...(offset + reach)
        var source = try openOriginal(max(0, first.time + range.lowerBound - 1))
        var originalPrints: [TimedLuma] = []
        while let time = try source.advance(), time <= last.time + range.upperBound + 1 {
            guard time >= first.time + range.lowerBound - 1 else { continue }
            originalPrints.append(TimedLuma(time: time, image: print(try source.thumbnail(width: thumbnailWidth), of: originalRegion)))
        }
        return (LeakTimeline.find(leak: leakPrints, original: originalPrints, offsets: range) ?? single, readsOn)
    }

    /// The fingerprints the pieces are found on are at most this many pixels across.
    static let timelinePrintWidth = 24
    /// The leak's frames fingerprinted are at least this far apart (seconds).
    static let timelineFrameStep = 1.0 / 30
    /// How far (seconds) from the coarse offset a part of the leak is looked for at least: or one
    /// and a half times as far as the keyframes are apart (they place a still picture no better).
    static let timelineReach = 30.0
}
