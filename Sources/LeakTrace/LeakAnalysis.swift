import Animation

/// What the tracer learned about a leak: where it sits in the original in time and space, and
/// where it differs from the original, slot by slot.
public struct LeakAnalysis: Sendable {
    /// Original time = leak time + offset (seconds), in the leak's first piece.
    public var offset: Double { timeline.pieces[0].offset }
    /// The pieces of the original the leak shows, one after another, each with its offset.
    public var timeline: LeakTimeline
    /// How much of the original each side lost.
    public var crops: CropFractions
    /// Where the original's picture was found in the leak's, as fractions of the leak's width
    /// and height (0…1): the whole picture for a re-encoded copy, a part of it for a screen
    /// recording. Clipped to the leak's picture.
    public var pictureInLeak: PlaneRect
    /// Original display pixels → difference-map pixels.
    public var displayToMap: AxisAlignedMap
    /// The leak's picture in map pixels (inside any bars).
    public var content: PlaneRect
    /// The mean correlation between leak and warped original frames, 0…1 (about 0.9 and more for a true match).
    public var correlation: Double
    /// The original time span the analysed leak frames showed.
    public var originalSpan: ClosedRange<Double>
    public var maps: DifferenceMaps
    /// Leak frames compared per slot.
    public var framesPerSlot: [SlotKey: Int]
    /// Which variants of the variant layer each period of the leak shows (nil: no variant layer traced).
    public var variantReadings: VariantReadings? = nil
}

/// Why a leak could not be analysed.
public enum LeakAnalysisError: Error, Equatable, CustomStringConvertible {
    /// The leak has no frames (or fewer than two).
    case leakTooShort
    /// The original gave no keyframes to align against.
    case noOriginalKeyframes
    /// No offset made the leak look like any part of the original.
    case notAligned

    public var description: String {
        switch self {
        case .leakTooShort: "the leak has too few frames to align"
        case .noOriginalKeyframes: "the original has no decodable keyframes"
        case .notAligned: "the leak does not match any part of the original"
        }
    }
}

/// Aligns a leak with its original and collects the per-slot difference maps, reading the
/// leak once and the original's matching span once (plus its keyframes, which decode alone).
///
/// The leak's first `alignmentWindowSeconds` are kept small (a thumbnail per frame, a
/// picture every `sampleInterval`) while the offset and the map are found from the original's
/// keyframes; then the original is read from the matching time alongside the rest of the leak.
public struct LeakAnalyzer {
    public var alignmentWindowSeconds = 120.0
    /// Leak frames compared with the original: at most one per this many seconds. By default a
    /// tenth of the shortest slot, within 0.1…0.5 s: a few frames per slot already carry the
    /// mark, more only repeat it (measured: 1 s gave the same identifications as 0.2 s).
    public var sampleInterval: Double
    /// The width of the thumbnails used for alignment.
    public var thumbnailWidth = 80
    /// The difference maps' width at most: the original's picture in the leak is resampled to it.
    public var mapWidth = 320
    /// Leak pictures kept while aligning are thinned so that their pixels (one byte each) stay
    /// about this many: a screen recording's frames are read large, to find the lecture in them.
    static let windowSamplePixels = 120 * 960 * 540
    /// A candidate picture that matches the original this well (mean correlation of
    /// thumbnails) ends the search: the whole picture, tried first, for a plain copy.
    static let goodMatch = 0.9

    public let originalDisplayWidth: Int
    public let originalDisplayHeight: Int
    public let schedules: [SlotSchedule]
    /// Per schedule, the visibility of its traced layers: a slot's frames count while one shows.
    public let visibility: [[Visibility]]
    /// A variant layer's patterns (drawn on the original's display) and periods (on its clock):
    /// its variants are read from the same frame pairs the maps are made of (docs/design/variant-marks.md §5).
    public var variants: (patterns: VariantPatterns, periods: VariantPeriods)?

