import Overlay

/// The tracks of an fMP4 initialization segment as a multivariant playlist declares them:
/// the `CODECS` string of each (RFC 6381, ISO/IEC 14496-15 Annex E), from the sample entry's
/// own configuration record — the parameter sets players will be given — and the picture's
/// stored size, pixel shape and rotation, and the track's language.
///
/// - H.264 (`avc1`/`avc3`): `avc1.PPCCLL` — profile_idc, constraint flags and level_idc of the
///   record's SPS (the highest level when the record lists several, as a spliced record does).
/// - HEVC (`hvc1`/`hev1`): `hvc1.[A-C]P.C.TL.B…` from the hvcC's general profile, compatibility
///   flags (bit-reversed, hex), tier and level, and constraint bytes (trailing zeros omitted).
/// - VP9 (`vp09.PP.LL.DD`) from `vpcC`, AV1 (`av01.P.LLT.DD`) from `av1C`.
/// - AAC and other MPEG-4 audio: `mp4a.40.N`, N the AudioSpecificConfig's object type
///   (2 = AAC-LC, 5 = HE-AAC); other object types `mp4a.XX` (hex, MP3 = `mp4a.6B`).
/// - `opus`, `flac`, `ac-3`, `ec-3` by their sample entries.
public struct InitializationTrack: Sendable, Equatable {
    /// Video, audio, or another kind of track.
    public enum Kind: Sendable, Equatable { case video, audio, other }
    /// The track's kind.
    public var kind: Kind
    /// nil when the sample entry is not one a playlist can name.
    public var codec: String?
    /// Video: the stored picture's width.
    public var storedWidth: Int?
    /// Video: the stored picture's height.
    public var storedHeight: Int?
    /// Video: the pixels' shape, when declared.
    public var pixelAspect: PixelAspect?
    /// Video: the rotation players apply.
    public var rotation: DisplayRotation
    /// ISO 639-2 from `mdhd` ("eng"), nil when "und".
    public var language: String?
    /// Audio: the number of channels.
    public var channels: Int?
    /// The track's timescale (`mdhd`), ticks per second.
    public var timescale: Int?

    /// The displayed size: pixel shape applied, then rotation.
    public var displaySize: (width: Int, height: Int)? {
        guard let w = storedWidth, let h = storedHeight, w > 0, h > 0 else { return nil }
        let aspect = pixelAspect ?? PixelAspect(numerator: 1, denominator: 1)
        let shown = max(1, Int((Double(w) * Double(aspect.numerator) / Double(aspect.denominator)).rounded()))
        return rotation.displaySize(storedWidth: shown, storedHeight: h)
    }

    /// The tracks of `bytes` (ftyp + moov), in order; nil when the boxes do not parse.
    public static func tracks(ofInitializationSegment bytes: [UInt8]) -> [InitializationTrack]? {
        let reader = BoxReader(bytes)
        guard let moov = reader.children(of: 0..<bytes.count)?.first(where: { $0.type == "moov" }),
              let traks = reader.children(of: moov.body)?.filter({ $0.type == "trak" }) else { return nil }
        return traks.map { reader.track($0.body) }
    }
}

