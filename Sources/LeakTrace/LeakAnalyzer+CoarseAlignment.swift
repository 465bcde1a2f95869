/// Where in time a leak's opening lies, and how its picture is cropped, found from the
/// original's keyframes before the original is read (`LeakAnalyzer.analyse` runs it once per
/// candidate picture region).
extension LeakAnalyzer {
    /// The offset from the keyframes: the fingerprint search proposes a few, under each of the
    /// crops in `cropGuesses` (`proposals`); each proposal's picture is registered on its own
    /// pairs, its offset pinned by comparing warped keyframes with every leak frame within
    /// `refineWindow` seconds, and the proposal whose pictures then match best wins.
    ///
    /// Each proposal is registered alone: registered once on the best-scoring proposal, every
    /// other was judged through that one's map, and where the best-scoring proposal was wrong (a
    /// cropped excerpt whose slides look like another part's) the right one, seen through a wrong
    /// map, lost (measured: a 10 %-cropped excerpt from 511.7 s placed at 552 s, correlation 0.72).
    func coarseAlignment(_ leak: [TimedLuma], _ keyframes: [TimedLuma], _ content: PlaneRect,
                          searchRange: ClosedRange<Double>, varying: LumaImage?) throws
        -> (offset: Double, crops: CropFractions, correlation: Double) {
        func pairs(at offset: Double) -> [FramePair] {
            spread(keyframes.compactMap { key -> FramePair? in
                guard let frame = nearest(leak, to: key.time - offset, within: 0.1) else { return nil }
                return FramePair(leak: frame.image, original: key.image)
            }, count: 8)
        }
        var best: (offset: Double, crops: CropFractions, correlation: Double)?
        for candidate in proposals(leak, keyframes, content) {
            let candidatePairs = pairs(at: candidate.offset)
            guard !candidatePairs.isEmpty else { continue }
            let crops = SpatialRegistration.register(candidatePairs, leakContent: content, searchRange: searchRange, varying: varying).crops
            let map = SpatialRegistration.map(crops, original: keyframes[0].image, leakContent: content)
            let offset = TemporalAlignment.refine(offset: candidate.offset, leak: leak, keyframes: keyframes, map: map,
                                                  leakContent: content, window: Self.refineWindow) ?? candidate.offset
            let refinedPairs = pairs(at: offset)
            guard !refinedPairs.isEmpty else { continue }
            let registration = SpatialRegistration.register(refinedPairs, leakContent: content, start: crops, varying: varying)
            if registration.correlation > best?.correlation ?? -1 { best = (offset, registration.crops, registration.correlation) }
            if registration.correlation >= Self.sureMatch { break }
        }
        guard let best, best.correlation > 0.5 else { throw LeakAnalysisError.notAligned }
        return best
    }

    /// The offsets the keyframes' fingerprints propose, best first: the fingerprint search
    /// (`TemporalAlignment.candidates`) run with the keyframes seen through each crop of
    /// `cropGuesses`, the proposals merged by score (at most `proposalCount`, a second apart).
    /// The crop is not known yet, and a fingerprint only shrugs off a small one: under a 10 % crop
    /// per side the picture's edges move by a cell and a half of the 16-cell grid, and an excerpt
    /// whose slides look like another part's matched that part better than its own (measured:
    /// the right offset absent from the five proposals of a 10 %-cropped excerpt, and first when
    /// the keyframes were cropped alike).
    private func proposals(_ leak: [TimedLuma], _ keyframes: [TimedLuma], _ content: PlaneRect) -> [TemporalAlignment.Candidate] {
        let leakPrints = leak.map { TimedLuma(time: $0.time, image: TemporalAlignment.fingerprint(of: $0.image, region: content)) }
        var all: [TemporalAlignment.Candidate] = []
        for crop in Self.cropGuesses {
            let keyPrints = keyframes.map { key in
                let bounds = key.image.bounds
                return TimedLuma(time: key.time, image: TemporalAlignment.fingerprint(
                    of: key.image, region: bounds.insetBy(dx: crop * bounds.width, dy: crop * bounds.height)))
            }
            all += TemporalAlignment.candidates(leak: leakPrints, keyframes: keyPrints, count: Self.proposalCount)
        }
        var picked: [TemporalAlignment.Candidate] = []
        for candidate in all.sorted(by: { $0.score > $1.score }) where picked.allSatisfy({ abs($0.offset - candidate.offset) >= 1 }) {
            picked.append(candidate)
            if picked.count == Self.proposalCount { break }
        }
        return picked
    }

    /// The crops (a fraction of the picture per side) the keyframes are fingerprinted under while
    /// the leak's is unknown: none, and about half and all of what a leaker crops to lose an edge mark.
    static let cropGuesses = [0.0, 0.06, 0.12]
    /// How many proposed offsets are registered and compared.
    static let proposalCount = 6
    /// A proposal whose pictures match this well (mean correlation) ends the search: no other
    /// part of a lecture matches a frame that closely.
    static let sureMatch = 0.97

    /// How far from a proposed offset the refinement looks, seconds: keyframe fingerprints of a
    /// mostly still lecture can be a second or two off.
    static let refineWindow = 4.0
}
