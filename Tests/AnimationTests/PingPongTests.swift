import Testing
import Animation

struct PingPongTests {
    @Test(arguments: [Int64(10_000), 3000, 100, 1001, 7777])
    func exactValuesAtQuarterPoints(durationMilliseconds: Int64) {
        let timeline = LayerTimeline(xPercent: 30, yPercent: 62, motion: .pingPong(durationMilliseconds: durationMilliseconds))
        let d = durationMilliseconds
        // Half a duration may be a fractional millisecond: express it in 1/2000 s.
        func at(halfDurations: Int64) -> LayerState {
            timeline.state(at: seconds(halfDurations * d, per: 2000))
        }
        #expect(at(halfDurations: 0).xPercent == 0)
        #expect(at(halfDurations: 1).xPercent == 50)
        #expect(at(halfDurations: 2).xPercent == 100)
        #expect(at(halfDurations: 3).xPercent == 50)
        #expect(at(halfDurations: 4).xPercent == 0)
        #expect(at(halfDurations: 5).xPercent == 50)
        #expect(at(halfDurations: 1).yPercent == 62)
        #expect(at(halfDurations: 1).opacity == 1)
    }

    @Test func tooShortDurationsAreTreatedAsTheMinimum() {
        for tooShort: Int64 in [-5, 0, 1, 99] {
            let timeline = LayerTimeline(xPercent: 0, yPercent: 0, motion: .pingPong(durationMilliseconds: tooShort))
            #expect(timeline.motion == .pingPong(durationMilliseconds: LayerTimeline.minimumDurationMilliseconds))
            #expect(timeline.state(at: milliseconds(50)).xPercent == 50)
            #expect(timeline.state(at: milliseconds(100)).xPercent == 100)
        }
    }

    @Test func positionsStayInBoundsContinuousAndPeriodic() {
        var samples = SampleGenerator(seed: 1)
        for durationMilliseconds: Int64 in [100, 250, 1000, 10_000, 33_333] {
            let timeline = LayerTimeline(xPercent: 200, yPercent: -3, motion: .pingPong(durationMilliseconds: durationMilliseconds))
            let durationSeconds = Double(durationMilliseconds) / 1000
            let twoDurations = seconds(2 * durationMilliseconds, per: 1000)
            for _ in 0..<400 {
                let timescale = commonTimescales[Int(samples.next(below: Int64(commonTimescales.count)))]
                let time = seconds(samples.next(below: 4 * 3600 * timescale), per: timescale)
                let step = seconds(1 + samples.next(below: timescale / 10 + 1), per: timescale)
                let here = timeline.state(at: time)
                let next = timeline.state(at: time + step)

                #expect((0...100).contains(here.xPercent))
                #expect(here.yPercent == 0)
                let allowed = 100 * step.seconds / durationSeconds + 1e-9
                #expect(abs(next.xPercent - here.xPercent) <= allowed, "at \(time), step \(step)")
                #expect(timeline.state(at: time + twoDurations) == here, "at \(time)")
            }
        }
    }

    @Test func noDriftTenHoursIn() {
        let timeline = LayerTimeline(xPercent: 0, yPercent: 50, motion: .pingPong(durationMilliseconds: 10_000))
        // Exactly 10 h is a multiple of 2d = 20 s.
        #expect(timeline.state(at: seconds(36_000 * 90_000, per: 90_000)).xPercent == 0)
        #expect(timeline.state(at: seconds(36_005 * 90_000, per: 90_000)).xPercent == 50)
        #expect(timeline.state(at: seconds(36_010 * 90_000, per: 90_000)).xPercent == 100)
        // NTSC frame 1 080 000 is at 36 036 s: 16 s into the 20 s period, on the way back.
        var clock = FrameClock(timeBaseNumerator: 1001, timeBaseDenominator: 30_000)
        _ = clock.time(ofTimestamp: 0, duration: 1)
        let frameTime = clock.time(ofTimestamp: 1_080_000, duration: 1)
        #expect(timeline.state(at: frameTime).xPercent == 40)
        // The frame after it: 1001/30000 s later, x has moved back by exactly that share.
        let nextFrame = clock.time(ofTimestamp: 1_080_001, duration: 1)
        let expected = 40 - 100 * (1001.0 / 30_000) / 10
        #expect(abs(timeline.state(at: nextFrame).xPercent - expected) < 1e-12)
    }

    @Test func negativeTimesCountAsZero() {
        let timeline = LayerTimeline(xPercent: 0, yPercent: 0, motion: .pingPong(durationMilliseconds: 1000))
        #expect(timeline.state(at: seconds(-3, per: 4)) == timeline.state(at: .zero))
    }
}
