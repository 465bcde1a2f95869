/// Writes one fMP4 media segment (ISO/IEC 14496-12 §8.8: `moof` with `mfhd` and one `traf` per
/// track, then `mdat`) from the samples it holds: a pure function of its samples, its sequence
/// number and each track's base decode time, so segment k made alone has the bytes of segment k
/// of the whole presentation (docs/design/hls.md §2).
///
/// The layout follows FFmpeg's movenc in `default_base_moof` mode, which the initialization
/// segment (`InitializationSegment`, FFmpeg's) declares: sample data offsets count from the
/// `moof`; each `traf` gives its track's defaults (`tfhd`), its first sample's decode time
/// (`tfdt`, version 1) and its samples (`trun`), and the tracks' data follow one another in the
/// `mdat` in track order.
enum MediaSegmentWriter {
    /// One sample (a picture, an audio frame) of a track, its timing in the track's timescale.
    struct Sample: Sendable, Equatable {
        var size: Int
        /// Until the next sample's decode time (the last of a segment: the packet's own duration).
        var duration: UInt32
        /// Presentation time minus decode time (negative only for a stream decoded after it is shown).
        var compositionOffset: Int32
        /// Decodes on its own (a keyframe; every audio frame).
        var isSync: Bool
    }

    /// One track's part of a segment.
    struct Track: Sendable, Equatable {
        /// 1-based, as the initialization segment numbers its tracks.
        var id: UInt32
        /// The first sample's decode time on the track's media timeline.
        var baseDecodeTime: UInt64
        var samples: [Sample]
        /// The samples' bytes, one after another (in the `mdat` as they are).
        var data: [UInt8]

        init(id: UInt32, baseDecodeTime: UInt64, samples: [Sample] = [], data: [UInt8] = []) {
            self.id = id
            self.baseDecodeTime = baseDecodeTime
            self.samples = samples
            self.data = data
        }

        mutating func append(_ bytes: UnsafeRawBufferPointer, duration: UInt32, compositionOffset: Int32, isSync: Bool) {
            samples.append(Sample(size: bytes.count, duration: duration, compositionOffset: compositionOffset, isSync: isSync))
            data.append(contentsOf: bytes)
        }
    }

    /// ISO/IEC 14496-12 §8.8.3.1 sample flags: a sync sample depends on no other; any other
    /// depends on others and is not a sync sample (what movenc writes).
    static let syncFlags: UInt32 = 0x0200_0000
    static let nonSyncFlags: UInt32 = 0x0101_0000

    /// `moof` + `mdat` for `tracks` (those without samples are left out), numbered `sequenceNumber` (1, 2, …).
    static func segment(sequenceNumber: UInt32, tracks: [Track]) -> [UInt8] {
        let tracks = tracks.filter { !$0.samples.isEmpty }.sorted { $0.id < $1.id }
        var trafs: [[UInt8]] = []
        var dataOffsetPositions: [Int] = []
        for track in tracks {
            let (box, offsetPosition) = trackFragment(track)
            trafs.append(box)
            dataOffsetPositions.append(offsetPosition)
        }
        let mfhd = fullBox("mfhd", version: 0, flags: 0, body: be32(sequenceNumber))
        let moofSize = 8 + mfhd.count + trafs.reduce(0) { $0 + $1.count }
        let dataSize = tracks.reduce(0) { $0 + $1.data.count }
        let mdatHeader: [UInt8] = dataSize + 8 <= Int(UInt32.max)
            ? be32(UInt32(dataSize + 8)) + Array("mdat".utf8)
            : be32(1) + Array("mdat".utf8) + be64(UInt64(dataSize + 16))
        // Each track's samples start after the moof, the mdat header and the tracks before it.
        var dataStart = moofSize + mdatHeader.count
        var moofBody = mfhd
        for (n, var traf) in trafs.enumerated() {
            traf.replaceSubrange(dataOffsetPositions[n]..<dataOffsetPositions[n] + 4, with: be32(UInt32(truncatingIfNeeded: dataStart)))
            moofBody += traf
            dataStart += tracks[n].data.count
        }
        var out = box("moof", body: moofBody)
        out.reserveCapacity(out.count + mdatHeader.count + dataSize)
        out += mdatHeader
        for track in tracks { out += track.data }
        return out
    }

    /// The `traf` of one track, and where in it the `trun`'s data offset goes.
    private static func trackFragment(_ track: Track) -> (box: [UInt8], dataOffsetPosition: Int) {
        let samples = track.samples
        let flags = samples.map { $0.isSync ? syncFlags : nonSyncFlags }
        // Defaults in the tfhd where every sample (or every one after the first) agrees, as movenc does.
        let uniformDuration = samples.allSatisfy { $0.duration == samples[0].duration }
        let restFlags = flags.count > 1 ? flags[1] : flags[0]
        let firstDiffers = flags[0] != restFlags
        let uniformFlags = flags.dropFirst().allSatisfy { $0 == restFlags }
        let offsets = samples.contains { $0.compositionOffset != 0 }
        let negative = samples.contains { $0.compositionOffset < 0 }

        var tfhdFlags: UInt32 = 0x02_0000  // default-base-is-moof
        var tfhdBody = be32(track.id)
        if uniformDuration {
            tfhdFlags |= 0x08
            tfhdBody += be32(samples[0].duration)
        }
        if uniformFlags {
            tfhdFlags |= 0x20
            tfhdBody += be32(restFlags)
        }
        let tfhd = fullBox("tfhd", version: 0, flags: tfhdFlags, body: tfhdBody)
        let tfdt = fullBox("tfdt", version: 1, flags: 0, body: be64(track.baseDecodeTime))

        var trunFlags: UInt32 = 0x01 | 0x200  // data offset, sample sizes
        if uniformFlags && firstDiffers { trunFlags |= 0x04 }
        if !uniformDuration { trunFlags |= 0x100 }
        if !uniformFlags { trunFlags |= 0x400 }
        if offsets { trunFlags |= 0x800 }
        var trunBody = be32(UInt32(samples.count)) + be32(0)
        if uniformFlags && firstDiffers { trunBody += be32(flags[0]) }
        trunBody.reserveCapacity(trunBody.count + samples.count * 16)
        for (n, sample) in samples.enumerated() {
            if !uniformDuration { trunBody += be32(sample.duration) }
            trunBody += be32(UInt32(sample.size))
            if !uniformFlags { trunBody += be32(flags[n]) }
            if offsets { trunBody += be32(UInt32(bitPattern: sample.compositionOffset)) }
        }
        // Version 1 reads the composition offsets as signed (ISO/IEC 14496-12 §8.8.8).
        let trun = fullBox("trun", version: negative ? 1 : 0, flags: trunFlags, body: trunBody)
        // The data offset is the trun's first field after its header and sample count.
        let offsetPosition = 8 + tfhd.count + tfdt.count + 12 + 4
        return (box("traf", body: tfhd + tfdt + trun), offsetPosition)
    }

    private static func box(_ type: String, body: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    private static func fullBox(_ type: String, version: UInt8, flags: UInt32, body: [UInt8]) -> [UInt8] {
        box(type, body: [version, UInt8(truncatingIfNeeded: flags >> 16), UInt8(truncatingIfNeeded: flags >> 8), UInt8(truncatingIfNeeded: flags)] + body)
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    private static func be64(_ value: UInt64) -> [UInt8] {
        be32(UInt32(truncatingIfNeeded: value >> 32)) + be32(UInt32(truncatingIfNeeded: value))
    }
}
