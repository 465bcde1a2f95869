/// The bytes of a spliced video stream: how copied and re-encoded pictures are framed, which
/// parameter sets travel in band, and the codec header the output's sample entry gets
/// (docs/design/smart-rendering.md, section 5).
///
/// - H.264 in MP4/MOV/MKV: the input's and the encoder's SPS/PPS (distinct ids) both in the
///   sample entry; copied pictures untouched.
/// - HEVC: x265 cannot choose parameter-set ids, so each re-encoded keyframe carries the
///   encoder's VPS/SPS/PPS in band and the first copied keyframe after a span the input's again
///   (MP4 then needs the `hev1` sample entry); a CRA after a span becomes a BLA.
/// - MPEG-TS output: Annex B with every keyframe's own parameter sets in band, written here
///   rather than by the muxer's bitstream filter, which would put the input's HEVC sets in
///   front of the encoder's pictures too.
/// - VP9: nothing to do.
struct SpliceBitstream: Sendable {
    let codec: VideoCodec
    /// Framing of the input's packets (nil for VP9).
    let inputFraming: NALFraming?
    /// Framing of the output's packets: Annex B for MPEG-TS, else the input's.
    let outputFraming: NALFraming?
    let inputParameterSets: [NALUnit]
    /// The encoder's parameter sets, from its global header.
    let encoderParameterSets: [NALUnit]
    /// The codec header for the output stream.
    let extradata: [UInt8]
    /// H.264: the input's SPS units and the versions the output carries instead (gaps in frame_num
    /// allowed, for spans ending before recovery-point keyframes); empty when they stay.
    let replacedSequenceSets: [NALUnit: NALUnit]

    /// - Parameters:
    ///   - inputExtradata: the input stream's codec header (avcC, hvcC, Annex B or empty).
    ///   - encoderHeader: the encoder's global header (Annex B; x264 with `sps-id` set to an id the input does not use).
    ///   - annexBOutput: the container wants Annex B (MPEG-TS).
    ///   - allowingFrameNumGaps: H.264 spans end before recovery-point keyframes, whose leading
    ///     pictures leave gaps in frame_num (docs/design/smart-rendering.md, section 3).
    init(codec: VideoCodec, inputFraming: NALFraming?, inputExtradata: [UInt8], inputParameterSets: [NALUnit],
         encoderHeader: [UInt8], annexBOutput: Bool, allowingFrameNumGaps: Bool = false) throws(ParameterSetError) {
        self.codec = codec
        self.inputFraming = inputFraming
        var replaced: [NALUnit: NALUnit] = [:]
        if codec == .h264 && allowingFrameNumGaps {
            for unit in inputParameterSets where unit.first.map({ $0 & 0x1F }) == 7 {
                guard let sps = try? H264SequenceParameterSet(unit) else { throw .malformedRecord("SPS") }
                replaced[unit] = sps.allowingFrameNumGaps()
            }
        }
        replacedSequenceSets = replaced
        let inputParameterSets = inputParameterSets.map { replaced[$0] ?? $0 }
        self.inputParameterSets = inputParameterSets
        encoderParameterSets = annexBUnits(encoderHeader).filter { isParameterSet($0, codec: codec) }
        guard codec.usesNALUnits, let inputFraming else {
            outputFraming = nil
            extradata = inputExtradata
            return
        }
        let outputFraming = annexBOutput ? .annexB : inputFraming
        self.outputFraming = outputFraming
        switch (codec, outputFraming) {
        case (.h264, .lengthPrefixed):
            var record = try AVCConfigurationRecord(inputExtradata)
            record.sequenceParameterSets = record.sequenceParameterSets.map { replaced[$0] ?? $0 }
            if record.sequenceParameterSets.isEmpty { record.sequenceParameterSets = inputParameterSets.filter { $0[0] & 0x1F == 7 } }
            if record.pictureParameterSets.isEmpty { record.pictureParameterSets = inputParameterSets.filter { $0[0] & 0x1F == 8 } }
            extradata = try record.adding(encoderHeader: encoderHeader).bytes
        case (.h264, .annexB):
            // Both sets: a muxer that builds its own avcC from this (MP4 or MKV from a TS input) lists both.
            extradata = annexB(inputParameterSets + encoderParameterSets)
        case (_, .lengthPrefixed):
            extradata = inputExtradata
        default:
            extradata = annexB(inputParameterSets)
        }
    }

