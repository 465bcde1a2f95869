import CFFmpeg
import Testing
@testable import Media
@testable import VideoWM

@Suite("error codes")
struct ErrorCodeTests {
    /// The errors folder spells FFmpeg's tags out rather than importing FFmpeg: they must agree.
    @Test func tagsAreFFmpegs() {
        #expect(ErrorCode.invalidDataTag == vwm_averror_invaliddata())
        #expect(ErrorCode.exitTag == vwm_averror_exit())
    }

    @Test func predicatesReadTheCode() {
        #expect(ErrorCode(ffmpeg: vwm_averror_invaliddata()).isInvalidData)
        #expect(ErrorCode(ffmpeg: vwm_averror(ENOSPC)).isDiskFull && ErrorCode(errno: EDQUOT).isDiskFull && ErrorCode(errno: EFBIG).isDiskFull)
        #expect(ErrorCode(ffmpeg: vwm_averror(ENOMEM)).isResourceExhausted && ErrorCode(errno: EMFILE).isResourceExhausted)
        #expect(!ErrorCode(errno: EINVAL).isDiskFull && !ErrorCode(errno: EINVAL).isResourceExhausted && !ErrorCode(errno: EINVAL).isInvalidData)
        #expect(ErrorCode(ffmpeg: vwm_averror(ENOSPC)).message == "No space left on device")
    }

    /// An FFmpeg call stopped by our interrupt callback is an interrupt, not the call's failure.
    @Test func anInterruptedCallIsAnInterrupt() {
        #expect(throws: InterruptedError.self) { try check(vwm_averror_exit(), MediaError.call("reading", file: "in.mp4")) }
        #expect(throws: MediaError(file: "in.mp4", operation: "reading", code: ErrorCode(ffmpeg: vwm_averror_invaliddata()))) {
            try check(vwm_averror_invaliddata(), MediaError.call("reading", file: "in.mp4"))
        }
        #expect(MediaError(file: "in.mp4", operation: "reading", code: ErrorCode(errno: EIO)).message == "in.mp4: reading failed: Input/output error")
    }
}
