import Animation
import Testing
@testable import VideoWM

@Suite("--gop")
struct KeyframeIntervalTests {
    @Test("frames or seconds (to the millisecond); nonsense refused")
    func parsing() {
        #expect(KeyframeInterval("60") == .frames(60))
        #expect(KeyframeInterval("2s") == .duration(PresentationTime(milliseconds: 2000)))
        #expect(KeyframeInterval("2.5s") == .duration(PresentationTime(milliseconds: 2500)))
        #expect(KeyframeInterval("0.04s") == .duration(PresentationTime(milliseconds: 40)))
        for bad in ["0", "0s", "0.0s", "-1", "2.5555s", "s", ".5s", "2.s", "abc", "", "1e3", "٣", "2 s", "9999999"] {
            #expect(KeyframeInterval(bad) == nil, "\(bad)")
        }
    }

    /// Presentation times (ms) of a variable-rate stream: 3 s at 30 fps, 3 s at 24 fps, 3 s at 25 fps.
    static let variableRate: [PresentationTime] = {
        var times: [PresentationTime] = []
        for (start, rate) in [(0, 30), (3, 24), (6, 25)] {
            for frame in 0..<(3 * rate) {
                times.append(PresentationTime(value: Int64(start * rate + frame), timescale: Int64(rate)))
            }
        }
        return times
    }()

    @Test("by time: keyframes exactly at 0, 2, 4, 6, 8 s whatever the frame rate does")
    func byTime() {
        var schedule = KeyframeSchedule(KeyframeInterval("2s")!)
        let keyframes = Self.variableRate.filter { schedule.isKeyframe(at: $0) }
        #expect(keyframes.map(\.seconds) == [0, 2, 4, 6, 8])
    }

    @Test("by time: counted from the first frame; NTSC rates take the first frame past each boundary; a gap gives one keyframe")
    func byTimeEdges() {
        var shifted = KeyframeSchedule(.duration(PresentationTime(milliseconds: 2000)))
        let offset = PresentationTime(milliseconds: 1400)
        #expect(Self.variableRate.map { $0 + offset }.filter { shifted.isKeyframe(at: $0) }.map { ($0 - offset).seconds } == [0, 2, 4, 6, 8])

        var ntsc = KeyframeSchedule(.duration(PresentationTime(milliseconds: 2000)))
        let frames = (0..<300).filter { ntsc.isKeyframe(at: PresentationTime(value: Int64($0) * 1001, timescale: 30000)) }
        #expect(frames == [0, 60, 120, 180, 240])  // 60 × 1001/30000 = 2.002 s: the first frame at or after 2 s

        var gap = KeyframeSchedule(.duration(PresentationTime(milliseconds: 2000)))
        let times = [0, 40, 7000, 7040, 7960, 8000, 9000].map { PresentationTime(milliseconds: Int64($0)) }
        #expect(times.filter { gap.isKeyframe(at: $0) }.map(\.seconds) == [0, 7, 8])
    }

    @Test("by frames: every Nth frame")
    func byFrames() {
        var schedule = KeyframeSchedule(.frames(50))
        #expect((0..<237).filter { _ in schedule.isKeyframe(at: .zero) } == [0, 50, 100, 150, 200])
    }
}

@Suite("scale options")
struct ScaleRequestTests {
    func size(_ option: String, _ value: String, _ w: Int, _ h: Int, unit: Int = 2, upscale: Bool = false) -> [Int]? {
        ScaleRequest(option: option, value: value)!.outputSize(width: w, height: h, unit: unit, upscale: upscale).map { [$0.width, $0.height] }
    }

    @Test("the issue's cases: 1080p at --height 720 is 1280×720; a 4000×3000 photo at --max-size 320 is 320×240")
    func issueCases() {
        #expect(size("--height", "720", 1920, 1080) == [1280, 720])
        #expect(size("--max-size", "320", 4000, 3000, unit: 1) == [320, 240])
    }

    @Test("aspect kept, even sides for 4:2:0, portrait and boxes, never upscaled unless asked")
    func rules() {
        #expect(size("--scale", "1280x720", 1440, 1080) == [960, 720])
        #expect(size("--scale", "1280X720", 1920, 800) == [1280, 534])  // 533.3 → nearest even
        #expect(size("--width", "853", 1920, 1080) == [852, 480])
        #expect(size("--width", "853", 1920, 1080, unit: 1) == [853, 480])
        #expect(size("--max-size", "640", 1080, 1920) == [360, 640])
        #expect(size("--height", "720", 1280, 720) == nil)
        #expect(size("--height", "2160", 1280, 720) == nil)
        #expect(size("--height", "2160", 1280, 720, upscale: true) == [3840, 2160])
        #expect(size("--max-size", "2", 4000, 30) == [2, 2])
    }

