import Foundation
import Overlay

/// Whether a still's pixels are PQ or HLG coded, from what the file says about its colour:
/// a PNG's `cICP` chunk (coding-independent code points, ITU-T H.273), or its ICC profile —
/// a `cicp` tag (ICC.1:2022) or, for the HDR profiles made before that tag, a description
/// naming BT.2100 PQ or HLG. Anything else is SDR, and its marks are drawn as before.
///
/// FFmpeg 5.1's PNG decoder does not read `cICP` into the frame's colour description, so the
/// chunk is read here from the file's first bytes.
enum StillColorSpace {
    /// H.273 code points: colour primaries 1 (BT.709) and 9 (BT.2020); transfer 16 (PQ) and 18 (HLG).
    static func fromCodePoints(primaries: UInt8, transfer: UInt8) -> FrameColorSpace? {
        let hdr: FrameColorSpace.Transfer
        switch transfer {
        case 16: hdr = .pq
        case 18: hdr = .hlg
        default: return nil
        }
        return FrameColorSpace(transfer: hdr, primaries: primaries == 1 ? .bt709 : .bt2020)
    }

    /// The colour space a still declares, or `.sdr`.
    static func detect(iccProfile: [UInt8]?, fileStart: [UInt8]) -> FrameColorSpace {
        pngCodePoints(fileStart) ?? iccProfile.flatMap(fromICCProfile) ?? .sdr
    }

