import Testing
import Animation

/// Animated logos' frame choice: a pure function of presentation time, looping from zero,
/// exact for any frame durations.
struct FrameLoopTests {
    /// The case: three frames of 0.5 s. Frame 2 (index 1) at 0.6 s, frame 1 again at 1.6 s.
    @Test func threeHalfSecondFrames() {
        let loop = FrameLoop(durations: Array(repeating: PresentationTime(value: 50, timescale: 100), count: 3))
        #expect(loop.frameIndex(at: seconds(0, per: 1)) == 0)
        #expect(loop.frameIndex(at: milliseconds(499)) == 0)
        #expect(loop.frameIndex(at: milliseconds(500)) == 1)
        #expect(loop.frameIndex(at: milliseconds(600)) == 1)
        #expect(loop.frameIndex(at: milliseconds(1000)) == 2)
        #expect(loop.frameIndex(at: milliseconds(1499)) == 2)
        #expect(loop.frameIndex(at: milliseconds(1500)) == 0)
        #expect(loop.frameIndex(at: milliseconds(1600)) == 0)
        #expect(loop.frameIndex(at: milliseconds(2100)) == 1)
        #expect(loop.frameIndex(at: milliseconds(-700)) == 0)
        #expect(loop.loopDuration == milliseconds(1500))
        // Video frame times in any time base: 0.6 s at 1/90000.
        #expect(loop.frameIndex(at: PresentationTime(value: 54_000, timescale: 90_000)) == 1)
    }

    /// 1/30 s frames (an APNG's delay fraction) do not drift: ten hours in, a whole number of
    /// loops lands exactly on frame 0 and the next 1/30 s on frame 1.
    @Test func fractionalDurationsNeverDrift() {
        let loop = FrameLoop(durations: Array(repeating: PresentationTime(value: 1, timescale: 30), count: 30))
        let tenHours = seconds(36_000, per: 1)
        #expect(loop.frameIndex(at: tenHours) == 0)
        #expect(loop.frameIndex(at: tenHours + PresentationTime(value: 1, timescale: 30)) == 1)
        #expect(loop.frameIndex(at: tenHours - PresentationTime(value: 1, timescale: 1_000_000)) == 29)
    }

    /// Durations with no small common grid (primes near 65535, APNG's largest denominator)
    /// fall back to microseconds; each boundary is rounded once, so the loop still adds up.
    @Test func unrelatedTimescalesFallBackToMicroseconds() {
        let loop = FrameLoop(durations: [PresentationTime(value: 1, timescale: 65_521), PresentationTime(value: 1, timescale: 65_519),
                                         PresentationTime(value: 1, timescale: 65_497), PresentationTime(value: 1, timescale: 65_479)])
        #expect(loop.frameIndex(at: PresentationTime(value: 1, timescale: 1_000_000)) == 0)
        #expect(loop.frameIndex(at: PresentationTime(value: 20, timescale: 1_000_000)) == 1)
        #expect(loop.frameIndex(at: PresentationTime(value: 50, timescale: 1_000_000)) == 3)
        let total = loop.loopDuration
        #expect(loop.frameIndex(at: total + PresentationTime(value: 1, timescale: 1_000_000)) == 0)
    }

    /// Zero-length frames are never shown; a loop of only zero-length frames shows its first.
    @Test func zeroLengthFrames() {
        let loop = FrameLoop(durations: [milliseconds(100), .zero, milliseconds(100)])
        #expect((0..<40).map { loop.frameIndex(at: milliseconds(Int64($0) * 10)) }.allSatisfy { $0 != 1 })
        #expect(loop.frameIndex(at: milliseconds(150)) == 2)
        let frozen = FrameLoop(durations: [.zero, .zero])
        #expect(frozen.frameIndex(at: milliseconds(1234)) == 0)
        #expect(FrameLoop.still.frameIndex(at: milliseconds(99_999)) == 0)
        #expect(FrameLoop(durations: [milliseconds(-5), milliseconds(10)]).frameIndex(at: milliseconds(3)) == 1)
    }

    /// Property: the index is always in range and a pure function of the time.
    @Test func indicesStayInRange() {
        let loop = FrameLoop(durations: [milliseconds(70), milliseconds(30), milliseconds(1000), PresentationTime(value: 1, timescale: 7)])
        for step in 0..<2000 {
            let t = PresentationTime(value: Int64(step) * 997, timescale: 30_000)
            let index = loop.frameIndex(at: t)
            #expect((0..<4).contains(index))
            #expect(index == loop.frameIndex(at: PresentationTime(value: Int64(step) * 997 * 3, timescale: 90_000)))
        }
    }
}
