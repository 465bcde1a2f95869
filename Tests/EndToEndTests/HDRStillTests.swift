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
}
