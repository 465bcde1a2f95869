import Testing
@testable import Animation

struct PresentationTimeTests {
    @Test func equalityAndHashingCompareTheRationalValue() {
        #expect(seconds(1, per: 2) == seconds(45_000, per: 90_000))
        #expect(seconds(1, per: 2).hashValue == seconds(45_000, per: 90_000).hashValue)
        #expect(seconds(0, per: 7) == .zero)
        #expect(Set([seconds(1001, per: 30_000), seconds(3003, per: 90_000)]).count == 1)
        #expect(seconds(1, per: 3) != seconds(333_333, per: 1_000_000))
    }

    @Test func orderingIsExact() {
        // 1/3 and 333 333 333/10^9 differ by far less than a Double can see at this magnitude.
        let third = seconds(1, per: 3)
        let almostAThird = seconds(333_333_333, per: 1_000_000_000)
        #expect(almostAThird < third)
        #expect(!(third < almostAThird))
        let big = seconds(Int64.max, per: Int64.max - 1)
        #expect(seconds(1, per: 1) < big)
    }

    @Test func negativeTimescaleIsNormalised() {
        let time = PresentationTime(value: 3, timescale: -4)
        #expect(time.timescale > 0)
        #expect(time == seconds(-3, per: 4))
        let extreme = PresentationTime(value: 2, timescale: Int64.min)
        #expect(extreme.timescale > 0)
        #expect(extreme.value == -1)
    }

    @Test func subtractionAndAdditionAreExact() {
        #expect(seconds(1, per: 3) - seconds(1, per: 6) == seconds(1, per: 6))
        #expect(seconds(1, per: 3) + seconds(1, per: 6) == seconds(1, per: 2))
        #expect(seconds(1, per: 24) - seconds(1001, per: 30_000) == seconds(1250 - 1001, per: 30_000))
        // Ten hours in: neighbouring NTSC frames are still exactly one frame apart.
        let late = seconds(1_080_000 * 1001, per: 30_000)
        let earlier = seconds(1_079_999 * 1001, per: 30_000)
        #expect(late - earlier == seconds(1001, per: 30_000))
        #expect((late - earlier).reduced == PresentationTime(value: 1001, timescale: 30_000))
    }

    @Test func secondsInitialiserUsesMicroseconds() {
        let time = PresentationTime(seconds: 0.1)
        #expect(time.value == 100_000)
        #expect(time.timescale == 1_000_000)
        #expect(PresentationTime(seconds: 12.5) == seconds(25, per: 2))
        #expect(PresentationTime(seconds: 1e-7) == .zero)
        #expect(PresentationTime(seconds: .nan) == .zero)
        #expect(PresentationTime(seconds: .infinity).value == .max)
        #expect(PresentationTime(milliseconds: 1500) == seconds(3, per: 2))
        #expect(seconds(3, per: 4).seconds == 0.75)
    }

    @Test func reducedDividesByTheGreatestCommonDivisor() {
        let reduced = seconds(3003, per: 90_000).reduced
        #expect(reduced.value == 1001)
        #expect(reduced.timescale == 30_000)
        #expect(PresentationTime.zero.reduced.timescale == 1)
    }
}
