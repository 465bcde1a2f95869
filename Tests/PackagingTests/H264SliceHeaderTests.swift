import Foundation
@testable import Packaging
import Testing

/// The slice header lengths Common Encryption leaves clear, against FFmpeg's own H.264 syntax parser
/// (`-bsf:v trace_headers` prints every slice header field with its bit position) on x264 streams made with the
/// settings that change a slice header's syntax.
@Suite("H.264 slice headers")
struct H264SliceHeaderTests {
    @Test("every slice header's length equals FFmpeg's trace_headers", arguments: [
        ("ultrafast", "yuv420p", ""),  // CAVLC, no B-frames, POC type 2
        ("medium", "yuv420p", "bframes=3:b-pyramid=normal:weightp=2:ref=4"),  // CABAC, B, weighted P tables, MMCO
        ("fast", "yuv420p", "slices=3:bframes=2:direct=temporal"),  // several slices a picture
        ("veryfast", "yuv420p", "interlaced=1:bframes=1"),  // frame_mbs_only_flag 0: field flags
        ("veryfast", "yuv444p", "cqm=jvt:bframes=2"),  // High 4:4:4, scaling matrices in the SPS
        ("medium", "yuv420p", "weightb=1:bframes=2:deblock=-1,-1"),  // deblocking offsets written
    ])
    func sliceHeadersMatchFFmpeg(preset: String, pixelFormat: String, options: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=0.8", "-c:v", "libx264", "-preset", preset,
                            "-pix_fmt", pixelFormat] + (options.isEmpty ? [] : ["-x264-params", options]) + ["-bsf:v", "h264_mp4toannexb", "s.h264"])
        let stream = try scratch.read("s.h264")
        let trace = try scratch.run("ffmpeg", ["-hide_banner", "-nostats", "-i", "s.h264", "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        let expectedBits = Self.sliceHeaderBits(trace.errorText)

        var sets = H264ParameterSets()
        var measured: [Int] = []
        var expectedBytes: [Int] = []
        for nal in Self.nalUnits(stream) {
            let type = stream[nal.lowerBound] & 0x1F
            if type == 7 || type == 8 { try sets.read(nalUnit: stream, range: nal, location: "test") }
            guard type == 1 || type == 5 else { continue }
            measured.append(try H264SliceHeader.clearLength(of: stream, range: nal, parameterSets: sets, location: "test"))
            guard expectedBits.count >= measured.count else { break }
            expectedBytes.append(Self.storedLength(stream, nal: nal, rbspBits: expectedBits[measured.count - 1]))
        }
        #expect(measured.count >= 20, "slices found: \(measured.count)")
        #expect(expectedBits.count == measured.count)
        #expect(measured == expectedBytes)
    }

    /// Each slice header's length in bits from trace_headers' listing: the last field's position plus its bits.
    static func sliceHeaderBits(_ trace: String) -> [Int] {
        var lengths: [Int] = []
        var inSlice = false
        var last: Int?
        for line in trace.split(separator: "\n") {
            guard let body = line.range(of: "] ").map({ line[$0.upperBound...] }) else { continue }
            if body.hasPrefix("Slice Header") {
                if let last { lengths.append(last) }
                inSlice = true
                last = nil
                continue
            }
            let fields = body.split(separator: " ", omittingEmptySubsequences: true)
            if inSlice, fields.count >= 4, let position = Int(fields[0]), fields[fields.count - 2] == "=" {
                last = position + fields[fields.count - 3].count
            } else if inSlice && body.first?.isNumber != true {
                if let last { lengths.append(last) }
                inSlice = false
                last = nil
            }
        }
        if inSlice, let last { lengths.append(last) }
        return lengths
    }

    /// The NAL units of an Annex B stream (start codes removed).
    static func nalUnits(_ bytes: [UInt8]) -> [Range<Int>] {
        var starts: [Int] = []
        var index = 0
        while index + 3 <= bytes.count {
            if bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 {
                starts.append(index + 3)
                index += 3
            } else {
                index += 1
            }
        }
        return starts.enumerated().map { n, start in
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            while end > start && bytes[end - 1] == 0 { end -= 1 }  // a 4-byte start code's leading zero
            return start..<end
        }
    }

    /// How many stored bytes hold the first `rbspBits` bits of a NAL unit (emulation prevention bytes counted).
    static func storedLength(_ bytes: [UInt8], nal: Range<Int>, rbspBits: Int) -> Int {
        let wanted = (rbspBits + 7) / 8
        var rbsp = 0
        var zeros = 0
        var index = nal.lowerBound
        while rbsp < wanted && index < nal.upperBound {
            if zeros >= 2 && bytes[index] == 3 {
                zeros = 0
                index += 1
                continue
            }
            zeros = bytes[index] == 0 ? zeros + 1 : 0
            rbsp += 1
            index += 1
        }
        return index - nal.lowerBound
    }

    @Test("emulation prevention bytes inside a header are skipped in reading and counted in the clear length")
    func emulationPrevention() throws {
        // An Exp-Golomb code of 17 zero bits then a one: the stored bytes need `00 00 03` to avoid a start code.
        var reader = RBSPBitReader([0x00, 0x00, 0x03, 0x00, 0x40, 0xFF], range: 0..<6, location: "t")
        #expect(try reader.bits(24) == 0)  // 00 00 [03 skipped] 00
        #expect(reader.storedEnd == 4)
        #expect(try reader.bit() == 0 && reader.bit() == 1)
        #expect(reader.storedEnd == 5)
    }
}
