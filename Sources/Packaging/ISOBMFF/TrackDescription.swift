/// What the packager knows of one track of an initialization segment (`moov/trak`), clear or encrypted: enough to
/// encrypt or decrypt its media segments and to describe it in a manifest.
public struct TrackDescription: Sendable, Equatable {
    public var trackID: UInt32
    /// From the handler (`vide`, `soun`, `text`/`subt`/`wvtt`); nil for any other.
    public var kind: TrackKind?
    /// The media timescale (`mdhd`): ticks per second of `tfdt` and sample durations.
    public var timescale: UInt32
    /// The sample entry's format (`avc1`, `mp4a`…); for an encrypted entry, its original format (`frma`).
    public var format: FourCC
    /// H.264 tracks: the `avcC` record's NAL unit length size and parameter sets.
    var avc: AVCConfiguration?
    /// The track's `trex` defaults, used where a fragment's `tfhd` and `trun` give no value.
    var defaults = SampleDefaults()
    /// How the track is encrypted (`sinf/schi/tenc`), when it is.
    public var protection: TrackProtection?

    struct SampleDefaults: Sendable, Equatable {
        var duration: UInt32 = 0
        var size: UInt32 = 0
        var flags: UInt32 = 0
    }
}

/// An encrypted track's `schm` and `tenc` (ISO/IEC 23001-7 §8.2).
public struct TrackProtection: Sendable, Equatable {
    public var scheme: EncryptionScheme
    public var keyID: KeyID
    /// 0 with a constant IV, else 8 or 16.
    public var perSampleIVSize: Int
    public var constantIV: [UInt8]?
    /// Encrypted and skipped 16-byte blocks (`cbcs` video: 1 and 9; 0 and 0 for whole-block full-sample encryption).
    public var pattern: (crypt: Int, skip: Int)

    public static func == (a: TrackProtection, b: TrackProtection) -> Bool {
        a.scheme == b.scheme && a.keyID == b.keyID && a.perSampleIVSize == b.perSampleIVSize && a.constantIV == b.constantIV
            && a.pattern == b.pattern
    }
}

/// An H.264 decoder configuration record (`avcC`, ISO/IEC 14496-15 §5.3.3.1), the parts encryption needs.
struct AVCConfiguration: Sendable, Equatable {
    /// Bytes of each NAL unit's length prefix in the samples: 1, 2 or 4.
    var nalLengthSize: Int
    var parameterSets: H264ParameterSets

    init(record: [UInt8], location: String) throws(MP4StructureError) {
        var reader = ByteReader(record, location: location)
        guard try reader.u8() == 1 else { throw .unsupported(location, "avcC configuration version is not 1") }
        try reader.skip(3)  // profile, compatibility, level
        nalLengthSize = Int(try reader.u8() & 3) + 1
        guard nalLengthSize != 3 else { throw .malformed(location, "a NAL unit length size of 3 bytes") }
        parameterSets = H264ParameterSets()
        let sequenceCount = Int(try reader.u8() & 0x1F)
        for _ in 0..<sequenceCount { try readSet(&reader, record) }
        let pictureCount = Int(try reader.u8())
        for _ in 0..<pictureCount { try readSet(&reader, record) }
    }

    private mutating func readSet(_ reader: inout ByteReader, _ record: [UInt8]) throws(MP4StructureError) {
        let length = Int(try reader.u16())
        let start = reader.position
        try reader.skip(length)
        try parameterSets.read(nalUnit: record, range: start..<start + length, location: reader.location)
    }
}

extension TrackDescription {
    /// The tracks of an initialization segment's `moov`, in file order.
    public static func tracks(ofInitialization bytes: [UInt8]) throws(MP4StructureError) -> [TrackDescription] {
        guard let moov = try Box.parse(bytes).first(where: { $0.type == "moov" }) else {
            throw .malformed("moov", "the initialization segment has no moov box")
        }
        return try tracks(of: moov)
    }

