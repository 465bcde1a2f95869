import Foundation

/// Keeps libx264's output a function of its input alone (same frames and options, same bits).
///
/// libx264 0.164's AVX-512 macroblock-tree pass (`mbtree_propagate_list_internal_avx512`, unchanged
/// upstream since) works on 8 macroblocks at a time and never stops at the row's end; the AVX2 and
/// SSSE3 versions do the same arithmetic but apply only the first `len` results. So when a picture is
/// not a whole number of 8 macroblocks (128 pixels) wide, the AVX-512 pass also spreads the costs of
/// the entries just past each row: the next row's (harmless), and on the last row, bytes past the end
/// of the frame's cost and motion-vector arrays, in alignment padding x264 allocates and never writes.
/// Whatever the heap left there steers the quantiser, so two identical runs differed (a second encoder
/// in one process is the usual way to get a reused, dirty heap: smart rendering's spans, batch rows).
/// Measured on 160×128 and 320×240: x264 with its own CPU flags minus AVX-512, or with `mbtree=0`, is
/// identical run after run; with AVX-512 every run differs; widths of 128, 256 and 1280 never differ.
///
/// The remedy is x264's `asm` parameter: the flags x264 detects itself, minus AVX-512, for the widths
/// the bug reaches. Other widths keep every instruction set.
///
/// Second, x264's decoder-buffer (VBV) rate control is not reproducible with frame threads: each
/// frame's plan subtracts the sizes other threads estimate for the frames they are still encoding
/// (`update_vbv_plan` reads `frame_size_estimated`, written row by row as those threads progress), so
/// the quantiser depends on thread timing (measured: `ffmpeg -c:v libx264 -b:v … -maxrate … -bufsize …`
/// on 720p gives a different file every run, and an identical one with `-threads 1`; sliced threads
/// read the other slices' progress the same way). So a libx264 encode with a VBV runs on one thread.
/// x265 and libvpx-vp9 with a VBV and threads, and x264 without one, were identical run after run.
enum X264Determinism {
    /// x264's `X264_CPU_AVX512` flag (x264.h).
    static let avx512Flag: UInt32 = 1 << 16

    /// The `asm=` value that keeps an encode of a `width`-pixel-wide picture reproducible, or nil when
    /// x264's own choice already is (a width of whole 8-macroblock groups, no AVX-512 here, or a libx264
    /// that cannot be asked for its CPU flags).
    static func cpuFlagsParameter(width: Int) -> String? {
        cpuFlagsParameter(width: width, detectedFlags: detectedFlags)
    }

    static func cpuFlagsParameter(width: Int, detectedFlags: UInt32?) -> String? {
        let macroblocks = (width + 15) / 16
        guard macroblocks % 8 != 0, let flags = detectedFlags, flags & avx512Flag != 0 else { return nil }
        return "asm=\(flags & ~avx512Flag)"
    }

    /// The CPU flags libx264 would use (its exported `x264_cpu_detect`, found in the process: libavcodec
    /// loads libx264, so no link to it and no libx264-dev is needed); nil when it is not there.
    static let detectedFlags: UInt32? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "x264_cpu_detect") else { return nil }
        typealias Detect = @convention(c) () -> UInt32
        return unsafeBitCast(symbol, to: Detect.self)()
    }()

    /// The codec threads for an encoder asked for `requested` threads (0: automatic): one for libx264
    /// with a decoder-buffer model (`maxRate`), whose frame threads make its rate control depend on timing.
    static func threads(_ requested: Int, encoderName: String, maxRate: Int?) -> Int {
        encoderName == "libx264" && maxRate != nil ? 1 : requested
    }

    /// `options` (an encoder's private options) with the `asm` parameter added to `x264-params` when a
    /// libx264 encode of a `width`-pixel-wide picture needs it.
    static func options(_ options: [String: String], encoderName: String, width: Int) -> [String: String] {
        guard encoderName == "libx264", let asm = cpuFlagsParameter(width: width) else { return options }
        var options = options
        options["x264-params"] = [options["x264-params"], asm].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        return options
    }
}
