/// A picture and the time it is shown at, in seconds from its stream's first frame.
public struct TimedLuma: Sendable {
    public var time: Double
    public var image: LumaImage

    public init(time: Double, image: LumaImage) {
        self.time = time
        self.image = image
    }
}

/// Finds where in the original a leak starts: the offset with original time = leak time + offset.
///
/// The leak is assumed to play at normal speed (any frame rate). The original is known only at
/// a sparse set of frames (its keyframes, which decode on their own and cost little), the leak
/// at every frame, so every candidate offset can be tested: each keyframe is compared with the
/// leak frame shown at `keyframe time − offset`. Pictures are compared as tiny fingerprints with
/// the stream's average picture taken out, so the static parts (a slide's layout, a logo) say
/// nothing and what changes carries the match; tiny pictures also shrug off the crop and scale,
/// still unknown at this point. `refine` then pins the offset to a fraction of a frame once the
/// spatial map is known, and `LeakTimeline` finds the pieces of a leak cut together from parts.
public enum TemporalAlignment {
    /// The fingerprint grid: coarse enough that a 10% crop moves content by under a cell.
    public static let fingerprintWidth = 16
    public static let fingerprintHeight = 9

    /// A fingerprint of `region` of `image`.
    public static func fingerprint(of image: LumaImage, region: PlaneRect) -> LumaImage {
        image.resampled(from: region, width: fingerprintWidth, height: fingerprintHeight)
    }

    public struct Candidate: Sendable, Equatable {
        public var offset: Double
        /// The summed correlation of the keyframes over the square root of their number.
        public var score: Double
        /// How many keyframes fell inside the leak at this offset.
        public var keyframes: Int
    }

    /// The best offsets, best first, at least `separation` seconds apart.
    ///
    /// `leak` and `keyframes` hold fingerprints (see `fingerprint(of:region:)`, the leak's of its
    /// content area), each sorted by time. Offsets are tried on the leak's own frame spacing.
    public static func candidates(leak: [TimedLuma], keyframes: [TimedLuma], count: Int = 3,
                                  separation: Double = 1.0) -> [Candidate] {
        guard leak.count >= 2, let firstKey = keyframes.first, let lastKey = keyframes.last,
              let firstLeak = leak.first, let lastLeak = leak.last else { return [] }
        let leakPrints = withoutAverage(leak.map(\.image)).map(centred)
        let keyPrints = withoutAverage(keyframes.map(\.image)).map(centred)
        // correlations[k][i]: keyframe k against leak frame i.
        let correlations = keyPrints.map { key in leakPrints.map { normalisedCorrelation(key, $0) } }

        let leakTimes = leak.map(\.time)
        let step = max(medianStep(leakTimes), 0.001)
        let halfStep = step / 2
        let lowest = firstKey.time - lastLeak.time
        let highest = lastKey.time - firstLeak.time
        let offsetCount = Int(((highest - lowest) / step).rounded(.up)) + 1
        var sums = [Double](repeating: 0, count: offsetCount)
        var counts = [Int](repeating: 0, count: offsetCount)
        for (k, keyframe) in keyframes.enumerated() {
            // As the offset grows the leak time falls, so the nearest leak frame walks backwards.
            var i = leakTimes.count - 1
            for o in 0..<offsetCount {
                let leakTime = keyframe.time - (lowest + Double(o) * step)
                while i > 0, abs(leakTimes[i - 1] - leakTime) <= abs(leakTimes[i] - leakTime) { i -= 1 }
                if abs(leakTimes[i] - leakTime) <= halfStep + 1e-9 {
                    sums[o] += correlations[k][i]
                    counts[o] += 1
                }
            }
        }
        let needed = min(3, counts.max() ?? 0)
        guard needed > 0 else { return [] }
        var scored: [Candidate] = []
        for o in 0..<offsetCount where counts[o] >= needed {
            scored.append(Candidate(offset: lowest + Double(o) * step, score: sums[o] / Double(counts[o]).squareRoot(), keyframes: counts[o]))
        }
        scored.sort { $0.score > $1.score }
        var picked: [Candidate] = []
        for candidate in scored where picked.allSatisfy({ abs($0.offset - candidate.offset) >= separation }) {
            picked.append(candidate)
            if picked.count == count { break }
        }
        return picked
    }

    /// The offset pinned down with the spatial map known: each keyframe, warped into the leak's
    /// geometry, is compared with the leak frames around where `offset` puts it; the peak of
    /// the correlation, interpolated between frames, gives one estimate per keyframe whose
    /// picture changes there. The median of those; nil when no keyframe shows motion.
    ///
    /// `map` takes keyframe pixels to leak pixels; `leakContent` is in leak pixels.
    public static func refine(offset: Double, leak: [TimedLuma], keyframes: [TimedLuma], map: AxisAlignedMap,
                              leakContent: PlaneRect, window: Double = 0.6) -> Double? {
        guard let first = leak.first, let last = leak.last else { return nil }
        let gridWidth = min(Int(leakContent.width), 96)
        let gridHeight = max(4, Int((Double(gridWidth) * leakContent.height / leakContent.width).rounded()))
        let region = map.inverse.apply(leakContent)
        var estimates: [Double] = []
        for keyframe in keyframes {
            let centre = keyframe.time - offset
            guard centre >= first.time, centre <= last.time else { continue }
            let key = centred(keyframe.image.resampled(from: region, width: gridWidth, height: gridHeight).pixels)
            let nearby = leak.filter { abs($0.time - centre) <= window }
            guard nearby.count >= 3 else { continue }
            let scores = nearby.map {
                normalisedCorrelation(key, centred($0.image.resampled(from: leakContent, width: gridWidth, height: gridHeight).pixels))
            }
            // A keyframe of a still scene matches every frame about equally: no timing in it.
            guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }), let lowest = scores.min(),
                  best > 0, best < scores.count - 1, scores[best] - lowest > 0.02 else { continue }
            let (a, b, c) = (scores[best - 1], scores[best], scores[best + 1])
            let curvature = a - 2 * b + c
            let shift = curvature < 0 ? min(max(0.5 * (a - c) / curvature, -0.5), 0.5) : 0
            let t0 = nearby[best].time
            let t1 = shift >= 0 ? nearby[best + 1].time : nearby[best - 1].time
            estimates.append(keyframe.time - (t0 + abs(shift) * (t1 - t0)))
        }
        guard !estimates.isEmpty else { return nil }
        estimates.sort()
        return estimates[estimates.count / 2]
    }

    /// A fingerprint scaled to unit length (zero stays zero).
    static func unit(_ values: [Float]) -> [Float] {
        var norm: Float = 0
        for value in values { norm += value * value }
        guard norm > 1e-6 else { return values.map { _ in 0 } }
        let scale = 1 / norm.squareRoot()
        return values.map { $0 * scale }
    }

    /// The pictures with their mean picture subtracted: what changes over time.
    static func withoutAverage(_ images: [LumaImage]) -> [[Float]] {
        guard let first = images.first else { return [] }
        var average = [Float](repeating: 0, count: first.pixels.count)
        for image in images {
            for i in average.indices { average[i] += image.pixels[i] }
        }
        let scale = 1 / Float(images.count)
        return images.map { image in image.pixels.indices.map { image.pixels[$0] - average[$0] * scale } }
    }

    static func medianStep(_ times: [Double]) -> Double {
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }.sorted()
        return steps.isEmpty ? 0.04 : steps[steps.count / 2]
    }
}