    @Test("values that are not sizes are refused")
    func parsing() {
        for (option, value) in [("--scale", "1280"), ("--scale", "x720"), ("--scale", "1280x"), ("--width", "0"), ("--height", "-5"),
                                ("--max-size", "99999"), ("--width", "12.5"), ("--size", "10")] {
            #expect(ScaleRequest(option: option, value: value) == nil, "\(option) \(value)")
        }
    }
}

@Suite("--profile, --level, --tune, --maxrate")
struct EncoderControlsTests {
    func problem(_ controls: EncoderControls, _ codec: VideoCodec, bitRate: Int? = nil) -> String? {
        do { try controls.validate(for: codec, bitRate: bitRate); return nil } catch { return error.description }
    }

    func problem(_ controls: EncoderControls, _ codec: VideoCodec, _ picture: EncodedPicture) -> String? {
        do { try controls.validate(for: codec, picture: picture); return nil } catch { return error.description }
    }

    static let hd8 = EncodedPicture(width: 1920, height: 1080, bitDepth: 8, chroma: .s420, framesPerSecond: 30)

    @Test("combinations an encoder cannot honour are refused, naming the option")
    func refused() {
        #expect(problem(EncoderControls(gop: KeyframeInterval("2s")), .av1)?.hasPrefix("--gop:") == true)
        #expect(problem(EncoderControls(gop: .frames(60)), .av1) == nil)
        #expect(problem(EncoderControls(maxRate: 2_000_000), .h264)?.hasPrefix("--maxrate: needs --bufsize") == true)
        #expect(problem(EncoderControls(bufferSize: 4_000_000), .h264)?.hasPrefix("--bufsize") == true)
        #expect(problem(EncoderControls(maxRate: 2_000_000, bufferSize: 4_000_000), .vp9)?.hasPrefix("--maxrate") == true)
        #expect(problem(EncoderControls(maxRate: 2_000_000, bufferSize: 4_000_000), .hevc) == nil)
        #expect(problem(EncoderControls(maxRate: 2_000_000, bufferSize: 4_000_000), .h264, bitRate: 3_000_000)?.hasPrefix("--bitrate") == true)
        #expect(problem(EncoderControls(profile: "main10"), .h264) == "--profile: h264 takes baseline, main, high, high10, high422, high444; got 'main10'")
        #expect(problem(EncoderControls(tune: "film"), .hevc)?.hasPrefix("--tune: hevc takes") == true)
        #expect(problem(EncoderControls(level: "4.1"), .av1)?.hasPrefix("--level") == true)
        #expect(problem(EncoderControls(level: "4.3"), .h264)?.hasPrefix("--level: h264 takes 1, 1b, 1.1") == true)
        #expect(problem(EncoderControls(profile: "high", level: "41", tune: "film"), .h264) == nil)
        #expect(problem(EncoderControls(profile: "2", level: "4.1", tune: "screen"), .vp9) == nil)
    }

    @Test("a profile must carry the picture; a level must hold its size, rate, maxrate and buffer")
    func againstThePicture() {
        let tenBit444 = EncodedPicture(width: 1920, height: 1080, bitDepth: 10, chroma: .s444, framesPerSecond: 30)
        #expect(problem(EncoderControls(profile: "high"), .h264, tenBit444) == "--profile: h264 profile high cannot carry this video (10-bit 4:4:4)")
        #expect(problem(EncoderControls(profile: "high444"), .h264, tenBit444) == nil)
        #expect(problem(EncoderControls(profile: "0"), .vp9, tenBit444) != nil)
        #expect(problem(EncoderControls(level: "3.1"), .h264, Self.hd8)?.hasPrefix("--level: 1920×1080 is larger than level 3.1") == true)
        #expect(problem(EncoderControls(level: "4"), .h264, Self.hd8) == nil)
        let hd60 = EncodedPicture(width: 1280, height: 720, bitDepth: 8, chroma: .s420, framesPerSecond: 60)
        #expect(problem(EncoderControls(level: "3.1"), .h264, hd60) == "--level: 1280×720 at 60 frames per second is more than level 3.1 allows (at most 30 at this size)")
        #expect(problem(EncoderControls(level: "3.2"), .h264, hd60) == nil)
        #expect(problem(EncoderControls(level: "3"), .hevc, Self.hd8)?.hasPrefix("--level: 1920×1080 is larger than level 3") == true)
        #expect(problem(EncoderControls(level: "4.1"), .hevc, Self.hd8) == nil)
        // High profile: 1.25 × Table A-1's 50 Mbit/s at 4.1.
        #expect(problem(EncoderControls(maxRate: 62_500_000, bufferSize: 1_000_000, level: "4.1"), .h264, Self.hd8) == nil)
        #expect(problem(EncoderControls(maxRate: 62_500_001, bufferSize: 1_000_000, level: "4.1"), .h264, Self.hd8)?.hasPrefix("--maxrate") == true)
        #expect(problem(EncoderControls(maxRate: 1_000_000, bufferSize: 30_000_000, level: "4.1"), .hevc, Self.hd8)?.hasPrefix("--bufsize") == true)
    }

