import Testing
import Animation

struct VisibilityTests {
    @Test func alwaysShowsEveryFrame() {
        for millisecond in stride(from: Int64(0), to: 100_000, by: 977) {
            #expect(Visibility.always.opacityFactor(at: milliseconds(millisecond)) == 1)
        }
        // Fades need edges: an unbounded window has none.
        #expect(Visibility(fadeMilliseconds: 1000).opacityFactor(at: .zero) == 1)
    }

    @Test func startAndEndWindowIsHalfOpen() {
        let visibility = Visibility(start: seconds(5), end: seconds(12))
        #expect(visibility.opacityFactor(at: seconds(5 * 90_000 - 1, per: 90_000)) == 0)
        #expect(visibility.opacityFactor(at: seconds(5)) == 1)
        #expect(visibility.opacityFactor(at: seconds(12 * 30_000 - 1, per: 30_000)) == 1)
        #expect(visibility.opacityFactor(at: seconds(12)) == 0)
        #expect(visibility.opacityFactor(at: seconds(100)) == 0)
        #expect(Visibility(end: seconds(1)).opacityFactor(at: .zero) == 1)
        #expect(Visibility(start: seconds(3), end: seconds(2)).opacityFactor(at: seconds(5, per: 2)) == 0)
    }

    @Test func intervalAndSkipAreExactAtTheirEdges() {
        // Shown 4 s, hidden 1 s, from t = 0.
        let visibility = Visibility(intervalMilliseconds: 4000, skipMilliseconds: 1000)
        for cycle in Int64(0)..<200 {
            let cycleStart = cycle * 5 * 90_000
            #expect(visibility.opacityFactor(at: seconds(cycleStart, per: 90_000)) == 1)
            #expect(visibility.opacityFactor(at: seconds(cycleStart + 4 * 90_000 - 1, per: 90_000)) == 1)
            #expect(visibility.opacityFactor(at: seconds(cycleStart + 4 * 90_000, per: 90_000)) == 0)
            #expect(visibility.opacityFactor(at: seconds(cycleStart + 5 * 90_000 - 1, per: 90_000)) == 0)
        }
        // Ten hours in: 36 000 s is a cycle start, 36 004 s a skip start.
        #expect(visibility.opacityFactor(at: seconds(36_000)) == 1)
        #expect(visibility.opacityFactor(at: seconds(36_004)) == 0)
        #expect(visibility.opacityFactor(at: seconds(36_004 * 30_000 - 1, per: 30_000)) == 1)
    }

    @Test func cyclesCountFromTheStart() {
        let visibility = Visibility(start: PresentationTime(seconds: 2.5), end: seconds(20),
                                    intervalMilliseconds: 3000, skipMilliseconds: 2000)
        #expect(visibility.opacityFactor(at: seconds(2)) == 0)
        #expect(visibility.opacityFactor(at: PresentationTime(seconds: 2.5)) == 1)
        #expect(visibility.opacityFactor(at: PresentationTime(seconds: 5.499999)) == 1)
        #expect(visibility.opacityFactor(at: PresentationTime(seconds: 5.5)) == 0)
        #expect(visibility.opacityFactor(at: PresentationTime(seconds: 7.5)) == 1)
        #expect(visibility.opacityFactor(at: PresentationTime(seconds: 17.5)) == 1)
        // The window's end cuts the cycle that started at 17.5 s.
        #expect(visibility.opacityFactor(at: seconds(20)) == 0)
    }

    @Test func nonPositiveSkipOrIntervalMeansNoCycle() {
        #expect(Visibility(intervalMilliseconds: 1000, skipMilliseconds: 0).opacityFactor(at: seconds(3, per: 2)) == 1)
        #expect(Visibility(intervalMilliseconds: 0, skipMilliseconds: 1000).opacityFactor(at: seconds(3, per: 2)) == 1)
        #expect(Visibility(intervalMilliseconds: -5, skipMilliseconds: -5).opacityFactor(at: seconds(3, per: 2)) == 1)
    }

    @Test func fadeRampsLinearlyAtTheWindowEdges() {
        let visibility = Visibility(start: seconds(10), end: seconds(20), fadeMilliseconds: 1000)
        #expect(visibility.opacityFactor(at: seconds(10)) == 0)
        #expect(visibility.opacityFactor(at: milliseconds(10_250)) == 0.25)
        #expect(visibility.opacityFactor(at: milliseconds(10_500)) == 0.5)
        #expect(visibility.opacityFactor(at: seconds(11)) == 1)
        #expect(visibility.opacityFactor(at: seconds(15)) == 1)
        #expect(visibility.opacityFactor(at: milliseconds(19_500)) == 0.5)
        #expect(visibility.opacityFactor(at: milliseconds(19_750)) == 0.25)
        #expect(visibility.opacityFactor(at: seconds(20)) == 0)
        #expect(Visibility(start: seconds(10), fadeMilliseconds: 1000).opacityFactor(at: seconds(19)) == 1)
    }