/// Reads ISO BMFF boxes of a byte array: enough to reach a track's sample entry.
private struct BoxReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    struct Box {
        var type: String
        var body: Range<Int>
    }

    func u8(_ at: Int) -> Int { Int(bytes[at]) }
    func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + $1]) } }

    /// The boxes in `range`; nil when a size runs past it.
    func children(of range: Range<Int>) -> [Box]? {
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(u32(offset))
            var header = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else { return nil }
                size = Int(UInt64(u32(offset + 8)) << 32 | UInt64(u32(offset + 12)))
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, offset + size <= range.upperBound else { return nil }
            boxes.append(Box(type: String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), body: (offset + header)..<(offset + size)))
            offset += size
        }
        return boxes
    }

    func child(_ type: String, in range: Range<Int>) -> Box? { children(of: range)?.first { $0.type == type } }

    func path(_ types: [String], in range: Range<Int>) -> Box? {
        var current = Box(type: "", body: range)
        for type in types {
            guard let next = child(type, in: current.body) else { return nil }
            current = next
        }
        return current
    }

    func track(_ trak: Range<Int>) -> InitializationTrack {
        var track = InitializationTrack(kind: .other, codec: nil, rotation: .upright)
        if let tkhd = child("tkhd", in: trak), tkhd.body.count >= 84 {
            // Version 1 widens the times: the matrix sits 12 bytes later.
            let matrix = tkhd.body.lowerBound + (u8(tkhd.body.lowerBound) == 1 ? 52 : 40)
            if matrix + 16 <= tkhd.body.upperBound {
                let b = Int32(bitPattern: u32(matrix + 4)), c = Int32(bitPattern: u32(matrix + 12)), a = Int32(bitPattern: u32(matrix))
                // FFmpeg's "rotate" convention: b > 0, c < 0 is a quarter turn clockwise.
                track.rotation = DisplayRotation(clockwiseQuarterTurns: b > 0 && c < 0 ? 1 : b < 0 && c > 0 ? 3 : a < 0 ? 2 : 0)
            }
        }
        if let mdhd = path(["mdia", "mdhd"], in: trak), mdhd.body.count >= 24 {
            let v1 = u8(mdhd.body.lowerBound) == 1
            let base = mdhd.body.lowerBound + (v1 ? 20 : 12)
            if base + 4 + (v1 ? 8 : 4) + 2 <= mdhd.body.upperBound {
                track.timescale = Int(u32(base))
                let packed = u16(base + 4 + (v1 ? 8 : 4))
                let letters = [(packed >> 10) & 31, (packed >> 5) & 31, packed & 31].map { Character(Unicode.Scalar(UInt8($0 + 0x60))) }
                let code = String(letters)
                track.language = code == "und" || !code.allSatisfy(\.isLetter) ? nil : code
            }
        }
        if let hdlr = path(["mdia", "hdlr"], in: trak), hdlr.body.count >= 12 {
            let handler = String(decoding: bytes[(hdlr.body.lowerBound + 8)..<(hdlr.body.lowerBound + 12)], as: UTF8.self)
            track.kind = handler == "vide" ? .video : handler == "soun" ? .audio : .other
        }
        guard let stsd = path(["mdia", "minf", "stbl", "stsd"], in: trak), stsd.body.count >= 8,
              let entry = children(of: (stsd.body.lowerBound + 8)..<stsd.body.upperBound)?.first else { return track }
        switch track.kind {
        case .video: describeVideo(entry, into: &track)
        case .audio: describeAudio(entry, into: &track)
        case .other: break
        }
        return track
    }

    /// A VisualSampleEntry: 78 bytes of fields (size at 24), then its boxes.
    func describeVideo(_ entry: Box, into track: inout InitializationTrack) {
        let start = entry.body.lowerBound
        guard entry.body.count >= 78 else { return }
        track.storedWidth = u16(start + 24)
        track.storedHeight = u16(start + 26)
        let boxes = children(of: (start + 78)..<entry.body.upperBound) ?? []
        if let pasp = boxes.first(where: { $0.type == "pasp" }), pasp.body.count >= 8 {
            track.pixelAspect = PixelAspect(numerator: Int(u32(pasp.body.lowerBound)), denominator: Int(u32(pasp.body.lowerBound + 4)))
        }
        func body(_ type: String) -> [UInt8]? { boxes.first { $0.type == type }.map { Array(bytes[$0.body]) } }
        switch entry.type {
        case "avc1", "avc3": track.codec = body("avcC").flatMap { CodecStrings.avc(entry.type, record: $0) }
        case "hvc1", "hev1": track.codec = body("hvcC").flatMap { CodecStrings.hevc(entry.type, record: $0) }
        case "vp09": track.codec = body("vpcC").flatMap(CodecStrings.vp9)
        case "av01": track.codec = body("av1C").flatMap(CodecStrings.av1)
        default: break
        }
    }

    /// An AudioSampleEntry: 28 bytes (16 or 36 more in QuickTime's versions 1 and 2), then its boxes.
    func describeAudio(_ entry: Box, into track: inout InitializationTrack) {
        let start = entry.body.lowerBound
        guard entry.body.count >= 28 else { return }
        track.channels = u16(start + 16)
        let version = u16(start + 8)
        let boxesStart = start + 28 + (version == 1 ? 16 : version == 2 ? 36 : 0)
        let boxes = boxesStart <= entry.body.upperBound ? children(of: boxesStart..<entry.body.upperBound) ?? [] : []
        switch entry.type {
        case "mp4a": track.codec = boxes.first { $0.type == "esds" }.flatMap { CodecStrings.mpeg4Audio(esds: Array(bytes[$0.body])) }
        case "Opus": track.codec = "opus"
        case "fLaC": track.codec = "flac"
        case "ac-3": track.codec = "ac-3"
        case "ec-3": track.codec = "ec-3"
        default: break
        }
    }
}