    /// The sample entry MP4 needs: HEVC with parameter sets in band is `hev1`.
    func sampleEntryTag(mp4: Bool) -> String? {
        codec == .hevc && mp4 ? "hev1" : nil
    }

    /// A copied packet's bytes for the output, or nil when they stay exactly as they are.
    /// - Parameters:
    ///   - firstAfterSpan: the first copied packet after re-encoded pictures.
    ///   - blaType: the NAL unit type its CRA slices become (16–18), when it is the CRA after a span.
    ///   - h264Seams, index: the renumbering of H.264 pictures after open-GOP seams, and the packet's
    ///     decode-order index in the input.
    func copied(_ bytes: UnsafeRawBufferPointer, isKeyframe: Bool, firstAfterSpan: Bool, blaType: Int?,
                h264Seams: H264OpenGOPSeams? = nil, index: Int = 0) throws(H264HeaderError) -> [UInt8]? {
        guard let inputFraming, let outputFraming else { return nil }
        var units = nalUnitRanges(in: bytes, framing: inputFraming).map { Array(bytes[$0]) }
        var changed = inputFraming != outputFraming
        if !replacedSequenceSets.isEmpty {
            for n in units.indices { if let sps = replacedSequenceSets[units[n]] { units[n] = sps; changed = true } }
        }
        if let h264Seams, let edited = try h264Seams.rewrite(units, packet: index) {
            units = edited
            changed = true
        }
        if let blaType {
            precondition((16...18).contains(blaType), "BLA NAL unit types are 16, 17 and 18")
            for n in units.indices where Int(units[n][0] >> 1) & 0x3F == 21 {
                units[n][0] = UInt8(blaType << 1) | (units[n][0] & 1)
                changed = true
            }
        }
        if isKeyframe && !units.contains(where: { isParameterSet($0, codec: codec) }) {
            // The input's sets again where the encoder's replaced them (HEVC, same ids), and before
            // every keyframe of an Annex B output that did not have them in band.
            let afterEncoderSets = codec == .hevc && firstAfterSpan
            let annexBNeedsThem = outputFraming == .annexB && (inputFraming != .annexB || firstAfterSpan)
            if afterEncoderSets || annexBNeedsThem {
                units = inputParameterSets + units
                changed = true
            }
        }
        return changed ? framed(units, outputFraming) : nil
    }

    /// An encoded packet's bytes (Annex B, as libx264 and libx265 write them) for the output.
    func encoded(_ annexBBytes: UnsafeRawBufferPointer, isKeyframe: Bool) -> [UInt8]? {
        guard let outputFraming else { return nil }
        var units = nalUnitRanges(in: annexBBytes, framing: .annexB).map { Array(annexBBytes[$0]) }
        if isKeyframe && (codec == .hevc || outputFraming == .annexB) && !units.contains(where: { isParameterSet($0, codec: codec) }) {
            units = encoderParameterSets + units
        }
        return framed(units, outputFraming)
    }

    private func framed(_ units: [NALUnit], _ framing: NALFraming) -> [UInt8] {
        switch framing {
        case .annexB: annexB(units)
        case .lengthPrefixed(let size): lengthPrefixed(units, lengthSize: size)
        }
    }
}

/// `units` each behind a 00 00 00 01 start code.
func annexB(_ units: [NALUnit]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
    for unit in units { out += [0, 0, 0, 1] + unit }
    return out
}

/// `units` each behind a big-endian length of `lengthSize` bytes (1…4).
func lengthPrefixed(_ units: [NALUnit], lengthSize: Int) -> [UInt8] {
    precondition((1...4).contains(lengthSize), "NAL length fields are 1 to 4 bytes")
    var out: [UInt8] = []
    out.reserveCapacity(units.reduce(0) { $0 + $1.count + lengthSize })
    for unit in units {
        for shift in stride(from: (lengthSize - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: unit.count >> shift)) }
        out += unit
    }
    return out
}
