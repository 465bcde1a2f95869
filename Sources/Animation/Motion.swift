/// How a layer moves over presentation time.
///
/// Every case is a pure function of the frame's presentation time, never of wall clock or of
/// frame count, so the same frame gets the same mark on every run, after seeking and in a
/// video later split into separately encoded pieces.
public enum Motion: Sendable, Hashable {
    /// The layer stays at its base x/y.
    case still
    /// x travels 0 → 100 during `durationMilliseconds`, then 100 → 0 during the next, and so
    /// on; y stays at the base y.
    case pingPong(durationMilliseconds: Int64)
    /// Every `durationMilliseconds` the layer moves to a new (x, y) drawn from `seed` and the
    /// slot number; the move takes `easeMilliseconds` (0: a jump).
    case random(durationMilliseconds: Int64, seed: UInt64, easeMilliseconds: Int64)

    /// This motion with durations clamped to what a timeline can play: at least
    /// `LayerTimeline.minimumDurationMilliseconds`, ease within `0...duration`.
    ///
    /// The config layer clamps and warns; this keeps the timeline safe whatever it is given.
    public var clamped: Motion {
        func clampDuration(_ milliseconds: Int64) -> Int64 {
            min(max(milliseconds, LayerTimeline.minimumDurationMilliseconds), Int64(TickGrid.maximumMilliseconds))
        }
        switch self {
        case .still:
            return .still
        case .pingPong(let duration):
            return .pingPong(durationMilliseconds: clampDuration(duration))
        case .random(let duration, let seed, let ease):
            let clampedDuration = clampDuration(duration)
            return .random(durationMilliseconds: clampedDuration, seed: seed,
                           easeMilliseconds: min(max(ease, 0), clampedDuration))
        }
    }

    /// The spot of `Motion.random` for slot `slot`: x and y in `0..<100`.
    ///
    /// A pure function of (seed, slot), so any frame can be evaluated on its own: SplitMix64
    /// started at `seed ^ (slot × 0x9E3779B97F4A7C15)`, its first output gives x and its
    /// second y (top 53 bits scaled to percent).
    public static func randomSpot(seed: UInt64, slot: Int64) -> (xPercent: Double, yPercent: Double) {
        var state = seed ^ (UInt64(bitPattern: slot) &* 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let x = next(), y = next()
        return (Double(x >> 11) / 9_007_199_254_740_992.0 * 100, Double(y >> 11) / 9_007_199_254_740_992.0 * 100)
    }

    /// The position at `ticks` on `grid` (already clamped to non-negative), given the base position.
    func position(atTicks ticks: Int128, on grid: TickGrid,
                  baseXPercent: Double, baseYPercent: Double) -> (xPercent: Double, yPercent: Double) {
        // Clamping again is cheap and keeps a zero duration from ever reaching a division.
        switch clamped {
        case .still:
            return (baseXPercent, baseYPercent)

        case .pingPong(let durationMilliseconds):
            let duration = grid.ticks(milliseconds: durationMilliseconds)
            let phase = ticks % (2 * duration)
            let x = phase < duration ? ratio(100 * phase, duration) : ratio(100 * (2 * duration - phase), duration)
            return (clampPercent(x), baseYPercent)

        case .random(let durationMilliseconds, let seed, let easeMilliseconds):
            let duration = grid.ticks(milliseconds: durationMilliseconds)
            let ease = grid.ticks(milliseconds: easeMilliseconds)
            let slot = ticks / duration
            let intoSlot = ticks - slot * duration
            // Slots are bounded by TickGrid's clamps (under 10^13 for a 100 ms duration).
            let spot = Self.randomSpot(seed: seed, slot: Int64(slot))
            guard slot >= 1, ease > 0, intoSlot < ease else {
                return (clampPercent(spot.xPercent), clampPercent(spot.yPercent))
            }
            let from = Self.randomSpot(seed: seed, slot: Int64(slot - 1))
            let progress = ratio(intoSlot, ease)
            let smooth = progress * progress * (3 - 2 * progress)
            return (clampPercent(from.xPercent + (spot.xPercent - from.xPercent) * smooth),
                    clampPercent(from.yPercent + (spot.yPercent - from.yPercent) * smooth))
        }
    }
}
