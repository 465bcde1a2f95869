import Animation
import TestSupport

/// A deterministic source of sample times for property tests, so a failure reproduces.
struct SampleGenerator {
    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func next() -> UInt64 { random.next() }

    /// A value in `0..<bound`.
    mutating func next(below bound: Int64) -> Int64 {
        Int64(next() % UInt64(bound))
    }
}

/// Timescales of real streams: 24/30/60 fps, MPEG-TS, Matroska, NTSC, audio rates, microseconds.
let commonTimescales: [Int64] = [24, 30, 60, 90_000, 1000, 30_000, 48_000, 44_100, 1_000_000]

func seconds(_ value: Int64, per timescale: Int64 = 1) -> PresentationTime {
    PresentationTime(value: value, timescale: timescale)
}

func milliseconds(_ value: Int64) -> PresentationTime {
    PresentationTime(milliseconds: value)
}
