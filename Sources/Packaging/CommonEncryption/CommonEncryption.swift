/// Common Encryption (ISO/IEC 23001-7) of a presentation's CMAF segments, as a transform of finished bytes: the
/// initialization segment FFmpeg's movenc writes and the media segments `MediaSegmentWriter` writes go in clear and
/// come out encrypted, with nothing else about them changed.
///
/// ```
/// let keys = try ContentKeySet.read(fromFile: "lecture.key")
/// let protected = try CommonEncryption(scheme: .cbcs, keys: keys).protect(initialization: initBytes)
/// write(protected.initialization)                       // encv/enca + sinf (frma, schm, schi/tenc), pssh in moov
/// write(try protected.encrypt(segment: segmentBytes))   // per traf: saiz, saio, senc; samples encrypted in mdat
/// ```
/// Encrypting a segment is a pure function of its bytes, the key and the initialization segment (IVs are derived:
/// `SampleIVs`), so segment k encrypted alone, again, or by another process is byte for byte the same.
///
/// H.264 video and AAC audio tracks are encrypted; a text track (WebVTT) is left clear; any other video or audio
/// codec is refused (`MP4StructureError.unsupported`) rather than encrypted in a way players could not read.
public struct CommonEncryption: Sendable {
    public let scheme: EncryptionScheme
    public let keys: ContentKeySet
    /// The `pssh` boxes written into the `moov`: W3C Clear Key's and the common system's (both listing the key IDs),
    /// then each one the key file's CPIX document carries.
    public var protectionSystemHeaders: [ProtectionSystemHeader]

    public init(scheme: EncryptionScheme, keys: ContentKeySet) {
        self.scheme = scheme
        self.keys = keys
        let keyIDs = keys.keys.map(\.keyID)
        var headers = [ProtectionSystemHeader.clearKey(keyIDs: keyIDs), .commonSystem(keyIDs: keyIDs)]
        for system in keys.drmSystems {
            if let pssh = system.pssh, !headers.contains(pssh) { headers.append(pssh) }
        }
        protectionSystemHeaders = headers
    }

    /// The initialization segment encrypted, and what encrypting its media segments needs.
    public func protect(initialization: [UInt8]) throws -> ProtectedInitialization {
        var boxes = try Box.parse(initialization)
        guard let moovIndex = boxes.firstIndex(where: { $0.type == "moov" }) else {
            throw MP4StructureError.malformed("moov", "the initialization segment has no moov box")
        }
        var moov = boxes[moovIndex]
        var tracks = try TrackDescription.tracks(of: moov)
        var trackKeys: [UInt32: ContentKey] = [:]
        var trakNumber = 0
        for index in moov.children.indices where moov.children[index].type == "trak" {
            let location = "moov/trak[\(trakNumber + 1)]"
            var track = tracks[trakNumber]
            trakNumber += 1
            guard let kind = try encryptedKind(of: track, location: location) else { continue }
            let key = keys.key(for: kind)
            let pattern = scheme.pattern(for: kind)
            let constantIV = scheme.perSampleIVSize == 0 ? try SampleIVs.cbcsConstantIV(key: key) : nil
            let protection = TrackProtection(scheme: scheme, keyID: key.keyID, perSampleIVSize: scheme.perSampleIVSize,
                                             constantIV: constantIV, pattern: pattern)
            try moov.children[index].modifyDescendant(["mdia", "minf", "stbl", "stsd"]) { stsd throws(MP4StructureError) in
                for entry in stsd.children.indices {
                    stsd.children[entry] = try Self.protectedSampleEntry(stsd.children[entry], kind: kind, protection: protection,
                                                                         location: location + "/mdia/minf/stbl/stsd")
                }
            }
            track.protection = protection
            tracks[trakNumber - 1] = track
            trackKeys[track.trackID] = key
        }
        guard !trackKeys.isEmpty else { throw MP4StructureError.unsupported("moov", "no video or audio track to encrypt") }
        moov.children += protectionSystemHeaders.map(\.box)
        boxes[moovIndex] = moov
        return ProtectedInitialization(scheme: scheme, initialization: boxes.flatMap(\.bytes), tracks: tracks, keys: trackKeys)
    }

    /// The kind a track is encrypted as, nil for a track left clear; a codec this packager cannot encrypt throws.
    private func encryptedKind(of track: TrackDescription, location: String) throws(MP4StructureError) -> TrackKind? {
        if track.protection != nil { throw .unsupported(location, "the track is encrypted already") }
        switch (track.kind, track.format) {
        case (.video, "avc1"), (.video, "avc3"): return .video
        case (.audio, "mp4a"): return .audio
        case (.video, let format):
            throw .unsupported(location, "\(format) video: Common Encryption is built for H.264 (avc1) only; its subsamples need the codec's slice headers")
        case (.audio, let format):
            throw .unsupported(location, "\(format) audio: Common Encryption is built for AAC (mp4a) only")
        default:
            return nil
        }
    }

    /// `avc1` → `encv`, `mp4a` → `enca`, with `sinf` (`frma`, `schm`, `schi/tenc`) after the entry's own boxes.
    private static func protectedSampleEntry(_ entry: Box, kind: TrackKind, protection: TrackProtection, location: String) throws(MP4StructureError) -> Box {
        guard entry.isContainer else { throw .unsupported("\(location)/\(entry.type)", "a sample entry this packager cannot read") }
        var protected = entry
        protected.type = kind == .video ? "encv" : "enca"
        protected.children.append(sinf(originalFormat: entry.type, protection: protection))
        return protected
    }

    static func sinf(originalFormat: FourCC, protection: TrackProtection) -> Box {
        var schm = ByteWriter()
        schm.fourCC(protection.scheme.schemeType)
        schm.u32(0x0001_0000)  // scheme_version 1.0

        // tenc (§8.2.2): version 1 carries the pattern (cbcs), version 0 has a reserved byte there.
        var tenc = ByteWriter()
        let patterned = protection.scheme == .cbcs
        tenc.u8(0)
        tenc.u8(patterned ? UInt8(protection.pattern.crypt << 4 | protection.pattern.skip) : 0)
        tenc.u8(1)  // default_isProtected
        tenc.u8(UInt8(protection.perSampleIVSize))
        tenc.append(protection.keyID.bytes)
        if let constantIV = protection.constantIV {
            tenc.u8(UInt8(constantIV.count))
            tenc.append(constantIV)
        }
        return .container("sinf", [
            .leaf("frma", originalFormat.bytes),
            .fullLeaf("schm", version: 0, flags: 0, body: schm.bytes),
            .container("schi", [.fullLeaf("tenc", version: patterned ? 1 : 0, flags: 0, body: tenc.bytes)]),
        ])
    }
}
