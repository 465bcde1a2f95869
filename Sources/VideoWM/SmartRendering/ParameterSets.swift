/// Byte-level edits that make re-encoded spans splice legally: the sample entry's parameter sets,
/// in-band parameter sets, HEVC's CRA → BLA rewrite and Annex B → length-prefixed framing.
/// The reasons are in docs/design/smart-rendering.md, section 5.

/// Raw NAL units (header byte first, no start code or length).
typealias NALUnit = [UInt8]

/// The NAL units of an Annex B byte string (an encoder's global header, an Annex B packet).
func annexBUnits(_ bytes: [UInt8]) -> [NALUnit] {
    bytes.withUnsafeBytes { raw in nalUnitRanges(in: raw, framing: .annexB).map { Array(bytes[$0]) } }
}

/// `units` each behind a 4-byte big-endian length, as MP4 and Matroska store them.
func lengthPrefixed(_ units: [NALUnit]) -> [UInt8] {
    lengthPrefixed(units, lengthSize: 4)
}

enum ParameterSetError: Error, Equatable, CustomStringConvertible {
    case malformedRecord(String)
    case tooManySets
    /// Every H.264 SPS/PPS id the re-encoder could take (0…31) is the input's.
    case noFreeID

    var description: String {
        switch self {
        case .malformedRecord(let what): "the input's \(what) record is malformed"
        case .tooManySets: "the parameter sets do not fit in one avcC record"
        case .noFreeID: "the input's H.264 uses every parameter-set id from 0 to 31, leaving none for the re-encoded pictures"
        }
    }
}

/// An AVCDecoderConfigurationRecord (ISO/IEC 14496-15 avcC): the H.264 sample entry of MP4 and Matroska.
struct AVCConfigurationRecord: Equatable {
    var profile: UInt8
    var compatibility: UInt8
    var level: UInt8
    /// 1…4: the size of each NAL unit's length field in the samples.
    var lengthSize: Int
    var sequenceParameterSets: [NALUnit]
    var pictureParameterSets: [NALUnit]
    /// The High-profile tail (chroma format, bit depths, SPS extensions), kept as it was.
    var trailer: [UInt8]

    init(_ bytes: [UInt8]) throws(ParameterSetError) {
        guard bytes.count >= 7, bytes[0] == 1 else { throw .malformedRecord("avcC") }
        profile = bytes[1]
        compatibility = bytes[2]
        level = bytes[3]
        lengthSize = Int(bytes[4] & 3) + 1
        var offset = 6
        func units(count: Int) throws(ParameterSetError) -> [NALUnit] {
            var result: [NALUnit] = []
            for _ in 0..<count {
                guard offset + 2 <= bytes.count else { throw .malformedRecord("avcC") }
                let size = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                guard offset + 2 + size <= bytes.count, size > 0 else { throw .malformedRecord("avcC") }
                result.append(Array(bytes[offset + 2..<offset + 2 + size]))
                offset += 2 + size
            }
            return result
        }
        sequenceParameterSets = try units(count: Int(bytes[5] & 0x1F))
        offset = 6 + sequenceParameterSets.reduce(0) { $0 + 2 + $1.count }
        guard offset < bytes.count else { throw .malformedRecord("avcC") }
        let ppsCount = Int(bytes[offset])
        offset += 1
        pictureParameterSets = try units(count: ppsCount)
        trailer = Array(bytes[offset...])
    }