    /// What a PNG's `cICP` chunk says, as a colour space.
    static func pngCodePoints(_ bytes: [UInt8]) -> FrameColorSpace? {
        pngCICP(bytes).flatMap { fromCodePoints(primaries: $0[0], transfer: $0[1]) }
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The four code points of a PNG's `cICP` chunk (primaries, transfer, matrix, full range),
    /// which precedes `IDAT`.
    static func pngCICP(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.starts(with: pngSignature) else { return nil }
        var i = 8
        while i + 8 <= bytes.count {
            let length = Int(bigEndian32(bytes, i))
            let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
            if type == "IDAT" { return nil }
            if type == "cICP", length == 4, i + 12 <= bytes.count { return Array(bytes[(i + 8)..<(i + 12)]) }
            i += 12 + length
        }
        return nil
    }

    /// `png` with a `cICP` chunk holding `codePoints` right after its `IHDR` (which is always
    /// first, 13 bytes long). FFmpeg 5.1's PNG encoder writes no `cICP`, and without it a viewer
    /// would show the PQ- or HLG-coded pixels of a marked HDR still as sRGB.
    static func insertingCICP(_ codePoints: [UInt8], intoPNG png: [UInt8]) -> [UInt8] {
        guard codePoints.count == 4, png.count >= 33, png.starts(with: pngSignature),
              Array(png[12..<16]) == Array("IHDR".utf8), pngCICP(png) == nil else { return png }
        let typeAndData = Array("cICP".utf8) + codePoints
        let chunk = [0, 0, 0, 4] + typeAndData + bigEndianBytes(crc32(typeAndData))
        return Array(png[..<33]) + chunk + Array(png[33...])
    }

    /// CRC-32 as PNG defines it (polynomial 0xEDB88320, reflected); only eight bytes are summed.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndianBytes(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }

    /// Whether code points say PQ or HLG.
    static func isHDR(codePoints: [UInt8]) -> Bool { codePoints.count == 4 && (codePoints[1] == 16 || codePoints[1] == 18) }

    /// An ICC v4.4 profile saying what H.273 `codePoints` say, for formats with no `cICP` of their
    /// own (JPEG, WebP): a `cicp` tag (ICC.1:2022), a description naming the colour as the HDR
    /// profiles made before that tag do ("Rec. ITU-R BT.2100 PQ"), the D50 white point and a
    /// copyright. It carries no colorants or curves: PQ and HLG are not matrix/TRC colours, and
    /// readers that know HDR go by the `cicp` tag.
    static func iccProfile(codePoints: [UInt8]) -> [UInt8] {
        precondition(codePoints.count == 4, "four code points")
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(v >> $0 & 0xFF) } }
        func localized(_ text: String) -> [UInt8] {
            let utf16 = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            return Array("mluc".utf8) + be32(0) + be32(1) + be32(12) + Array("enUS".utf8) + be32(utf16.count) + be32(28) + utf16
        }
        let primaries = codePoints[0] == 1 ? "BT.709" : "BT.2020"
        let name = switch codePoints[1] {
        case 16: "Rec. ITU-R BT.2100 PQ"
        case 18: "Rec. ITU-R BT.2100 HLG"
        default: "H.273 \(codePoints[0])/\(codePoints[1])/\(codePoints[2])"
        }
        let d50: [Int] = [0xF6D6, 0x1_0000, 0xD32D]  // s15Fixed16 X, Y, Z
        let tags: [(String, [UInt8])] = [
            ("desc", localized(name + " (\(primaries) primaries)")),
            ("cprt", localized("No copyright, use freely")),
            ("wtpt", Array("XYZ ".utf8) + be32(0) + d50.flatMap(be32)),
            ("cicp", Array("cicp".utf8) + be32(0) + codePoints),
        ]
        var offset = 128 + 4 + 12 * tags.count
        var table = be32(tags.count), data: [UInt8] = []
        for (signature, body) in tags {
            table += Array(signature.utf8) + be32(offset) + be32(body.count)
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            data += padded
            offset += padded.count
        }
        var header = [UInt8](repeating: 0, count: 128)
        header.replaceSubrange(0..<4, with: be32(128 + table.count + data.count))
        header.replaceSubrange(8..<12, with: [4, 0x40, 0, 0])  // version 4.4
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        header.replaceSubrange(68..<80, with: d50.flatMap(be32))  // the PCS illuminant
        return header + table + data
    }

    /// An ICC profile's `cicp` tag, else a description naming BT.2100 PQ or HLG.
    static func fromICCProfile(_ profile: [UInt8]) -> FrameColorSpace? {
        guard profile.count >= 132 else { return nil }
        let count = Int(bigEndian32(profile, 128))
        var profileName: String?
        for entry in 0..<min(count, 256) {
            let at = 132 + entry * 12
            guard at + 12 <= profile.count else { break }
            let signature = String(decoding: profile[at..<(at + 4)], as: UTF8.self)
            let offset = Int(bigEndian32(profile, at + 4)), size = Int(bigEndian32(profile, at + 8))
            guard offset >= 0, size >= 0, offset + size <= profile.count, size >= 12 else { continue }
            let tag = Array(profile[offset..<(offset + size)])
            if signature == "cicp", tag.starts(with: Array("cicp".utf8)) {
                return fromCodePoints(primaries: tag[8], transfer: tag[9])
            }
            if signature == "desc" { profileName = text(ofDescription: tag) }
        }
        guard let profileName else { return nil }
        let words = profileName.uppercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        guard words.contains(where: { $0.contains("2100") || $0.contains("2020") }) else { return nil }
        if words.contains("PQ") { return .pqBT2020 }
        if words.contains("HLG") { return .hlgBT2020 }
        return nil
    }

    /// The text of a `desc` tag: ICC v2's `textDescriptionType` (ASCII) or v4's
    /// `multiLocalizedUnicodeType` (its first record, UTF-16BE).
    private static func text(ofDescription tag: [UInt8]) -> String? {
        if tag.starts(with: Array("desc".utf8)) {
            let length = Int(bigEndian32(tag, 8))
            guard length > 0, 12 + length <= tag.count else { return nil }
            return String(decoding: tag[12..<(12 + length)].prefix { $0 != 0 }, as: UTF8.self)
        }
        if tag.starts(with: Array("mluc".utf8)), tag.count >= 28, bigEndian32(tag, 8) > 0 {
            let length = Int(bigEndian32(tag, 20)), offset = Int(bigEndian32(tag, 24))
            guard length >= 2, offset + length <= tag.count else { return nil }
            let units = stride(from: offset, to: offset + length - 1, by: 2).map { UInt16(tag[$0]) << 8 | UInt16(tag[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        }
        return nil
    }

    private static func bigEndian32(_ bytes: [UInt8], _ i: Int) -> UInt32 {
        guard i + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }

    /// The first bytes of a local file (for its `cICP` chunk); empty for a URL, an unreadable
    /// file, or anything but a regular file (read without blocking, see `BoundedRead`).
    static func fileStart(_ path: String) -> [UInt8] {
        guard !RemoteImage.isURL(path) else { return [] }
        return (try? BoundedRead.prefix(of: path, count: ImageHeader.prefixBytes)) ?? []
    }
}
