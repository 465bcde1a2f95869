import Testing
import Animation

struct RandomMotionTests {
    @Test func spotsMatchAnIndependentSplitMix64() {
        // Computed with Python: state = seed ^ (k * 0x9E3779B97F4A7C15 mod 2^64), two SplitMix64
        // outputs, (output >> 11) / 2^53 * 100.
        let spot = Motion.randomSpot(seed: 42, slot: 3)
        #expect(spot.xPercent == 39.559672506131626)
        #expect(spot.yPercent == 84.60790034669357)
        let origin = Motion.randomSpot(seed: 0, slot: 0)
        #expect(origin.xPercent == 88.33108082136427)
        #expect(origin.yPercent == 43.152799704851)
    }

    @Test func identicalAcrossEvaluationsAndTimelines() {
        let seed = RandomSeed.from(text: "student@example.com")
        let motion = Motion.random(durationMilliseconds: 3000, seed: seed, easeMilliseconds: 400)
        let first = LayerTimeline(xPercent: 10, yPercent: 10, motion: motion)
        let second = LayerTimeline(xPercent: 10, yPercent: 10, motion: motion)
        var samples = SampleGenerator(seed: 2)
        // Evaluate out of order, as a seek or a split encode would.
        for _ in 0..<500 {
            let time = seconds(samples.next(below: 36_000 * 90_000), per: 90_000)
            let state = first.state(at: time)
            #expect(state == first.state(at: time))
            #expect(state == second.state(at: time))
            #expect((0...100).contains(state.xPercent) && (0...100).contains(state.yPercent))
        }
        let spot = Motion.randomSpot(seed: 14_320_542_148_367_961_837, slot: 7)
        #expect(first.state(at: seconds(22)) == LayerState(xPercent: spot.xPercent, yPercent: spot.yPercent, opacity: 1))
        #expect(spot.xPercent == 48.00205628031766 && spot.yPercent == 26.637732774897128)
    }

    /// Time bases as (numerator, denominator): 24/30/60 fps, MPEG-TS, Matroska, NTSC frame-counting.
    static let timeBases: [(Int32, Int32)] = [(1, 24), (1, 30), (1, 60), (1, 90_000), (1, 1000), (1001, 30_000)]

    @Test func sameInstantSameStateWhateverTheFrameRate() {
        let timeline = LayerTimeline(xPercent: 0, yPercent: 0,
                                     motion: .random(durationMilliseconds: 7000, seed: 99, easeMilliseconds: 1500))
        // Instants j · 1001/6 s are frame times at every listed rate except 1/1000; instants
        // j · 1/2 s are frame times at all but 1001/30000.
        let instants = (0..<40).map { seconds(Int64($0) * 1001, per: 6) } + (0..<200).map { seconds(Int64($0), per: 2) }
        for instant in instants {
            let expected = timeline.state(at: instant)
            var checkedRates = 0
            for (numerator, denominator) in Self.timeBases {
                // pts = instant / (numerator / denominator), when that is a whole number.
                let ticks = Int64(denominator) * instant.value
                let perTick = Int64(numerator) * instant.timescale
                guard ticks % perTick == 0 else { continue }
                var clock = FrameClock(timeBaseNumerator: numerator, timeBaseDenominator: denominator)
                _ = clock.time(ofTimestamp: 0, duration: nil)
                let frameTime = clock.time(ofTimestamp: ticks / perTick, duration: nil)
                #expect(frameTime == instant)
                #expect(timeline.state(at: frameTime) == expected, "at \(instant) in \(numerator)/\(denominator)")
                checkedRates += 1
            }
            #expect(checkedRates >= 5)
        }
    }

    @Test func variableFrameRateLandsOnTheSameStates() {
        let timeline = LayerTimeline(xPercent: 0, yPercent: 0,
                                     motion: .random(durationMilliseconds: 2000, seed: 7, easeMilliseconds: 500))
        // A variable-rate stream in 1/90000 with irregular gaps; compare each frame with the
        // same instant reached through a 1 ms time base and through a direct PresentationTime.
        var samples = SampleGenerator(seed: 3)
        var clock = FrameClock(timeBaseNumerator: 1, timeBaseDenominator: 90_000)
        var pts: Int64 = 450_000
        _ = clock.time(ofTimestamp: pts, duration: nil)
        for _ in 0..<2000 {
            pts += 90 * (10 + samples.next(below: 90))  // 10 to 99 ms, on whole milliseconds
            let time = clock.time(ofTimestamp: pts, duration: nil)
            let millisecondsIn = (pts - 450_000) / 90
            #expect(timeline.state(at: time) == timeline.state(at: milliseconds(millisecondsIn)))
            let viaMatroska = FrameClock.time(ofTimestamp: millisecondsIn + 5, firstTimestamp: 5,
                                              timeBaseNumerator: 1, timeBaseDenominator: 1000)
            #expect(timeline.state(at: viaMatroska) == timeline.state(at: time))
        }
    }

