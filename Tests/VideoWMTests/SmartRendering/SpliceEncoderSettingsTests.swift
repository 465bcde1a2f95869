import Testing
@testable import VideoWM

@Test func h264SpansMatchTheInputsProfileLevelDelayAndRate() {
    let input = SpliceEncoderSettings.Input(codec: .h264, profileName: "High", level: 31, reorderDelay: 2, gopFrames: 60, matchedBitRate: 3_062_848)
    let settings = SpliceEncoderSettings(input: input, crf: nil, bitRate: nil, preset: nil, spsID: 1)
    #expect(settings.encoderName == "libx264")
    #expect(settings.options["profile"] == "high")
    #expect(settings.options["x264-params"] == "stitchable=1:sps-id=1:keyint=60:min-keyint=25:bframes=3:b-pyramid=normal:level=3.1")
    #expect(settings.options["forced-idr"] == "1")
    #expect(settings.bitRate == 3_062_848 && settings.maxRate == 4_594_272 && settings.bufferSize == 6_125_696)
}

@Test func aShallowerInputGetsShallowerBFrames() {
    var input = SpliceEncoderSettings.Input(codec: .h264, profileName: "Main", level: 40, reorderDelay: 1, gopFrames: 250, matchedBitRate: 1_000_000)
    #expect(SpliceEncoderSettings(input: input, crf: nil, bitRate: nil, preset: nil).options["x264-params"]!.contains("bframes=3:b-pyramid=none"))
    input.reorderDelay = 0
    #expect(SpliceEncoderSettings(input: input, crf: nil, bitRate: nil, preset: nil).options["x264-params"]!.contains("bframes=0"))
}

@Test func theUsersRateWins() {
    let input = SpliceEncoderSettings.Input(codec: .hevc, profileName: "Main", level: 93, reorderDelay: 2, gopFrames: 60, matchedBitRate: 2_000_000)
    let crf = SpliceEncoderSettings(input: input, crf: 20, bitRate: nil, preset: "fast")
    #expect(crf.options["crf"] == "20" && crf.bitRate == nil && crf.options["preset"] == "fast")
    #expect(crf.options["x265-params"] == "log-level=error:open-gop=0:keyint=60:min-keyint=25:bframes=3:b-pyramid=1:level-idc=31")
    let rate = SpliceEncoderSettings(input: input, crf: nil, bitRate: 5_000_000, preset: nil)
    #expect(rate.bitRate == 5_000_000 && rate.options["crf"] == nil)
}

/// Issue 44: twice a hard span's rate can pass the level the input declares; the span's decoder
/// buffer keeps to that level's limits (H.264 High: Table A-1 × 1.25), as x264 expects of a stream
/// that declares it.
@Test func aSpansDecoderBufferKeepsToTheInputsLevel() {
    let hard = SpliceEncoderSettings.Input(codec: .h264, profileName: "High", level: 30, reorderDelay: 2, gopFrames: 60, matchedBitRate: 9_000_000)
    let capped = SpliceEncoderSettings(input: hard, crf: nil, bitRate: nil, preset: nil, matchedCRF: 12, spanSeconds: 4)
    #expect(capped.maxRate == 12_500_000 && capped.bufferSize == 12_500_000)
    var main = hard
    main.profileName = "Main"
    #expect(SpliceEncoderSettings(input: main, crf: nil, bitRate: nil, preset: nil, matchedCRF: 12, spanSeconds: 4).maxRate == 10_000_000)
    // A rate the level allows is left alone.
    var calm = hard
    calm.matchedBitRate = 1_000_000
    #expect(SpliceEncoderSettings(input: calm, crf: nil, bitRate: nil, preset: nil, matchedCRF: 12, spanSeconds: 4).maxRate
            == SpanQuality.cap(replacedBitRate: 1_000_000, seconds: 4).maxRate)
    // HEVC's level_idc is 30 × the level: 93 is 3.1 (Main tier: 10 Mbit/s).
    let hevc = SpliceEncoderSettings.Input(codec: .hevc, profileName: "Main", level: 93, reorderDelay: 2, gopFrames: 60, matchedBitRate: 9_000_000)
    #expect(SpliceEncoderSettings(input: hevc, crf: nil, bitRate: nil, preset: nil, matchedCRF: 12, spanSeconds: 4).maxRate == 10_000_000)
    #expect(SpliceEncoderSettings.levelLimits(of: hevc)?.name == "3.1")
}
