import Testing
@testable import Media
@testable import VideoWM

/// The two x264 settings that keep its output a function of its input (Media/X264Determinism.swift).
@Suite("x264 determinism")
struct X264DeterminismTests {
    /// This machine's kind of flags: AVX-512 (bit 16) among AVX2, SSE2-fast and the rest.
    let avx512Machine: UInt32 = 0x11_F3FF

    @Test("AVX-512 is left out only where a row is not a whole number of 8 macroblocks (128 pixels)")
    func asmOnlyForWidthsTheBugReaches() {
        #expect(X264Determinism.cpuFlagsParameter(width: 320, detectedFlags: avx512Machine) == "asm=\(0x10_F3FF)")
        #expect(X264Determinism.cpuFlagsParameter(width: 1080, detectedFlags: avx512Machine) == "asm=\(0x10_F3FF)")  // 68 macroblocks
        // 1918 rounds up to 120 macroblocks, like 1920.
        for width in [128, 256, 640, 1280, 1918, 1920, 3840] {
            #expect(X264Determinism.cpuFlagsParameter(width: width, detectedFlags: avx512Machine) == nil, "\(width)")
        }
        // Without AVX-512, or without x264 to ask, nothing changes.
        #expect(X264Determinism.cpuFlagsParameter(width: 320, detectedFlags: 0x10_F3FF) == nil)
        #expect(X264Determinism.cpuFlagsParameter(width: 320, detectedFlags: nil) == nil)
    }

    @Test("the asm parameter is added to the x264 parameters already there, for libx264 only")
    func optionsKeepTheirParameters() {
        let options = ["preset": "medium", "x264-params": "keyint=60:bframes=3"]
        let changed = X264Determinism.options(options, encoderName: "libx264", width: 320)
        if let asm = X264Determinism.cpuFlagsParameter(width: 320) {
            #expect(changed == ["preset": "medium", "x264-params": "keyint=60:bframes=3:\(asm)"])
            #expect(X264Determinism.options([:], encoderName: "libx264", width: 320) == ["x264-params": asm])
        } else {
            #expect(changed == options)
        }
        #expect(X264Determinism.options(options, encoderName: "libx265", width: 320) == options)
    }

    @Test("a libx264 decoder-buffer model runs on one thread; everything else keeps the threads asked for")
    func oneThreadForX264WithVBV() {
        #expect(X264Determinism.threads(0, encoderName: "libx264", maxRate: 3_000_000) == 1)
        #expect(X264Determinism.threads(8, encoderName: "libx264", maxRate: 3_000_000) == 1)
        #expect(X264Determinism.threads(0, encoderName: "libx264", maxRate: nil) == 0)
        #expect(X264Determinism.threads(4, encoderName: "libx265", maxRate: 3_000_000) == 4)
        #expect(X264Determinism.threads(0, encoderName: "libvpx-vp9", maxRate: 3_000_000) == 0)
    }

    @Test("x264's CPU flags are found in the process (libavcodec loads libx264)")
    func detectsX264Flags() {
        #expect(X264Determinism.detectedFlags != nil)
    }
}