    @Test func slotBoundariesAreExactWithoutEase() {
        let seed: UInt64 = 1234
        let durationMilliseconds: Int64 = 5000
        let timeline = LayerTimeline(xPercent: 50, yPercent: 50,
                                     motion: .random(durationMilliseconds: durationMilliseconds, seed: seed, easeMilliseconds: 0))
        for slot in Int64(1)...50 {
            let boundary = seconds(slot * 5 * 90_000, per: 90_000)
            let justBefore = seconds(slot * 5 * 90_000 - 1, per: 90_000)
            let previousSpot = Motion.randomSpot(seed: seed, slot: slot - 1)
            let spot = Motion.randomSpot(seed: seed, slot: slot)
            #expect(timeline.state(at: justBefore) == LayerState(xPercent: previousSpot.xPercent, yPercent: previousSpot.yPercent, opacity: 1))
            #expect(timeline.state(at: boundary) == LayerState(xPercent: spot.xPercent, yPercent: spot.yPercent, opacity: 1))
            // The same boundary seen through an NTSC-rate stream's microsecond neighbour.
            #expect(timeline.state(at: seconds(slot * 5_000_000 - 1, per: 1_000_000)).xPercent == previousSpot.xPercent)
        }
        // Slot 0 starts at the first frame, with no move into it.
        let first = Motion.randomSpot(seed: seed, slot: 0)
        #expect(timeline.state(at: .zero).xPercent == first.xPercent)
    }

    @Test func easingIsContinuousAndEndsOnTheSpot() {
        let seed: UInt64 = 555
        let easeMilliseconds: Int64 = 500
        let timeline = LayerTimeline(xPercent: 0, yPercent: 0,
                                     motion: .random(durationMilliseconds: 2000, seed: seed, easeMilliseconds: easeMilliseconds))
        // Smoothstep's slope peaks at 1.5 / ease, and a move covers at most 100 percent.
        let allowedPerMillisecond = 150.0 / Double(easeMilliseconds) + 1e-9
        var previous = timeline.state(at: .zero)
        for millisecond in Int64(1)...20_000 {
            let state = timeline.state(at: milliseconds(millisecond))
            #expect(abs(state.xPercent - previous.xPercent) <= allowedPerMillisecond, "at \(millisecond) ms")
            #expect(abs(state.yPercent - previous.yPercent) <= allowedPerMillisecond, "at \(millisecond) ms")
            #expect((0...100).contains(state.xPercent) && (0...100).contains(state.yPercent))
            previous = state
        }
        for slot in Int64(1)...9 {
            let from = Motion.randomSpot(seed: seed, slot: slot - 1)
            let to = Motion.randomSpot(seed: seed, slot: slot)
            let start = timeline.state(at: milliseconds(slot * 2000))
            let halfway = timeline.state(at: milliseconds(slot * 2000 + easeMilliseconds / 2))
            let arrived = timeline.state(at: milliseconds(slot * 2000 + easeMilliseconds))
            #expect(start.xPercent == from.xPercent && start.yPercent == from.yPercent)
            #expect(abs(halfway.xPercent - (from.xPercent + to.xPercent) / 2) < 1e-9)
            #expect(arrived.xPercent == to.xPercent && arrived.yPercent == to.yPercent)
        }
    }

    @Test func easeIsClampedToTheDuration() {
        let timeline = LayerTimeline(xPercent: 0, yPercent: 0,
                                     motion: .random(durationMilliseconds: 1000, seed: 8, easeMilliseconds: 60_000))
        #expect(timeline.motion == .random(durationMilliseconds: 1000, seed: 8, easeMilliseconds: 1000))
        // The whole slot is a move, and it still arrives exactly at the next boundary.
        let spot = Motion.randomSpot(seed: 8, slot: 2)
        #expect(timeline.state(at: milliseconds(3000)).xPercent == spot.xPercent)
        let negative = LayerTimeline(xPercent: 0, yPercent: 0,
                                     motion: .random(durationMilliseconds: 10, seed: 8, easeMilliseconds: -4))
        #expect(negative.motion == .random(durationMilliseconds: 100, seed: 8, easeMilliseconds: 0))
    }

    @Test func differentSeedsGiveDifferentSpots() {
        var distinct = Set<Double>()
        for seed: UInt64 in 0..<200 {
            distinct.insert(Motion.randomSpot(seed: seed, slot: 1).xPercent)
        }
        #expect(distinct.count == 200)
        // Spots spread over the frame rather than clustering.
        let xs = (Int64(0)..<1000).map { Motion.randomSpot(seed: 77, slot: $0).xPercent }
        #expect(xs.filter { $0 < 50 }.count > 400 && xs.filter { $0 < 50 }.count < 600)
    }
}
