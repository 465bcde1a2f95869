/// An encrypted initialization segment and the state its media segments are encrypted with: made once per rendition
/// (`CommonEncryption.protect(initialization:)`), then `encrypt(segment:)` for each media segment, in any order and
/// from any thread.
public struct ProtectedInitialization: Sendable {
    public let scheme: EncryptionScheme
    /// The encrypted initialization segment's bytes.
    public let initialization: [UInt8]
    /// Its tracks; `protection` is set on the encrypted ones.
    public let tracks: [TrackDescription]
    /// The key of each encrypted track.
    let keys: [UInt32: ContentKey]

    init(scheme: EncryptionScheme, initialization: [UInt8], tracks: [TrackDescription], keys: [UInt32: ContentKey]) {
        self.scheme = scheme
        self.initialization = initialization
        self.tracks = tracks
        self.keys = keys
    }

    /// The key IDs of the encrypted tracks (one, unless a CPIX document gives audio and video their own keys).
    public var keyIDs: [KeyID] {
        var seen: [KeyID] = []
        for track in tracks { if let id = track.protection?.keyID, !seen.contains(id) { seen.append(id) } }
        return seen
    }

    /// A media segment (`moof` + `mdat`, several pairs allowed, `styp`/`sidx`/`prft`/`emsg` in front kept as they are)
    /// with every encrypted track's samples encrypted in place and `saiz`, `saio`, `senc` added to its track fragments;
    /// track run data offsets are moved by what the `moof` grew. Deterministic (see `SampleIVs`).
    public func encrypt(segment bytes: [UInt8]) throws -> [UInt8] {
        var fragments = try MovieFragment.fragments(in: bytes, tracks: tracks)
        guard !fragments.isEmpty else { throw MP4StructureError.malformed("moof", "the media segment has no moof box") }
        let digest = try Digest.sha256(bytes)
        var media = bytes
        var sampleCounts: [UInt32: Int] = [:]
        for f in fragments.indices {
            for trackFragment in fragments[f].trackFragments {
                guard let track = tracks.first(where: { $0.trackID == trackFragment.trackID }),
                      let protection = track.protection, let key = keys[track.trackID], !trackFragment.samples.isEmpty else { continue }
                if trackFragment.isEncrypted {
                    throw MP4StructureError.unsupported(trackFragment.location, "the track fragment is encrypted already (senc, saiz or saio)")
                }
                let cipher = try SampleCipher(scheme: scheme, pattern: protection.pattern, key: key, encrypting: true)
                var splitter = track.avc.map { H264Subsamples(scheme: scheme, nalLengthSize: $0.nalLengthSize, parameterSets: $0.parameterSets) }
                var entries: [SampleEncryptionEntry] = []
                entries.reserveCapacity(trackFragment.samples.count)
                for sample in trackFragment.samples {
                    let index = sampleCounts[track.trackID, default: 0]
                    sampleCounts[track.trackID] = index + 1
                    let location = "\(trackFragment.location), sample \(entries.count + 1)"
                    let subsamples = try splitter?.subsamples(of: media, range: sample.range, location: location) ?? []
                    let iv = try protection.constantIV
                        ?? SampleIVs.cencSampleIV(key: key, segmentDigest: digest, trackID: track.trackID, sampleIndex: index)
                    try cipher.apply(to: &media, range: sample.range, iv: iv, subsamples: subsamples)
                    let entry = SampleEncryptionEntry(iv: protection.perSampleIVSize > 0 ? iv : [], subsamples: subsamples)
                    guard entry.auxiliarySize(usesSubsamples: splitter != nil) <= Int(UInt8.max) else {
                        throw MP4StructureError.unsupported(location, "\(subsamples.count) subsamples (slices): more than saiz's 255 bytes of information per sample")
                    }
                    entries.append(entry)
                }
                fragments[f].moof.children[trackFragment.childIndex].children +=
                    AuxiliaryInformation.boxes(entries, usesSubsamples: splitter != nil)
            }
            fragments[f].shiftDataOffsets(by: fragments[f].moof.size - fragments[f].originalSize)
            for trackFragment in fragments[f].trackFragments {
                guard let senc = fragments[f].offsetOfPayload(of: "senc", inTrackFragmentAt: trackFragment.childIndex) else { continue }
                // The first sample's auxiliary information follows senc's version, flags and sample count.
                AuxiliaryInformation.setOffset(senc + 8, in: &fragments[f].moof.children[trackFragment.childIndex])
            }
        }
        return Self.reassemble(media, replacing: fragments)
    }

    /// The segment's top-level boxes with each `moof` replaced by its rewritten one, the rest (the `mdat`s with their
    /// encrypted or decrypted samples) taken from `media`.
    static func reassemble(_ media: [UInt8], replacing fragments: [MovieFragment]) -> [UInt8] {
        var out = ByteWriter(capacity: media.count + fragments.reduce(0) { $0 + max(0, $1.moof.size - $1.originalSize) })
        var at = 0
        for fragment in fragments {
            out.append(media[at..<fragment.start])
            fragment.moof.write(into: &out)
            at = fragment.start + fragment.originalSize
        }
        out.append(media[at...])
        return out.bytes
    }
}

/// A track fragment's sample auxiliary information boxes (ISO/IEC 23001-7 §7, ISO/IEC 14496-12 §8.7.8–9), in the
/// order shaka-packager and Bento4 write them: `saiz`, `saio`, then `senc`, whose entries `saio` points at.
enum AuxiliaryInformation {
    static func boxes(_ entries: [SampleEncryptionEntry], usesSubsamples: Bool) -> [Box] {
        let sizes = entries.map { $0.auxiliarySize(usesSubsamples: usesSubsamples) }
        var saiz = ByteWriter()
        let uniform = sizes.allSatisfy { $0 == sizes.first } && (sizes.first ?? 0) > 0
        saiz.u8(uniform ? UInt8(sizes[0]) : 0)  // default_sample_info_size
        saiz.u32(UInt32(entries.count))
        if !uniform { for size in sizes { saiz.u8(UInt8(size)) } }  // each at most 255, checked by the caller

        var saio = ByteWriter()
        saio.u32(1)  // entry_count: one run of contiguous information, in senc
        saio.u32(0)  // set once the moof's layout is known

        var senc = ByteWriter()
        senc.u32(UInt32(entries.count))
        for entry in entries { entry.write(into: &senc, usesSubsamples: usesSubsamples) }
        return [
            .fullLeaf("saiz", version: 0, flags: 0, body: saiz.bytes),
            .fullLeaf("saio", version: 0, flags: 0, body: saio.bytes),
            .fullLeaf("senc", version: 0, flags: usesSubsamples ? 0x02 : 0, body: senc.bytes),
        ]
    }

    /// Writes the `saio` offset (from the `moof`'s first byte) into a track fragment.
    static func setOffset(_ offset: Int, in traf: inout Box) {
        guard let index = traf.children.firstIndex(where: { $0.type == "saio" }) else { return }
        let value = UInt32(offset)
        traf.children[index].fields.replaceSubrange(8..<12, with: [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                                                                  UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