    public init(originalDisplayWidth: Int, originalDisplayHeight: Int, schedules: [SlotSchedule], visibility: [[Visibility]]) {
        self.originalDisplayWidth = originalDisplayWidth
        self.originalDisplayHeight = originalDisplayHeight
        self.schedules = schedules
        self.visibility = visibility
        sampleInterval = min(max((schedules.map(\.durationSeconds).min() ?? 5) / 10, 0.1), 0.5)
    }

    /// Analyses `leak` (frames at least as large as the maps should be: the leak is searched for
    /// the original's picture, which is then resampled to at most `mapWidth` pixels across)
    /// against the original, given its keyframes (any size) and a way to read it from a time on
    /// (`openOriginal` returns frames from at or before that time, any size).
    ///
    /// `reopenLeak` reads the leak again from its start: a leak longer than the alignment window is
    /// then read to its end as small fingerprints first, to find its pieces (`LeakTimeline`), and
    /// again for the comparison. Without it, the pieces are looked for in the window only and the
    /// last one is taken to go on to the leak's end.
    public func analyse(leak: inout some LumaFrameSource, keyframes: inout some LumaFrameSource,
                        reopenLeak: (() throws -> any LumaFrameSource)? = nil,
                        openOriginal: (Double) throws -> any LumaFrameSource) throws -> LeakAnalysis {
        var window = try LeakWindow.read(&leak, seconds: alignmentWindowSeconds, sampleInterval: sampleInterval,
                                         thumbnailWidth: thumbnailWidth, maximumSamplePixels: Self.windowSamplePixels)
        let originalThumbnails = try readThumbnails(&keyframes)
        guard window.thumbnails.count >= 2, !window.samples.isEmpty else { throw LeakAnalysisError.leakTooShort }
        guard !originalThumbnails.isEmpty else { throw LeakAnalysisError.noOriginalKeyframes }

        let sampleSize = (width: window.samples[0].image.width, height: window.samples[0].image.height)
        let content = ContentArea.detect(in: spread(window.samples.map(\.image.image), count: 12))
        let thumbnailSize = window.thumbnails[0].image
        let toThumbnail = AxisAlignedMap(scaleX: Double(thumbnailSize.width) / Double(sampleSize.width),
                                         scaleY: Double(thumbnailSize.height) / Double(sampleSize.height), offsetX: 0, offsetY: 0)
        // Where the picture is: every candidate is aligned, the best match wins.
        // Found on small copies (made one at a time: the samples may be large), then scaled back.
        let small = spread(window.samples, count: PictureLocation.frameCount).map { thumbnail($0.image.image, width: PictureLocation.gridWidth) }
        let toSmall = AxisAlignedMap(scaleX: Double(small[0].width) / Double(sampleSize.width),
                                     scaleY: Double(small[0].height) / Double(sampleSize.height), offsetX: 0, offsetY: 0)
        let changes = PictureLocation.changes(in: small)
        let whole = PlaneRect(minX: 0, minY: 0, maxX: Double(sampleSize.width), maxY: Double(sampleSize.height))
        let candidates = PictureLocation.candidates(changes: changes, originalAspect: Double(originalDisplayWidth) / Double(originalDisplayHeight),
                                                    content: toSmall.apply(content))
            .map { toSmall.inverse.apply($0).intersection(content) }
            .map { $0.width > content.width - 1.5 / toSmall.scaleX && $0.height > content.height - 1.5 / toSmall.scaleY ? content : $0 }
        // Where the leak changes, at the thumbnails' size and the samples'.
        let thumbnailChanges = changes?.resized(width: thumbnailSize.width, height: thumbnailSize.height)
        let sampleChanges = changes?.resized(width: sampleSize.width, height: sampleSize.height)
        // The whole picture first (inside any bars, then with them, should a bar be the leaker's):
        // a copy that matches there well is no screen recording.
        var found: (region: PlaneRect, offset: Double, crops: CropFractions, correlation: Double)?
        let regions = [content] + (whole == content ? [] : [whole]) + candidates.filter { $0 != content && $0 != whole }
        for region in regions {
            let range = region == content || region == whole ? SpatialRegistration.searchRange : SpatialRegistration.wideSearchRange
            let attempt = try? coarseAlignment(window.thumbnails, originalThumbnails, toThumbnail.apply(region), searchRange: range,
                                               varying: thumbnailChanges)
            guard let coarse = attempt, coarse.correlation > found?.correlation ?? -1 else { continue }
            found = (region, coarse.offset, coarse.crops, coarse.correlation)
            if coarse.correlation >= Self.goodMatch { break }
        }
        guard let found else { throw LeakAnalysisError.notAligned }
        let region = found.region
        let timed = try timeline(around: found.offset, crops: found.crops, region: toThumbnail.apply(region), window: window,
                                 leak: &leak, readToEnd: reopenLeak != nil, keyframes: originalThumbnails, openOriginal: openOriginal)
        let timeline = timed.timeline
        // The rest of the leak, when finding the pieces read it to its end: again from its start
        // (the window's samples come first, and `nextSample` skips what they cover).
        var rest: (any LumaFrameSource)? = nil
        if timed.readLeakToEnd, let reopenLeak { rest = try reopenLeak() }

        // Read the original from the matching time, pairing each sampled leak frame with the
        // original frame shown nearest the instant its piece shows.
        var original = try openOriginal(max(0, timeline.originalTime(at: window.samples[0].time) - 1))
        var pairing = OriginalPairing()
        func pairedOriginal(at leakTime: Double) throws -> LumaImage? {
            let target = timeline.originalTime(at: leakTime)
            if pairing.needsReopening(for: target) {
                original = try openOriginal(max(0, target - 1))
                pairing = OriginalPairing()
            }
            return try pairing.frame(atOriginal: target, from: &original)
        }
        var pairs: [(time: Double, leak: CompactLuma, original: LumaImage)] = []
        func nextSample() throws -> TimedLuma? {
            guard var source = rest else { return try window.nextSample(from: &leak) }
            defer { rest = source }
            return try window.nextSample(from: &source)
        }
        // The first pairs, a second or more apart, refine the map at full size.
        var registrationPairs: [FramePair] = []
        while registrationPairs.count < 8, let sample = try nextSample() {
            guard let frame = try pairedOriginal(at: sample.time) else { break }
            pairs.append((sample.time, CompactLuma(sample.image), frame))
            if sample.time - (pairs.first?.time ?? 0) >= Double(registrationPairs.count) * 1.5 {
                registrationPairs.append(FramePair(leak: sample.image, original: frame))
            }
        }
        guard !pairs.isEmpty else { throw LeakAnalysisError.notAligned }
        let fine = SpatialRegistration.register(registrationPairs, leakContent: region, start: found.crops, varying: sampleChanges)
        let originalFrame = pairs[0].original
        let originalBounds = PlaneRect(minX: 0, minY: 0, maxX: Double(originalFrame.width), maxY: Double(originalFrame.height))
        // The original's picture in the leak, and the grid the maps are made on: that picture at
        // most `mapWidth` across, whatever the leak's size.
        let picture = fine.map.apply(originalBounds).intersection(content)
        guard picture.width >= 8, picture.height >= 8 else { throw LeakAnalysisError.notAligned }
        let frame = PlaneRect(minX: picture.minX.rounded(.down), minY: picture.minY.rounded(.down),
                              maxX: picture.maxX.rounded(.up), maxY: picture.maxY.rounded(.up))
        let mapWidth = min(self.mapWidth, Int(frame.width))
        let mapHeight = max(8, Int((Double(mapWidth) * frame.height / frame.width).rounded()))
        let sampleToMap = AxisAlignedMap(mapping: frame, onto: PlaneRect(minX: 0, minY: 0, maxX: Double(mapWidth), maxY: Double(mapHeight)))
        let originalToMap = fine.map.followed(by: sampleToMap)
        let frameToDisplay = AxisAlignedMap(mapping: originalBounds,
                                            onto: PlaneRect(minX: 0, minY: 0, maxX: Double(originalDisplayWidth), maxY: Double(originalDisplayHeight)))
        // How blurred the leak is, and what covers it, from the registration pairs on the map's grid.
        let calibration = DifferenceAccumulator.calibration(
            pairs: registrationPairs.map { FramePair(leak: $0.leak.resampled(from: frame, width: mapWidth, height: mapHeight), original: $0.original) },
            width: mapWidth, height: mapHeight, content: sampleToMap.apply(picture), originalToAnalysis: originalToMap)
        let accumulator = DifferenceAccumulator(width: mapWidth, height: mapHeight, content: sampleToMap.apply(picture),
                                                originalToAnalysis: originalToMap, blurPasses: calibration.blurPasses,
                                                covered: calibration.covered)
        let variantReader = variants.map {
            VariantReader(patterns: $0.patterns, periods: $0.periods, width: mapWidth, height: mapHeight, content: sampleToMap.apply(picture),
                          originalToAnalysis: originalToMap, displayToAnalysis: frameToDisplay.inverse.followed(by: originalToMap))
        }
        var first = Double.infinity, last = -Double.infinity
        func accumulate(time: Double, leak: LumaImage, original: LumaImage) {
            let originalTime = timeline.originalTime(at: time)
            (first, last) = (min(first, originalTime), max(last, originalTime))
            let leakMap = leak.resampled(from: frame, width: mapWidth, height: mapHeight)
            accumulator.add(leak: leakMap, original: original, to: slots(at: originalTime))
            variantReader?.add(leak: leakMap, original: original, originalTime: originalTime)
        }
        for pair in pairs { accumulate(time: pair.time, leak: pair.leak.image, original: pair.original) }
        pairs.removeAll()
        while let sample = try nextSample() {
            guard let frame = try pairedOriginal(at: sample.time) else { break }
            accumulate(time: sample.time, leak: sample.image, original: frame)
        }
        let maps = accumulator.maps()
        let visible = fine.map.inverse.apply(picture)
        let crops = CropFractions(left: visible.minX / originalBounds.width, right: 1 - visible.maxX / originalBounds.width,
                                  top: visible.minY / originalBounds.height, bottom: 1 - visible.maxY / originalBounds.height)
        let inLeak = PlaneRect(minX: picture.minX / Double(sampleSize.width), minY: picture.minY / Double(sampleSize.height),
                               maxX: picture.maxX / Double(sampleSize.width), maxY: picture.maxY / Double(sampleSize.height))
        return LeakAnalysis(timeline: timeline, crops: crops, pictureInLeak: inLeak,
                            displayToMap: frameToDisplay.inverse.followed(by: originalToMap),
                            content: sampleToMap.apply(picture), correlation: fine.correlation, originalSpan: first...max(first, last), maps: maps,
                            framesPerSlot: Dictionary(uniqueKeysWithValues: maps.slots.map { ($0, accumulator.frameCount(of: $0)) }),
                            variantReadings: variantReader?.readings())
    }

    /// The slots whose steady part holds original time `seconds` and whose traced layers show then.
    func slots(at seconds: Double) -> [SlotKey] {
        let time = PresentationTime(seconds: seconds)
        return schedules.indices.compactMap { index in
            guard let slot = schedules[index].slot(at: seconds),
                  visibility[index].contains(where: { $0.opacityFactor(at: time) >= 0.5 }) else { return nil }
            return SlotKey(schedule: index, slot: slot)
        }
    }

    private func readThumbnails(_ source: inout some LumaFrameSource) throws -> [TimedLuma] {
        var thumbnails: [TimedLuma] = []
        while let frame = try source.next() {
            thumbnails.append(TimedLuma(time: frame.time, image: thumbnail(frame.image, width: thumbnailWidth)))
        }
        return thumbnails.sorted { $0.time < $1.time }
    }
}
