import Testing
@testable import Media
@testable import VideoWM

/// `TimestampContinuity`: the one offset that makes an MPEG-TS file's times follow on across a jump.
@Suite("timestamp continuity across jumps")
struct TimestampContinuityTests {
    /// 90 kHz, MPEG-TS's clock.
    static let tb = Rational(1, 90000)

    /// Two segments of 50 video packets (0.04 s) and 100 audio packets (0.02 s) interleaved as a
    /// muxer writes them, the second's audio starting `audioLead` before its video (the first's
    /// too), plus a subtitle packet per frame; returns each stream's corrected decode times in seconds.
    func corrected(secondStart: Double, audioLead: Double = 0) -> (video: [Double], audio: [Double], subtitles: [Double], continuity: TimestampContinuity) {
        var stamps: [TimestampContinuity.Stamp] = []
        for start in [0.0, secondStart] {
            for frame in 0..<50 {
                let v = Int64(((start + Double(frame) * 0.04) * 90000).rounded())
                stamps.append(.init(stream: 0, timeBase: Self.tb, decodeTimestamp: v, duration: 3600, isChecked: true))
                for half in 0..<2 {
                    let a = Int64(((start - audioLead + Double(frame) * 0.04 + Double(half) * 0.02) * 90000).rounded())
                    stamps.append(.init(stream: 1, timeBase: Self.tb, decodeTimestamp: a, duration: 1800, isChecked: true))
                }
                stamps.append(.init(stream: 2, timeBase: Self.tb, decodeTimestamp: v, duration: 0, isChecked: false))
            }
        }
        var continuity = TimestampContinuity()
        var times: [[Double]] = [[], [], []]
        var next = 0
        while next < stamps.count {
            let first = stamps[next]
            next += 1
            let corrected = continuity.corrections(first: first, stamp: { $0 }) { () -> TimestampContinuity.Stamp? in
                defer { next += 1 }
                return next < stamps.count ? stamps[next] : nil
            }
            if next > stamps.count { next = stamps.count }
            for (stamp, ticks) in corrected { times[stamp.stream].append(Double(stamp.decodeTimestamp! + ticks) / 90000) }
        }
        return (times[0], times[1], times[2], continuity)
    }

    @Test("a forward jump over the threshold and a step back are both shifted to follow on, all streams by one offset",
          arguments: [1000.0, 0.0, 1.5, -3000.0])
    func jumpsFollowOn(secondStart: Double) {
        let (video, audio, subtitles, continuity) = corrected(secondStart: secondStart, audioLead: 0.03)
        #expect(video.count == 100 && audio.count == 200 && subtitles.count == 100)
        #expect(zip(video, video.dropFirst()).allSatisfy { $1 > $0 })
        #expect(zip(audio, audio.dropFirst()).allSatisfy { $1 > $0 })
        #expect(zip(video, video.dropFirst()).map { $1 - $0 }.max()! < 0.1)
        #expect(continuity.jumps.count == 1)
        // The second segment keeps its audio's lead on its video, and its subtitles on the video.
        #expect(abs((video[50] - audio[100]) - 0.03) < 1e-4)
        #expect(abs(subtitles[50] - video[50]) < 1e-4)
        // Audio starts the second stretch right where it ended the first (it leads the video).
        #expect(abs(audio[100] - 2.0 - (-0.03)) < 1e-4)
    }

    @Test("a forward gap under the threshold (10 s) is kept: it may be real")
    func smallGapKept() {
        let (video, _, _, continuity) = corrected(secondStart: 7)
        #expect(continuity.jumps.isEmpty)
        #expect(abs(video[50] - 7) < 1e-6)
    }
}
