/// One `moof` of a media segment, read far enough to find every sample's bytes and to rewrite the box: its track
/// fragments (`tfhd`, `tfdt`, `trun`s) and where the samples lie in the segment's bytes.
///
/// Sample data offsets are taken as ISO/IEC 14496-12 §8.8.7 defines them with `default-base-is-moof` (what FFmpeg's
/// movenc writes with `default_base_moof`, and `MediaSegmentWriter`), or with no base flag in a `moof` of one track
/// fragment (the same base then). An explicit `base-data-offset` counts from the start of a whole file, which a
/// segment on its own does not know: refused.
struct MovieFragment {
    var moof: Box
    /// Where the `moof` starts in the segment.
    let start: Int
    let originalSize: Int
    var trackFragments: [TrackFragment]

    struct TrackFragment {
        /// Index of the `traf` among the `moof`'s children.
        let childIndex: Int
        let trackID: UInt32
        let baseDecodeTime: UInt64?
        var samples: [FragmentSample]
        let location: String
        /// Whether the fragment carries Common Encryption boxes already.
        let isEncrypted: Bool
    }

    /// One sample of a track run: its bytes in the segment, duration and composition offset (presentation minus
    /// decode time), in the track's timescale.
    struct FragmentSample {
        var range: Range<Int>
        var duration: UInt32
        var compositionOffset: Int64
    }

    static func fragments(in bytes: [UInt8], tracks: [TrackDescription]) throws(MP4StructureError) -> [MovieFragment] {
        var fragments: [MovieFragment] = []
        for extent in try Box.extents(in: bytes, location: "") where extent.type == "moof" {
            let location = fragments.isEmpty ? "moof" : "moof[\(fragments.count + 1)]"
            guard let moof = try Box.parse(bytes, range: extent.start..<extent.end, location: "").first else {
                throw .malformed(location, "no box where its extent is")
            }
            var fragment = MovieFragment(moof: moof, start: extent.start, originalSize: extent.end - extent.start, trackFragments: [])
            let trafCount = moof.children("traf").count
            for (index, traf) in moof.children.enumerated() where traf.type == "traf" {
                let number = fragment.trackFragments.count + 1
                fragment.trackFragments.append(try readTrackFragment(traf, childIndex: index, moofStart: extent.start, soleFragment: trafCount == 1,
                                                                     segmentSize: bytes.count, tracks: tracks,
                                                                     location: "\(location)/traf[\(number)]"))
            }
            fragments.append(fragment)
        }
        return fragments
    }

