/// Decrypts what `CommonEncryption` wrote (or any `cenc`/`cbcs` CMAF segment of H.264 and AAC), written from
/// ISO/IEC 23001-7 without a player: each sample's IV and subsamples are read where a player reads them — through
/// `saiz` and `saio` (so a wrong `saio` offset shows), checked against `senc` —, the samples decrypted in place, and
/// the encryption boxes removed. A round trip gives back the clear bytes exactly; tests and `verify`-style tools use it.
public struct CommonDecryption: Sendable {
    public let tracks: [TrackDescription]
    private let keys: ContentKeySet

    /// Reads the encrypted initialization segment's tracks; every encrypted track's key ID must be in `keys`.
    public init(initialization: [UInt8], keys: ContentKeySet) throws {
        tracks = try TrackDescription.tracks(ofInitialization: initialization)
        for track in tracks {
            if let protection = track.protection, !keys.keys.contains(where: { $0.keyID == protection.keyID }) {
                throw MP4StructureError.malformed("moov/trak (track \(track.trackID))", "encrypted with key \(protection.keyID), which the key set lacks")
            }
        }
        self.keys = keys
    }

    /// The initialization segment as it was before encryption: sample entries back to their original format, `sinf`
    /// and the `moov`'s `pssh` boxes removed.
    public static func clearInitialization(_ bytes: [UInt8]) throws -> [UInt8] {
        var boxes = try Box.parse(bytes)
        guard let moovIndex = boxes.firstIndex(where: { $0.type == "moov" }) else {
            throw MP4StructureError.malformed("moov", "the initialization segment has no moov box")
        }
        boxes[moovIndex].children.removeAll { $0.type == "pssh" }
        for index in boxes[moovIndex].children.indices where boxes[moovIndex].children[index].type == "trak" {
            boxes[moovIndex].children[index].modifyDescendant(["mdia", "minf", "stbl", "stsd"]) { stsd in
                for entry in stsd.children.indices {
                    guard let sinf = stsd.children[entry].child("sinf"), let frma = sinf.child("frma"), frma.fields.count == 4 else { continue }
                    stsd.children[entry].type = FourCC(value: frma.fields.reduce(0) { $0 << 8 | UInt32($1) })
                    stsd.children[entry].children.removeAll { $0.type == "sinf" }
                }
            }
        }
        return boxes.flatMap(\.bytes)
    }

    /// The media segment decrypted, its `saiz`, `saio` and `senc` boxes removed and data offsets moved back.
    public func decrypt(segment bytes: [UInt8]) throws -> [UInt8] {
        var fragments = try MovieFragment.fragments(in: bytes, tracks: tracks)
        var media = bytes
        for f in fragments.indices {
            for trackFragment in fragments[f].trackFragments {
                guard let track = tracks.first(where: { $0.trackID == trackFragment.trackID }), let protection = track.protection,
                      let key = keys.keys.first(where: { $0.keyID == protection.keyID }) else { continue }
                let traf = fragments[f].moof.children[trackFragment.childIndex]
                let entries = try Self.auxiliaryInformation(traf, in: bytes, moofStart: fragments[f].start, protection: protection,
                                                            sampleCount: trackFragment.samples.count, location: trackFragment.location)
                let cipher = try SampleCipher(scheme: protection.scheme, pattern: protection.pattern, key: key, encrypting: false)
                for (sample, entry) in zip(trackFragment.samples, entries) {
                    let covered = entry.subsamples.reduce(0) { $0 + Int($1.clearBytes) + Int($1.protectedBytes) }
                    guard entry.subsamples.isEmpty || covered == sample.range.count else {
                        throw MP4StructureError.malformed(trackFragment.location, "subsamples cover \(covered) bytes of a \(sample.range.count)-byte sample")
                    }
                    let iv = entry.iv.isEmpty ? protection.constantIV ?? [] : entry.iv + [UInt8](repeating: 0, count: 16 - entry.iv.count)
                    guard iv.count == 16 else { throw MP4StructureError.malformed(trackFragment.location, "a sample without an IV") }
                    try cipher.apply(to: &media, range: sample.range, iv: iv, subsamples: entry.subsamples)
                }
                fragments[f].moof.children[trackFragment.childIndex].children.removeAll { ["saiz", "saio", "senc"].contains($0.type) }
            }
            fragments[f].shiftDataOffsets(by: fragments[f].moof.size - fragments[f].originalSize)
        }
        return ProtectedInitialization.reassemble(media, replacing: fragments)
    }

    /// Each sample's IV and subsamples, read through `saiz` and `saio` and checked against `senc`.
    private static func auxiliaryInformation(_ traf: Box, in bytes: [UInt8], moofStart: Int, protection: TrackProtection,
                                             sampleCount: Int, location: String) throws(MP4StructureError) -> [SampleEncryptionEntry] {
        guard let saiz = traf.child("saiz"), let saio = traf.child("saio"), let senc = traf.child("senc") else {
            throw .malformed(location, "an encrypted track fragment without saiz, saio and senc")
        }
        var reader = ByteReader(saiz.fields, location: location + "/saiz")
        try reader.skip(saiz.flags & 1 != 0 ? 12 : 4)
        let defaultSize = Int(try reader.u8())
        guard Int(try reader.u32()) == sampleCount else { throw .malformed(location + "/saiz", "the sample count differs from the track runs'") }
        var sizes = [Int](repeating: defaultSize, count: sampleCount)
        if defaultSize == 0 { sizes = try reader.bytes(sampleCount).map(Int.init) }

        reader = ByteReader(saio.fields, location: location + "/saio")
        try reader.skip(saio.flags & 1 != 0 ? 12 : 4)
        guard try reader.u32() == 1 else { throw .unsupported(location + "/saio", "auxiliary information in more than one run") }
        let offset = saio.version == 0 ? Int(try reader.u32()) : Int(try reader.u64())

        var entries: [SampleEncryptionEntry] = []
        var at = moofStart + offset
        for size in sizes {
            guard at >= 0, size <= bytes.count - at else { throw .malformed(location + "/saio", "the auxiliary information lies outside the segment") }
            var entryReader = ByteReader(bytes, range: at..<at + size, location: location + "/saio → senc")
            let iv = try entryReader.bytes(protection.perSampleIVSize)
            var subsamples: [Subsample] = []
            if entryReader.remaining > 0 {
                let count = Int(try entryReader.u16())
                for _ in 0..<count { subsamples.append(Subsample(clearBytes: try entryReader.u16(), protectedBytes: try entryReader.u32())) }
            }
            entries.append(SampleEncryptionEntry(iv: iv, subsamples: subsamples))
            at += size
        }

        // senc says the same: its sample count, and entry by entry the bytes saio pointed at.
        reader = ByteReader(senc.fields, location: location + "/senc")
        try reader.skip(4)
        guard Int(try reader.u32()) == sampleCount else { throw .malformed(location + "/senc", "the sample count differs from the track runs'") }
        for entry in entries {
            var expected = ByteWriter()
            entry.write(into: &expected, usesSubsamples: senc.flags & 2 != 0)
            guard try reader.bytes(expected.count) == expected.bytes else {
                throw .malformed(location + "/senc", "its entries differ from what saio points at")
            }
        }
        return entries
    }
}
