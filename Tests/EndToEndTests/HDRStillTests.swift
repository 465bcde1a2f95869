import Foundation
import Testing

/// Stills declared PQ or HLG (issue 16): marked at graphics white, and still declared so afterwards.
@Suite("HDR stills, end to end")
struct HDRStillTests {
    // MARK: HDR stills

    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Inserts a `cICP` chunk (primaries 9 = BT.2020, `transfer`, matrix 0, full range) after IHDR.
    func addCICP(transfer: UInt8, toPNG file: String) throws {
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let body: [UInt8] = Array("cICP".utf8) + [9, transfer, 0, 1]
        let crc = Self.crc32(body)
        let chunk: [UInt8] = [0, 0, 0, 4] + body + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        data.insert(contentsOf: chunk, at: 8 + 25)  // signature, then IHDR (length, type, 13 bytes, CRC)
        try Data(data).write(to: URL(fileURLWithPath: file))
    }

    /// A minimal ICC profile holding only a `cicp` tag (ICC.1:2022): BT.2020 primaries and `transfer`.
    static func iccProfile(cicpTransfer transfer: UInt8) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let tag: [UInt8] = Array("cicp".utf8) + [0, 0, 0, 0, 9, transfer, 0, 1]
        let size = 128 + 4 + 12 + tag.count
        var header = be32(size) + [UInt8](repeating: 0, count: 124)
        header.replaceSubrange(8..<12, with: [4, 0x40, 0, 0])  // version 4.4
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        return header + be32(1) + Array("cicp".utf8) + be32(144) + be32(tag.count) + tag
    }

    /// A black still declared PQ or HLG: white text is written at graphics white — PQ 0.5807
    /// (148 of 255), HLG 0.75 (191) — through a PNG's `cICP` chunk (the RGBA path) and a
    /// JPEG's ICC `cicp` tag (the Y′CbCr path); the same picture undeclared gets 255.
    @Test("white text on PQ and HLG stills lands at graphics white", arguments: [(UInt8(16), 148), (UInt8(18), 191)])
    func hdrStills(transfer: UInt8, expected: Int) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", LooksEndToEndTests.whiteText)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180", "-frames:v", "1", "-pix_fmt", "rgb24", h.path("plain.png")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180", "-frames:v", "1", "-pix_fmt", "rgb24", h.path("hdr.png")])
        try addCICP(transfer: transfer, toPNG: h.path("hdr.png"))
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180", "-frames:v", "1", "-q:v", "2", h.path("hdr.jpg")])
        try h.addColourProfile(Self.iccProfile(cicpTransfer: transfer), toJPEG: h.path("hdr.jpg"))
        for (input, output) in [("plain.png", "plain-out.png"), ("hdr.png", "hdr-out.png"), ("hdr.jpg", "hdr-out.jpg")] {
            let r = try h.videowm("stamp", h.path(input), "-o", h.path(output), "-c", config)
            #expect(r.status == 0, "\(input): \(r.stderr)")
            let frame = try LooksAuditTests.stillRGB(h, h.path(output))
            #expect(frame.count == 320 * 180 * 3)
            var counts: [Int: Int] = [:]
            for i in stride(from: 0, to: frame.count, by: 3) where frame[i + 1] > 60 { counts[Int(frame[i + 1]), default: 0] += 1 }
            let mode = counts.max { $0.value < $1.value }?.key
            let target = input == "plain.png" ? 255 : expected
            #expect(mode.map { abs($0 - target) <= 3 } == true, "\(input): white text at \(String(describing: mode)), expected \(target)")
        }
    }

    /// The output of a `cICP`-tagged PNG still says it is PQ: otherwise a viewer shows the
    /// PQ-coded pixels as sRGB.
    @Test("a stamped PNG keeps its cICP chunk")
    func cicpIsKept() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", LooksEndToEndTests.whiteText)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=64x64", "-frames:v", "1", "-pix_fmt", "rgb24", h.path("hdr.png")])
        try addCICP(transfer: 16, toPNG: h.path("hdr.png"))
        #expect(try h.videowm("stamp", h.path("hdr.png"), "-o", h.path("out.png"), "-c", config).status == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: h.path("out.png"))))
        let chunk = Array("cICP".utf8) + [9, 16, 0, 1]
        #expect(bytes.indices.contains { bytes[$0...].starts(with: chunk) }, "no cICP chunk in the output")
    }

    // MARK: Stills of HDR video (issue 30)

    /// BT.2390's reference tone curve and the curves around it, worked out here from the
    /// standards' formulas (not videowm's code): what a PQ or HLG signal of a grey looks like
    /// on an SDR display whose white is 203 cd/m², from a 1000 cd/m² source, as sRGB 0…255.
    enum Reference {
        static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        static func pqToNits(_ e: Double) -> Double {
            let p = pow(e, 1 / m2)
            return 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
        }
        static func nitsToPQ(_ nits: Double) -> Double {
            let y = pow(nits / 10_000, m1)
            return pow((c1 + c2 * y) / (1 + c3 * y), m2)
        }
        /// BT.2390-10 §5.4.1, black levels 0.
        static func eetf(_ nits: Double, sourcePeak: Double = 1000, targetPeak: Double = 203) -> Double {
            let peak = nitsToPQ(sourcePeak), e1 = nitsToPQ(nits) / peak, maxLum = nitsToPQ(targetPeak) / peak
            let ks = 1.5 * maxLum - 0.5
            guard e1 >= ks else { return nits }
            let t = (e1 - ks) / (1 - ks)
            let e2 = (2 * pow(t, 3) - 3 * t * t + 1) * ks + (pow(t, 3) - 2 * t * t + t) * (1 - ks) + (-2 * pow(t, 3) + 3 * t * t) * maxLum
            return pqToNits(e2 * peak)
        }
        /// A grey's HLG signal on BT.2100's 1000 cd/m² reference display (system gamma 1.2).
        static func hlgToNits(_ v: Double) -> Double {
            let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
            let scene = v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
            return 1000 * pow(scene, 1.2)
        }
        static func srgb(_ linear: Double) -> Double {
            let v = min(max(linear, 0), 1)
            return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
        }
        /// The SDR sRGB value of a grey whose signal is `code` of 255.
        static func sdr(code: Int, transfer: String) -> Double {
            let nits = transfer == "smpte2084" ? pqToNits(Double(code) / 255) : hlgToNits(Double(code) / 255)
            return srgb(eetf(nits) / 203)
        }
    }

    /// A 128×64 HDR clip: a mid-grey half (18 % grey, 26 cd/m²: PQ 98, HLG 97 of 255) and a
    /// reference-white half (203 cd/m²: PQ 148, HLG 191), BT.2020, 10-bit, coded losslessly.
    func hdrClip(_ h: Harness, transfer: String, name: String = "hdr.mp4", size: String = "64x64") throws -> (path: String, grey: Int, white: Int) {
        let (grey, white) = transfer == "smpte2084" ? (98, 148) : (97, 191)
        func hex(_ v: Int) -> String { String(format: "0x%02X%02X%02X", v, v, v) }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=\(hex(grey)):s=\(size):r=10:d=1,format=rgb24", "-f", "lavfi", "-i", "color=c=\(hex(white)):s=\(size):r=10:d=1,format=rgb24",
                      "-filter_complex", "[0][1]hstack,scale=out_color_matrix=bt2020:out_range=tv,format=yuv420p10le",
                      "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast",
                      "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", h.path(name)])
        return (h.path(name), grey, white)
    }

    /// The mean of one channel over a rectangle of an RGB24 picture `width` wide.
    func mean(_ rgb: [UInt8], width: Int, x: Range<Int>, y: Range<Int>) -> Double {
        meanColor(rgb, width: width, x: x, y: y).0
    }

    /// A PNG's `cICP` code points, if it has the chunk.
    func cicp(_ file: String) throws -> [UInt8]? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        guard let at = (0..<(bytes.count - 8)).first(where: { bytes[$0...].starts(with: Array("cICP".utf8)) }) else { return nil }
        return Array(bytes[(at + 4)..<(at + 8)])
    }

    /// The H.273 code points in an ICC profile's `cicp` tag anywhere in a file (JPEG APP2, WebP ICCP).
    func iccCICP(_ file: String) throws -> [UInt8]? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let tag = Array("cicp".utf8) + [0, 0, 0, 0]
        // The tag's data (its signature, then four reserved bytes), not the tag table's entry.
        guard let at = (0..<(bytes.count - 12)).first(where: { bytes[$0...].starts(with: tag) }) else { return nil }
        return Array(bytes[(at + 8)..<(at + 12)])
    }

    static let unmarked = #"{ "watermarks": [ { "text": "later", "start": 100 } ] }"#

    @Test("an HLG and a PQ thumbnail are tone-mapped SDR PNGs tagged sRGB: grey and white within 5 % of BT.2390's values",
          arguments: ["smpte2084", "arib-std-b67"])
    func toneMappedThumbnail(transfer: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try hdrClip(h, transfer: transfer)
        let r = try h.videowm("thumbnail", clip.path, h.path("t.png"), "--at", "0.5", "-c", try h.write("c.json", Self.unmarked))
        #expect(r.status == 0, "\(r.stderr)")
        let rgb = try LooksAuditTests.stillRGB(h, h.path("t.png"))
        let grey = mean(rgb, width: 128, x: 8..<56, y: 8..<56), white = mean(rgb, width: 128, x: 72..<120, y: 8..<56)
        let expected = (Reference.sdr(code: clip.grey, transfer: transfer), Reference.sdr(code: clip.white, transfer: transfer))
        // About 101 and 229: 18 % grey unchanged by the curve, reference white rolled off to 159 cd/m².
        #expect(abs(grey - expected.0) <= 0.05 * expected.0, "mid-grey \(grey), BT.2390: \(expected.0)")
        #expect(abs(white - expected.1) <= 0.05 * expected.1, "white \(white), BT.2390: \(expected.1)")
        #expect(try cicp(h.path("t.png")) == [1, 13, 0, 1], "the PNG says sRGB")
    }

    @Test("--keep-hdr keeps the PQ signal, tagged: PNG cICP, AVIF nclx, JPEG and WebP an ICC cicp tag")
    func keptHDRThumbnail() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try hdrClip(h, transfer: "smpte2084")
        let config = try h.write("c.json", Self.unmarked)
        for output in ["k.png", "k.avif", "k.jpg", "k.webp"] {
            let r = try h.videowm("thumbnail", clip.path, h.path(output), "--at", "0.5", "-c", config, "--keep-hdr")
            #expect(r.status == 0, "\(output): \(r.stderr)")
        }
        let rgb = try LooksAuditTests.stillRGB(h, h.path("k.png"))
        #expect(abs(mean(rgb, width: 128, x: 8..<56, y: 8..<56) - Double(clip.grey)) <= 2, "the PQ signal itself")
        #expect(abs(mean(rgb, width: 128, x: 72..<120, y: 8..<56) - Double(clip.white)) <= 2)
        #expect(try cicp(h.path("k.png")) == [9, 16, 0, 1])
        let avif = [UInt8](try Data(contentsOf: URL(fileURLWithPath: h.path("k.avif"))))
        let nclx = Array("colrnclx".utf8) + [0, 9, 0, 16]
        #expect(avif.indices.contains { avif[$0...].starts(with: nclx) }, "AVIF colr nclx with BT.2020 and PQ")
        #expect(try iccCICP(h.path("k.jpg")) == [9, 16, 0, 1])
        #expect(try iccCICP(h.path("k.webp")) == [9, 16, 0, 1])
    }

    @Test("a preview of PQ video is tone-mapped and tagged sRGB; with --keep-hdr tagged PQ, its background placed in the PQ signal")
    func previewOfHDR() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try hdrClip(h, transfer: "smpte2084")
        let config = try h.write("c.json", Self.unmarked)
        #expect(try h.videowm("preview", clip.path, "-c", config, "-o", h.path("s.png"), "--frames", "2").status == 0)
        #expect(try h.videowm("preview", clip.path, "-c", config, "-o", h.path("k.png"), "--frames", "2", "--keep-hdr").status == 0)
        #expect(try cicp(h.path("s.png")) == [1, 13, 0, 1])
        #expect(try cicp(h.path("k.png")) == [9, 16, 0, 1])
        // The first tile starts 8 px in; its grey half as in the thumbnail.
        let sdr = try LooksAuditTests.stillRGB(h, h.path("s.png")), kept = try LooksAuditTests.stillRGB(h, h.path("k.png"))
        let width = 8 + 2 * (128 + 8)
        #expect(abs(mean(sdr, width: width, x: 16..<60, y: 16..<60) - Reference.sdr(code: clip.grey, transfer: "smpte2084")) <= 5)
        #expect(abs(mean(kept, width: width, x: 16..<60, y: 16..<60) - Double(clip.grey)) <= 2)
        // The background (#1E1E1E) placed in the PQ signal as marks are (sRGB white at 203 cd/m²): 2.6 cd/m², PQ 52 of 255.
        let background = Reference.nitsToPQ(pow((30.0 / 255 + 0.055) / 1.055, 2.4) * 203) * 255
        #expect(abs(mean(kept, width: width, x: 0..<4, y: 0..<4) - background) <= 1.5, "\(mean(kept, width: width, x: 0..<4, y: 0..<4)), \(background)")
        #expect(abs(mean(sdr, width: width, x: 0..<4, y: 0..<4) - 30) <= 1)
    }

    /// A cICP-only PNG has no ICC profile to carry over: the HDR tag must be written anew.
    @Test("a cICP-only PQ PNG stamped to JPEG, WebP or AVIF stays tagged PQ, and restamping it marks at graphics white")
    func cicpCarriedToOtherFormats() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", LooksEndToEndTests.whiteText)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=320x180", "-frames:v", "1", "-pix_fmt", "rgb24", h.path("hdr.png")])
        try addCICP(transfer: 16, toPNG: h.path("hdr.png"))
        let plain = try h.write("plain.json", Self.unmarked)
        for output in ["out.jpg", "out.webp", "out.avif"] {
            let r = try h.videowm("stamp", h.path("hdr.png"), "-o", h.path(output), "-c", plain)
            #expect(r.status == 0, "\(output): \(r.stderr)")
        }
        #expect(try iccCICP(h.path("out.jpg")) == [9, 16, 0, 1])
        #expect(try iccCICP(h.path("out.webp")) == [9, 16, 0, 1])
        let avif = [UInt8](try Data(contentsOf: URL(fileURLWithPath: h.path("out.avif"))))
        #expect(avif.indices.contains { avif[$0...].starts(with: Array("colrnclx".utf8) + [0, 9, 0, 16]) })
        // The tag is one videowm itself reads back: white text on the stamped JPEG and WebP at PQ's graphics white.
        for input in ["out.jpg", "out.webp"] {
            let output = "again-" + input
            #expect(try h.videowm("stamp", h.path(input), "-o", h.path(output), "-c", config).status == 0)
            let frame = try LooksAuditTests.stillRGB(h, h.path(output))
            var counts: [Int: Int] = [:]
            for i in stride(from: 0, to: frame.count, by: 3) where frame[i + 1] > 60 { counts[Int(frame[i + 1]), default: 0] += 1 }
            let mode = counts.max { $0.value < $1.value }?.key
            #expect(mode.map { abs($0 - 148) <= 4 } == true, "\(input): white text at \(String(describing: mode)), PQ graphics white is 148")
        }
    }

    @Test("an HD video without colour tags gives a BT.709-tagged output (it was marked as BT.709)")
    func untaggedHDIsTaggedBT709() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=10:duration=0.3", "-c:v", "libx264", "-preset", "ultrafast",
                      "-pix_fmt", "yuv420p", h.path("in.mp4")])
        let tags = ["-select_streams", "v:0", "-show_entries", "stream=color_primaries,color_transfer,color_space", "-of", "csv=p=0"]
        #expect(try h.ffprobe(tags + [h.path("in.mp4")]).contains("unknown"), "the input says nothing of its colour")
        let r = try h.videowm("transcode", h.path("in.mp4"), h.path("out.mp4"), "-c", try h.write("c.json", LooksEndToEndTests.whiteText),
                              "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.ffprobe(tags + [h.path("out.mp4")]).trimmingCharacters(in: .whitespacesAndNewlines) == "bt709,bt709,bt709")
    }
}