/// The codec strings themselves, from each format's configuration record.
enum CodecStrings {
    static func hex2(_ value: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[(value >> 4) & 15], digits[value & 15]])
    }

    /// avcC: version, profile, compatibility, level, length size, then the SPS list.
    static func avc(_ entry: String, record: [UInt8]) -> String? {
        guard record.count >= 7, record[0] == 1 else { return nil }
        var profile = Int(record[1]), constraints = Int(record[2]), level = Int(record[3])
        var offset = 6
        var first = true
        for _ in 0..<Int(record[5] & 0x1F) {
            guard offset + 2 <= record.count else { return nil }
            let size = Int(record[offset]) << 8 | Int(record[offset + 1])
            guard size >= 4, offset + 2 + size <= record.count else { return nil }
            let sps = record[(offset + 2)...]
            if first {
                (profile, constraints, level) = (Int(sps[sps.startIndex + 1]), Int(sps[sps.startIndex + 2]), Int(sps[sps.startIndex + 3]))
                first = false
            } else {
                level = max(level, Int(sps[sps.startIndex + 3]))
            }
            offset += 2 + size
        }
        return "\(entry).\(hex2(profile))\(hex2(constraints))\(hex2(level))"
    }

    /// hvcC (ISO/IEC 14496-15 §8.3.3.1): the general profile, tier, level and flags at bytes 1…12.
    static func hevc(_ entry: String, record: [UInt8]) -> String? {
        guard record.count >= 23, record[0] == 1 else { return nil }
        let space = Int(record[1] >> 6), tier = Int(record[1] >> 5) & 1, profile = Int(record[1] & 0x1F)
        let compatibility = (2..<6).reduce(UInt32(0)) { $0 << 8 | UInt32(record[$1]) }
        var reversed: UInt32 = 0
        for bit in 0..<32 where compatibility & (1 << UInt32(bit)) != 0 { reversed |= 1 << UInt32(31 - bit) }
        var constraints = Array(record[6..<12])
        while constraints.last == 0 { constraints.removeLast() }
        let spaceLetter = ["", "A", "B", "C"][space]
        var text = "\(entry).\(spaceLetter)\(profile).\(String(reversed, radix: 16, uppercase: true)).\(tier == 1 ? "H" : "L")\(Int(record[12]))"
        for byte in constraints { text += "." + hex2(Int(byte)).uppercased() }
        return text
    }

    /// vpcC (a full box): profile, level, then bit depth in the high nibble.
    static func vp9(_ record: [UInt8]) -> String? {
        guard record.count >= 7 else { return nil }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "vp09.\(two(Int(record[4]))).\(two(Int(record[5]))).\(two(Int(record[6] >> 4)))"
    }

    /// av1C: marker/version, then seq_profile and seq_level_idx_0, then tier and bit depth flags.
    static func av1(_ record: [UInt8]) -> String? {
        guard record.count >= 4, record[0] & 0x80 != 0 else { return nil }
        let profile = Int(record[1] >> 5), level = Int(record[1] & 0x1F)
        let tier = record[2] & 0x80 != 0, high = record[2] & 0x40 != 0, twelve = record[2] & 0x20 != 0
        let depth = high ? (profile == 2 && twelve ? 12 : 10) : 8
        return "av01.\(profile).\(level < 10 ? "0" : "")\(level)\(tier ? "H" : "M").\(depth < 10 ? "0" : "")\(depth)"
    }

    /// esds (a full box): ES_Descriptor (tag 3) → DecoderConfigDescriptor (tag 4: object type)
    /// → DecoderSpecificInfo (tag 5: the AudioSpecificConfig, whose first 5 bits are the object type).
    static func mpeg4Audio(esds: [UInt8]) -> String? {
        var offset = 4
        func descriptor() -> (tag: UInt8, body: Range<Int>)? {
            guard offset < esds.count else { return nil }
            let tag = esds[offset]
            offset += 1
            var size = 0
            for _ in 0..<4 {
                guard offset < esds.count else { return nil }
                let byte = esds[offset]
                offset += 1
                size = size << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            guard offset + size <= esds.count else { return nil }
            return (tag, offset..<(offset + size))
        }
        guard let es = descriptor(), es.tag == 3, es.body.count >= 3 else { return nil }
        let flags = esds[es.body.lowerBound + 2]
        offset = es.body.lowerBound + 3 + (flags & 0x80 != 0 ? 2 : 0)
        if flags & 0x40 != 0, offset < esds.count { offset += 1 + Int(esds[offset]) }
        if flags & 0x20 != 0 { offset += 2 }
        guard let config = descriptor(), config.tag == 4, config.body.count >= 13 else { return nil }
        let objectType = Int(esds[config.body.lowerBound])
        guard objectType == 0x40 else { return "mp4a.\(hex2(objectType).uppercased())" }
        offset = config.body.lowerBound + 13
        guard let specific = descriptor(), specific.tag == 5, specific.body.count >= 1 else { return "mp4a.40.2" }
        var audioObjectType = Int(esds[specific.body.lowerBound] >> 3)
        if audioObjectType == 31, specific.body.count >= 2 {
            audioObjectType = 32 + (Int(esds[specific.body.lowerBound] & 7) << 3 | Int(esds[specific.body.lowerBound + 1] >> 5))
        }
        return "mp4a.40.\(audioObjectType)"
    }
}