    @Test("what reaches each encoder")
    func changes() {
        let byTime = EncoderControls(gop: KeyframeInterval("2s"), maxRate: 2_000_000, bufferSize: 4_000_000, profile: "high", level: "4.1", tune: "film")
        let x264 = byTime.changes(for: .h264)
        #expect(x264.forcesKeyframes && x264.parameters == ["keyint=infinite", "scenecut=0"])
        #expect(x264.maxRate == 2_000_000 && x264.bufferSize == 4_000_000)
        #expect(x264.privateOptions == ["profile": "high", "level": "4.1", "tune": "film"])
        let x265 = EncoderControls(gop: KeyframeInterval("2s"), level: "5.1").changes(for: .hevc)
        #expect(x265.privateOptions["forced-idr"] == "1" && x265.parameters.contains("level-idc=5.1") && x265.parameters.contains("scenecut=0"))
        let frames = EncoderControls(gop: .frames(48)).changes(for: .h264)
        #expect(!frames.forcesKeyframes && frames.gopSize == 48 && frames.minKeyframeInterval == 48)
        #expect(EncoderControls(gop: .frames(48)).changes(for: .av1).parameters == ["scd=0"])
        let vp9 = EncoderControls(gop: KeyframeInterval("2s"), profile: "2", tune: "screen").changes(for: .vp9)
        #expect(vp9.forcesKeyframes && vp9.profileNumber == 2 && vp9.privateOptions == ["tune-content": "screen"])
    }

    @Test("the controls' parameters join the encoder's own parameter string; their options win")
    func mergedIntoEncoderOptions() {
        let settings = EncodeSettings(controls: EncoderControls(gop: KeyframeInterval("2s"), level: "5.1", tune: "grain"))
        let x265 = settings.encoderOptions(for: .hevc, changes: settings.controls.changes(for: .hevc))
        #expect(x265["x265-params"] == "log-level=error:keyint=-1:scenecut=0:open-gop=0:level-idc=5.1")
        #expect(x265["forced-idr"] == "1" && x265["tune"] == "grain" && x265["crf"] == "28")
        let x264 = EncodeSettings(crf: 20).encoderOptions(for: .h264, changes: EncoderControls().changes(for: .h264))
        #expect(x264 == ["crf": "20"])
        let av1 = EncodeSettings(controls: EncoderControls(gop: .frames(60), tune: "psnr"))
        #expect(av1.encoderOptions(for: .av1, changes: av1.controls.changes(for: .av1))["svtav1-params"] == "scd=0:tune=1")
    }

    @Test("a lecture with a variant layer is encoded without B-frames, by x264 and x265 alike")
    func variantLecturesHaveNoBFrames() {
        let lecture = EncodeSettings(crf: 20).forVariantLecture
        #expect(lecture.encoderOptions(for: .h264, changes: EncoderControls().changes(for: .h264)) == ["crf": "20", "x264-params": "bframes=0"])
        let gop = EncodeSettings(controls: EncoderControls(gop: KeyframeInterval("2s"))).forVariantLecture
        #expect(gop.encoderOptions(for: .hevc, changes: gop.controls.changes(for: .hevc))["x265-params"]
            == "log-level=error:bframes=0:keyint=-1:scenecut=0:open-gop=0")
        var asked = EncodeSettings()
        asked.bFrames = 2
        #expect(asked.forVariantLecture.bFrames == 2)  // what the caller set stays
        #expect(EncodeSettings().encoderOptions(for: .h264, changes: EncoderControls().changes(for: .h264))["x264-params"] == nil)
    }
}
