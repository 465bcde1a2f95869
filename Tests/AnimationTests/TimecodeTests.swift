import Testing
@testable import Animation

/// SMPTE timecode labels, drop-frame included, checked against hand-worked values.
@Suite struct TimecodeTests {
    private func timecode(_ numerator: Int64, _ denominator: Int64 = 1, start: String? = nil) throws -> Timecode {
        try Timecode(rateNumerator: numerator, rateDenominator: denominator, start: start)
    }

    @Test func wholeRatesCountFramesWithinSeconds() throws {
        let tc = try timecode(25)
        #expect(tc.label(ofFrame: 0) == "00:00:00:00")
        #expect(tc.label(ofFrame: 24) == "00:00:00:24")
        #expect(tc.label(ofFrame: 25) == "00:00:01:00")
        #expect(tc.label(ofFrame: 25 * 3661 + 7) == "01:01:01:07")
        #expect(tc.string(at: PresentationTime(value: 1, timescale: 1)) == "00:00:01:00")
        #expect(try timecode(24000, 1001).label(ofFrame: 24) == "00:00:01:00")
        #expect(try !timecode(24000, 1001).isDropFrame)
    }

    @Test func ntscRatesUseDropFrame() throws {
        let tc = try timecode(30000, 1001)
        #expect(tc.isDropFrame && tc.nominalRate == 30)
        // The frame shown at 1.001 s is frame 30: one second of labels.
        #expect(tc.string(at: PresentationTime(value: 1001, timescale: 1000)) == "00:00:01;00")
        #expect(tc.label(ofFrame: 1799) == "00:00:59;29")
        // Minute 1 has no labels ;00 and ;01.
        #expect(tc.label(ofFrame: 1800) == "00:01:00;02")
        // Every tenth minute keeps them: frame 17982 is 00:10:00;00.
        #expect(tc.label(ofFrame: 17981) == "00:09:59;29")
        #expect(tc.label(ofFrame: 17982) == "00:10:00;00")
        // An hour of 29.97 fps video is 107892 frames and reads one hour exactly.
        #expect(tc.label(ofFrame: 107_892) == "01:00:00;00")
        let fast = try timecode(60000, 1001)
        #expect(fast.label(ofFrame: 3600) == "00:01:00;04")
        #expect(fast.label(ofFrame: 215_784) == "01:00:00;00")
    }

    @Test func timestampsRoundedToMillisecondsLandOnTheirFrame() throws {
        let tc = try timecode(30000, 1001)
        // Frame 31 is at 1.034367 s; Matroska stores 1.034 s.
        #expect(tc.string(at: PresentationTime(value: 1034, timescale: 1000)) == "00:00:01;01")
        #expect(tc.string(at: PresentationTime(value: 31 * 1001, timescale: 30000)) == "00:00:01;01")
    }

    @Test func startingTimecodeIsHonoured() throws {
        #expect(try timecode(25, start: "01:00:00:00").label(ofFrame: 26) == "01:00:01:01")
        let dropFrame = try timecode(30000, 1001, start: "00:59:59;29")
        #expect(dropFrame.label(ofFrame: 1) == "01:00:00;00")
        #expect(dropFrame.label(ofFrame: 2) == "01:00:00;01")
        // A source that counts 29.97 without dropping says so with ':'.
        let nonDrop = try timecode(30000, 1001, start: "10:00:00:00")
        #expect(!nonDrop.isDropFrame && nonDrop.label(ofFrame: 1800) == "10:01:00:00")
        // Wraps at 24 hours.
        #expect(try timecode(25, start: "23:59:59:24").label(ofFrame: 1) == "00:00:00:00")
    }

    @Test func badInputIsRefused() {
        #expect(throws: Timecode.ParseError.self) { try timecode(25, start: "01:00:00") }
        #expect(throws: Timecode.ParseError.self) { try timecode(25, start: "01:00:00:25") }
        #expect(throws: Timecode.ParseError.self) { try timecode(25, start: "1h") }
        // ;00 of minute 1 does not exist in drop-frame.
        #expect(throws: Timecode.ParseError.self) { try timecode(30000, 1001, start: "00:01:00;00") }
        #expect(throws: Timecode.ParseError.self) { try timecode(0, 1) }
        #expect(throws: Timecode.ParseError.self) { try timecode(30, 0) }
    }
}

@Suite struct SecondsTextTests {
    @Test func fixedDecimalsRoundedHalfUp() {
        #expect(PresentationTime(value: 1001, timescale: 1000).secondsText(decimals: 3) == "1.001")
        #expect(PresentationTime(value: 1001, timescale: 30000).secondsText(decimals: 3) == "0.033")
        #expect(PresentationTime(value: 1, timescale: 2000).secondsText(decimals: 3) == "0.001")
        #expect(PresentationTime(value: 3600, timescale: 1).secondsText(decimals: 2) == "3600.00")
        #expect(PresentationTime(value: 5, timescale: 2).secondsText(decimals: 0) == "3")
        #expect(PresentationTime.zero.secondsText(decimals: 3) == "0.000")
        #expect(PresentationTime(value: -1, timescale: 4).secondsText(decimals: 1) == "-0.2")
    }
}