    private static func readTrackFragment(_ traf: Box, childIndex: Int, moofStart: Int, soleFragment: Bool, segmentSize: Int,
                                          tracks: [TrackDescription], location: String) throws(MP4StructureError) -> TrackFragment {
        guard let tfhd = traf.child("tfhd") else { throw .malformed(location, "no tfhd") }
        var reader = ByteReader(tfhd.fields, location: location + "/tfhd")
        let flags = tfhd.flags
        try reader.skip(4)
        let trackID = try reader.u32()
        guard let track = tracks.first(where: { $0.trackID == trackID }) else {
            throw .malformed(location + "/tfhd", "track \(trackID) is not in the initialization segment")
        }
        if flags & 0x01 != 0 { throw .unsupported(location + "/tfhd", "an explicit base data offset (a segment is read on its own)") }
        if flags & 0x02_0000 == 0 && !soleFragment {
            throw .unsupported(location + "/tfhd", "track fragments without default-base-is-moof after the first")
        }
        if flags & 0x02 != 0 { try reader.skip(4) }  // sample_description_index
        var defaultDuration = track.defaults.duration
        var defaultSize = track.defaults.size
        if flags & 0x08 != 0 { defaultDuration = try reader.u32() }
        if flags & 0x10 != 0 { defaultSize = try reader.u32() }

        var baseDecodeTime: UInt64?
        if let tfdt = traf.child("tfdt") {
            var reader = ByteReader(tfdt.fields, location: location + "/tfdt")
            try reader.skip(4)
            baseDecodeTime = tfdt.version == 1 ? try reader.u64() : UInt64(try reader.u32())
        }

        var samples: [FragmentSample] = []
        var next = moofStart
        for (n, trun) in traf.children("trun").enumerated() {
            let trunLocation = location + "/trun" + (n > 0 ? "[\(n + 1)]" : "")
            var reader = ByteReader(trun.fields, location: trunLocation)
            try reader.skip(4)
            let trunFlags = trun.flags
            let count = Int(try reader.u32())
            if trunFlags & 0x01 != 0 {
                next = moofStart + Int(Int32(bitPattern: try reader.u32()))
            } else if n == 0 {
                throw .unsupported(trunLocation, "a first track run without a data offset")
            }
            if trunFlags & 0x04 != 0 { try reader.skip(4) }  // first_sample_flags
            let fieldSize = [0x100, 0x200, 0x400, 0x800].filter { trunFlags & $0 != 0 }.count * 4
            guard fieldSize == 0 ? count <= 1 << 20 : count <= reader.remaining / fieldSize else {
                throw .malformed(trunLocation, "\(count) samples do not fit in the box")
            }
            for _ in 0..<count {
                let duration = trunFlags & 0x100 != 0 ? try reader.u32() : defaultDuration
                let size = Int(trunFlags & 0x200 != 0 ? try reader.u32() : defaultSize)
                if trunFlags & 0x400 != 0 { try reader.skip(4) }
                let offset = trunFlags & 0x800 != 0 ? try reader.u32() : 0
                // Signed in version 1; read so in version 0 too, where writers put small negatives and never 2^31.
                let compositionOffset = Int64(Int32(bitPattern: offset))
                guard next >= 0, size <= segmentSize - next else {
                    throw .malformed(trunLocation, "sample \(samples.count + 1) (\(size) bytes at offset \(next)) lies outside the segment")
                }
                samples.append(FragmentSample(range: next..<next + size, duration: duration, compositionOffset: compositionOffset))
                next += size
            }
        }
        let encrypted = traf.child("senc") != nil || traf.child("saiz") != nil || traf.child("saio") != nil
        return TrackFragment(childIndex: childIndex, trackID: trackID, baseDecodeTime: baseDecodeTime, samples: samples,
                             location: location, isEncrypted: encrypted)
    }

    /// Adds `delta` to every track run's data offset: the `moof` grew or shrank, the `mdat` after it moved.
    mutating func shiftDataOffsets(by delta: Int) {
        for fragment in trackFragments {
            for index in moof.children[fragment.childIndex].children.indices where moof.children[fragment.childIndex].children[index].type == "trun" {
                var trun = moof.children[fragment.childIndex].children[index]
                guard trun.flags & 0x01 != 0 else { continue }
                let at = 8  // version and flags, sample_count
                let old = trun.fields[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let new = UInt32(bitPattern: Int32(bitPattern: old) &+ Int32(delta))
                trun.fields.replaceSubrange(at..<at + 4, with: [UInt8(new >> 24), UInt8(truncatingIfNeeded: new >> 16),
                                                               UInt8(truncatingIfNeeded: new >> 8), UInt8(truncatingIfNeeded: new)])
                moof.children[fragment.childIndex].children[index] = trun
            }
        }
    }

    /// Where the payload of the first child of type `type` of the `traf` at `childIndex` starts, counted from the
    /// `moof`'s first byte (the base that `saio` offsets count from).
    func offsetOfPayload(of type: FourCC, inTrackFragmentAt childIndex: Int) -> Int? {
        let headerSize = moof.size - moof.payloadSize
        var offset = headerSize + moof.fields.count
        for sibling in moof.children[..<childIndex] { offset += sibling.size }
        let traf = moof.children[childIndex]
        offset += traf.size - traf.payloadSize + traf.fields.count
        for child in traf.children {
            if child.type == type { return offset + (child.size - child.payloadSize) }
            offset += child.size
        }
        return nil
    }
}
