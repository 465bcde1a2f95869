import Testing
import Animation

struct FrameClockTests {
    @Test func firstFrameDefinesZero() {
        var clock = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 90_000)
        #expect(clock.time(ofTimestamp: 126_000, duration: 3000) == .zero)
        #expect(clock.firstTimestamp == 126_000)
        #expect(clock.time(ofTimestamp: 129_000, duration: 3000) == seconds(1, per: 30))
        #expect(clock.time(ofTimestamp: 216_000, duration: 3000) == seconds(1))
    }

    @Test func timesBeforeTheFirstFrameClampToZero() {
        var clock = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 1000)
        #expect(clock.time(ofTimestamp: 500, duration: 40) == .zero)
        #expect(clock.time(ofTimestamp: 460, duration: 40) == .zero)
        #expect(clock.time(ofTimestamp: -80, duration: 40) == .zero)
        #expect(clock.time(ofTimestamp: 540, duration: 40) == milliseconds(40))
    }

    @Test func noDriftAfterTenHoursOfNTSCFrames() {
        // 30000/1001 fps in the usual 1/30000 time base: pts step 1001. Every frame is fed,
        // so any accumulation in the clock would show by frame 1 080 000.
        var clock = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 30_000)
        var last = PresentationTime.zero
        for frameIndex in Int64(0)...1_080_000 {
            last = clock.time(ofTimestamp: frameIndex * 1001, duration: 1001)
        }
        #expect(last == PresentationTime(value: 1_080_000 * 1001, timescale: 30_000))
        #expect(last == seconds(36_036))
        #expect(last.seconds == 36_036)

        // The same frame in a 1001/30000 time base (pts counts frames) and in MPEG-TS's 1/90000.
        var frameCounting = FrameClock(timeBaseNumerator: 1001, timeBaseDenominator: 30_000)
        _ = frameCounting.time(ofTimestamp: 0, duration: 1)
        #expect(frameCounting.time(ofTimestamp: 1_080_000, duration: 1) == last)
        var transportStream = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 90_000)
        _ = transportStream.time(ofTimestamp: 0, duration: 3003)
        #expect(transportStream.time(ofTimestamp: 1_080_000 * 3003, duration: 3003) == last)
    }

    @Test func missingTimestampsContinueFromThePreviousDuration() {
        var clock = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 90_000)
        #expect(clock.time(ofTimestamp: 0, duration: 3000) == .zero)
        #expect(clock.time(ofTimestamp: nil, duration: 1500) == seconds(3000, per: 90_000))
        #expect(clock.time(ofTimestamp: nil, duration: nil) == seconds(4500, per: 90_000))
        // The previous duration is unknown: reuse the last positive step (1500).
        #expect(clock.time(ofTimestamp: nil, duration: 0) == seconds(6000, per: 90_000))
        // A real timestamp takes over again.
        #expect(clock.time(ofTimestamp: 90_000, duration: nil) == seconds(1))
    }

    @Test func missingTimestampsWithoutDurationsUseTheTimestampGap() {
        var clock = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 1000)
        #expect(clock.time(ofTimestamp: 1000, duration: nil) == .zero)
        #expect(clock.time(ofTimestamp: 1040, duration: nil) == milliseconds(40))
        #expect(clock.time(ofTimestamp: nil, duration: nil) == milliseconds(80))
        #expect(clock.time(ofTimestamp: nil, duration: nil) == milliseconds(120))
    }

    @Test func missingTimestampsWithNothingToGoOnStayPut() {
        var clock = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 1000)
        #expect(clock.time(ofTimestamp: nil, duration: nil) == .zero)
        #expect(clock.time(ofTimestamp: nil, duration: nil) == .zero)
        #expect(clock.time(ofTimestamp: nil, duration: 40) == .zero)
        #expect(clock.time(ofTimestamp: nil, duration: nil) == milliseconds(40))
    }

    @Test func brokenTimeBasesDoNotTrap() {
        var zero = FrameClock(timeBaseNumerator: 0, timeBaseDenominator: 0)
        _ = zero.time(ofTimestamp: 0, duration: nil)
        #expect(zero.time(ofTimestamp: 1_000_000, duration: nil) == seconds(1))
        var negative = FrameClock(timeBaseNumerator: -1, timeBaseDenominator: -1000)
        _ = negative.time(ofTimestamp: 0, duration: nil)
        #expect(negative.time(ofTimestamp: 500, duration: nil) == milliseconds(500))
        var extreme = FrameClock(timeBaseNumerator: Int32.max, timeBaseDenominator: 1)
        _ = extreme.time(ofTimestamp: Int64.min, duration: nil)
        #expect(extreme.time(ofTimestamp: Int64.max, duration: nil) > seconds(Int64.max / 2))
        #expect(extreme.time(ofTimestamp: nil, duration: Int64.max) > .zero)
        #expect(extreme.time(ofTimestamp: nil, duration: nil) > .zero)
    }

    @Test func pureFormsAgreeWithTheClockAndInvertIt() {
        let time = FrameClock.time(ofTimestamp: 3003 * 10 + 6006, firstTimestamp: 6006,
                                   timeBaseNumerator: 1, timeBaseDenominator: 90_000)
        #expect(time == seconds(1001, per: 3000))
        #expect(FrameClock.timestamp(at: time, firstTimestamp: 6006,
                                     timeBaseNumerator: 1, timeBaseDenominator: 90_000) == 3003 * 10 + 6006)
        // Between two frames, the earlier one is what a viewer sees.
        #expect(FrameClock.timestamp(at: seconds(1, per: 2), firstTimestamp: 0,
                                     timeBaseNumerator: 1001, timeBaseDenominator: 30_000) == 14)
    }
}