    static func tracks(of moov: Box) throws(MP4StructureError) -> [TrackDescription] {
        var defaults: [UInt32: SampleDefaults] = [:]
        for trex in moov.child("mvex")?.children("trex") ?? [] {
            var reader = ByteReader(trex.fields, location: "moov/mvex/trex")
            try reader.skip(4)
            let id = try reader.u32()
            try reader.skip(4)  // default_sample_description_index
            defaults[id] = SampleDefaults(duration: try reader.u32(), size: try reader.u32(), flags: try reader.u32())
        }
        var tracks: [TrackDescription] = []
        for (n, trak) in moov.children("trak").enumerated() {
            let location = "moov/trak[\(n + 1)]"
            guard let tkhd = trak.child("tkhd") else { throw .malformed(location, "no tkhd") }
            var reader = ByteReader(tkhd.fields, location: location + "/tkhd")
            try reader.skip(tkhd.version == 1 ? 20 : 12)
            let trackID = try reader.u32()

            guard let mdhd = trak.descendant(["mdia", "mdhd"]) else { throw .malformed(location, "no mdia/mdhd") }
            reader = ByteReader(mdhd.fields, location: location + "/mdia/mdhd")
            try reader.skip(mdhd.version == 1 ? 20 : 12)
            let timescale = try reader.u32()

            guard let hdlr = trak.descendant(["mdia", "hdlr"]) else { throw .malformed(location, "no mdia/hdlr") }
            reader = ByteReader(hdlr.fields, location: location + "/mdia/hdlr")
            try reader.skip(8)
            let handler = FourCC(value: try reader.u32())
            let kind: TrackKind? = switch handler {
            case "vide": .video
            case "soun": .audio
            case "text", "subt", "sbtl": .text
            default: nil
            }

            guard let entry = trak.descendant(["mdia", "minf", "stbl", "stsd"])?.children.first else {
                throw .malformed(location, "no sample entry in mdia/minf/stbl/stsd")
            }
            let entryLocation = location + "/mdia/minf/stbl/stsd/\(entry.type)"
            var track = TrackDescription(trackID: trackID, kind: kind, timescale: timescale, format: entry.type,
                                         defaults: defaults[trackID] ?? SampleDefaults())
            if let sinf = entry.child("sinf") {
                (track.format, track.protection) = try protection(of: sinf, location: entryLocation + "/sinf")
            }
            if track.format == "avc1" || track.format == "avc3" {
                guard let avcC = entry.child("avcC") else { throw .malformed(entryLocation, "an H.264 sample entry without avcC") }
                track.avc = try AVCConfiguration(record: avcC.fields, location: entryLocation + "/avcC")
            }
            tracks.append(track)
        }
        return tracks
    }

    private static func protection(of sinf: Box, location: String) throws(MP4StructureError) -> (FourCC, TrackProtection) {
        guard let frma = sinf.child("frma"), frma.fields.count == 4 else { throw .malformed(location, "no frma") }
        let format = FourCC(value: frma.fields.reduce(0) { $0 << 8 | UInt32($1) })
        guard let schm = sinf.child("schm"), schm.fields.count >= 12 else { throw .malformed(location, "no schm") }
        let schemeType = FourCC(value: schm.fields[4..<8].reduce(0) { $0 << 8 | UInt32($1) })
        guard let scheme = EncryptionScheme(schemeType: schemeType) else {
            throw .unsupported(location + "/schm", "protection scheme '\(schemeType)' (cenc and cbcs are handled)")
        }
        guard let tenc = sinf.descendant(["schi", "tenc"]) else { throw .malformed(location, "no schi/tenc") }
        var reader = ByteReader(tenc.fields, location: location + "/schi/tenc")
        try reader.skip(5)
        let patternByte = try reader.u8()
        let pattern = tenc.version == 0 ? (0, 0) : (Int(patternByte >> 4), Int(patternByte & 15))
        let isProtected = try reader.u8()
        let ivSize = Int(try reader.u8())
        let keyID = KeyID(sixteen: try reader.bytes(16))
        guard isProtected == 1 else { throw .unsupported(location + "/schi/tenc", "a track marked unprotected") }
        guard [0, 8, 16].contains(ivSize) else { throw .malformed(location + "/schi/tenc", "a per-sample IV size of \(ivSize)") }
        var constantIV: [UInt8]?
        if ivSize == 0 {
            let size = Int(try reader.u8())
            guard size == 8 || size == 16 else { throw .malformed(location + "/schi/tenc", "a constant IV of \(size) bytes") }
            // An 8-byte constant IV is the first half of the counter block / CBC IV, zeros after it.
            constantIV = try reader.bytes(size) + [UInt8](repeating: 0, count: 16 - size)
        }
        return (format, TrackProtection(scheme: scheme, keyID: keyID, perSampleIVSize: ivSize, constantIV: constantIV, pattern: pattern))
    }
}