    @Test func fadeIsShortenedToHalfAShortAppearance() {
        let visibility = Visibility(start: seconds(10), end: seconds(11), fadeMilliseconds: 1000)
        #expect(visibility.opacityFactor(at: milliseconds(10_250)) == 0.5)
        #expect(visibility.opacityFactor(at: milliseconds(10_500)) == 1)
        #expect(visibility.opacityFactor(at: milliseconds(10_750)) == 0.5)
        var samples = SampleGenerator(seed: 4)
        for _ in 0..<300 {
            let opacity = visibility.opacityFactor(at: seconds(samples.next(below: 15 * 48_000), per: 48_000))
            #expect((0...1).contains(opacity))
        }
    }

    @Test func fadeAppliesToEveryInterval() {
        let visibility = Visibility(intervalMilliseconds: 4000, skipMilliseconds: 1000, fadeMilliseconds: 500)
        #expect(visibility.opacityFactor(at: .zero) == 0)
        #expect(visibility.opacityFactor(at: milliseconds(250)) == 0.5)
        #expect(visibility.opacityFactor(at: milliseconds(2000)) == 1)
        #expect(visibility.opacityFactor(at: milliseconds(3750)) == 0.5)
        #expect(visibility.opacityFactor(at: milliseconds(4000)) == 0)
        #expect(visibility.opacityFactor(at: milliseconds(5000)) == 0)
        #expect(visibility.opacityFactor(at: milliseconds(5125)) == 0.25)
        #expect(visibility.opacityFactor(at: milliseconds(36_000_000 + 5_125)) == 0.25)
    }

    @Test func visibilityCombinesWithMotionOnPresentationTime() {
        let timeline = LayerTimeline(xPercent: 0, yPercent: 80, motion: .pingPong(durationMilliseconds: 10_000),
                                     visibility: Visibility(start: seconds(15), end: seconds(40),
                                                            intervalMilliseconds: 5000, skipMilliseconds: 5000,
                                                            fadeMilliseconds: 1000))
        // Motion runs on presentation time, not on time since the start: at 15 s x is 50.
        #expect(timeline.state(at: seconds(15)) == LayerState(xPercent: 50, yPercent: 80, opacity: 0))
        #expect(timeline.state(at: milliseconds(15_500)) == LayerState(xPercent: 45, yPercent: 80, opacity: 0.5))
        #expect(timeline.state(at: seconds(17)) == LayerState(xPercent: 30, yPercent: 80, opacity: 1))
        #expect(!timeline.state(at: seconds(22)).isVisible)
        #expect(timeline.state(at: seconds(22)).xPercent == 20)
        #expect(timeline.state(at: seconds(26)).isVisible)
        #expect(!timeline.state(at: seconds(40)).isVisible)
    }

    @Test func basePositionIsClamped() {
        #expect(LayerTimeline(xPercent: 130, yPercent: -20).state(at: .zero) == LayerState(xPercent: 100, yPercent: 0, opacity: 1))
        #expect(LayerTimeline(xPercent: .nan, yPercent: .infinity).state(at: .zero) == LayerState(xPercent: 0, yPercent: 100, opacity: 1))
    }

    @Test func oddTimescalesStillEvaluate() {
        // Timescales with no small common multiple fall back to a nanosecond grid rather than overflow.
        let visibility = Visibility(start: seconds(1, per: 2_147_483_647), end: seconds(Int64.max / 2, per: 2_147_483_629),
                                    intervalMilliseconds: 1000, skipMilliseconds: 1000, fadeMilliseconds: 100)
        let timeline = LayerTimeline(xPercent: 0, yPercent: 0, motion: .pingPong(durationMilliseconds: 1000), visibility: visibility)
        let state = timeline.state(at: seconds(1_000_000_007, per: 999_999_937))
        #expect((0...1).contains(state.opacity) && (0...100).contains(state.xPercent))
        let far = timeline.state(at: seconds(Int64.max, per: 1))
        #expect((0...1).contains(far.opacity) && (0...100).contains(far.xPercent))
    }
}