    var bytes: [UInt8] {
        var out: [UInt8] = [1, profile, compatibility, level, 0xFC | UInt8(lengthSize - 1), 0xE0 | UInt8(sequenceParameterSets.count)]
        for unit in sequenceParameterSets { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        out.append(UInt8(pictureParameterSets.count))
        for unit in pictureParameterSets { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        return out + trailer
    }

    /// This record with the encoder's SPS and PPS (from its Annex B global header) listed after the
    /// input's, so that copied samples keep using the input's ids and re-encoded ones the encoder's.
    /// The profile and level bytes stay the input's: the encoder is given the same ones.
    func adding(encoderHeader: [UInt8]) throws(ParameterSetError) -> AVCConfigurationRecord {
        var record = self
        for unit in annexBUnits(encoderHeader) {
            switch unit[0] & 0x1F {
            case 7: record.sequenceParameterSets.append(unit)
            case 8: record.pictureParameterSets.append(unit)
            default: continue
            }
        }
        guard record.sequenceParameterSets.count <= 31, record.pictureParameterSets.count <= 255 else { throw .tooManySets }
        return record
    }
}

/// H.264 parameter-set ids: which a stream's SPS and PPS use, and the one re-encoded pictures
/// take so that both pairs can sit side by side in one sample entry (x264's `sps-id`, which
/// gives its SPS and its PPS the same id). The one place that id is chosen.
enum H264ParameterSetIDs {
    /// The id an H.264 SPS or PPS carries (its first Exp-Golomb field after the header); nil for other units.
    static func id(of unit: NALUnit) -> Int? {
        guard let first = unit.first else { return nil }
        switch first & 0x1F {
        case 7: return H264SPS.id(of: unit)
        case 8:
            guard unit.count > 1 else { return nil }
            var reader = BitReader(bytes: Array(unit[1...]))
            return reader.unsignedExpGolomb()
        default: return nil
        }
    }

    /// The smallest id (0…31, the SPS's range) that no SPS or PPS among `units` uses.
    static func free(usedBy units: [NALUnit]) throws(ParameterSetError) -> Int {
        try free(avoiding: Set(units.compactMap(id(of:))))
    }

    /// The smallest id (0…31) not in `used`; throws when there is none, rather than reuse one.
    static func free(avoiding used: Set<Int>) throws(ParameterSetError) -> Int {
        guard let id = (0...31).first(where: { !used.contains($0) }) else { throw .noFreeID }
        return id
    }
}

enum H264SPS {
    /// seq_parameter_set_id: the first ue(v) after profile_idc, constraint flags and level_idc.
    static func id(of sps: NALUnit) -> Int? {
        guard sps.count > 4 else { return nil }
        var reader = BitReader(bytes: Array(sps[4...]))
        return reader.unsignedExpGolomb()
    }
}

/// Reads bits of a NAL unit payload (emulation prevention bytes are rare this early and ignored).
struct BitReader {
    let bytes: [UInt8]
    var position = 0

    mutating func bit() -> Int? {
        guard position / 8 < bytes.count else { return nil }
        let value = Int(bytes[position / 8] >> (7 - UInt8(position % 8))) & 1
        position += 1
        return value
    }

    mutating func unsignedExpGolomb() -> Int? {
        var zeros = 0
        while let b = bit(), b == 0 {
            zeros += 1
            if zeros > 31 { return nil }
        }
        var value = 1
        for _ in 0..<zeros {
            guard let b = bit() else { return nil }
            value = value << 1 | b
        }
        return value - 1
    }
}

/// The parameter-set units of an hvcC record (VPS, SPS, PPS, in the record's order), to send in band.
func hevcRecordParameterSets(_ bytes: [UInt8]) throws(ParameterSetError) -> [NALUnit] {
    guard bytes.count >= 23, bytes[0] == 1 else { throw .malformedRecord("hvcC") }
    var offset = 23
    var units: [NALUnit] = []
    for _ in 0..<Int(bytes[22]) {
        guard offset + 3 <= bytes.count else { throw .malformedRecord("hvcC") }
        let count = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
        offset += 3
        for _ in 0..<count {
            guard offset + 2 <= bytes.count else { throw .malformedRecord("hvcC") }
            let size = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard offset + 2 + size <= bytes.count else { throw .malformedRecord("hvcC") }
            units.append(Array(bytes[offset + 2..<offset + 2 + size]))
            offset += 2 + size
        }
    }
    return units.filter { (32...34).contains(Int($0[0] >> 1) & 0x3F) }
}

/// A length-prefixed HEVC packet whose CRA slice units become `blaType` (16–18): one header byte each.
func rewritingCRAToBLA(_ packet: [UInt8], lengthSize: Int, blaType: Int) -> [UInt8] {
    precondition((16...18).contains(blaType), "BLA NAL unit types are 16, 17 and 18")
    var out = packet
    let ranges = packet.withUnsafeBytes { nalUnitRanges(in: $0, framing: .lengthPrefixed(bytes: lengthSize)) }
    for range in ranges where Int(packet[range.lowerBound] >> 1) & 0x3F == 21 {
        out[range.lowerBound] = UInt8(blaType << 1) | (packet[range.lowerBound] & 1)
    }
    return out
}
