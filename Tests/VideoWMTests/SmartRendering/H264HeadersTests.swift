import Testing
@testable import VideoWM

/// The H.264 header edits of an open-GOP seam (docs/design/smart-rendering.md, section 3) on parameter sets
/// and slices written bit by bit here, so every field's place is known.
@Suite("H.264 headers at open-GOP seams")
struct H264HeadersTests {
    /// Writes fields: (value, bits) for fixed-length ones, bits 0 for ue(v), -1 for se(v).
    static func bits(_ fields: [(Int, Int)]) -> BitWriter {
        var w = BitWriter()
        for (value, length) in fields {
            switch length {
            case 0: w.writeUnsignedExpGolomb(value)
            case -1: w.writeUnsignedExpGolomb(value > 0 ? 2 * value - 1 : -2 * value)
            default: w.write(value, bits: length)
            }
        }
        return w
    }

    /// `w` with rbsp_trailing_bits, escaped, behind `header`.
    static func unit(_ header: UInt8, _ w: BitWriter) -> NALUnit {
        var w = w
        w.writeBit(1)
        while !w.isByteAligned { w.writeBit(0) }
        return [header] + escapedPayload(w.bytes)
    }

    /// Baseline-style SPS: frame_num 4 bits, order count type 0 with 6-bit LSBs, 2 reference frames.
    static let sps = unit(0x67, bits([(66, 8), (0, 8), (30, 8), (0, 0), (0, 0), (0, 0), (2, 0), (2, 0), (0, 1), (19, 0), (14, 0),
                                      (1, 1), (1, 1), (0, 1), (0, 1)]))
    static func pps(cabac: Bool) -> NALUnit {
        unit(0x68, bits([(0, 0), (0, 0), (cabac ? 1 : 0, 1), (0, 1), (0, 0), (0, 0), (0, 0), (0, 1), (0, 2), (0, -1), (0, -1), (0, -1),
                         (1, 1), (0, 1), (0, 1)]))
    }

    /// The coded macroblocks a slice carries: for CABAC whole bytes after the alignment, with a
    /// start-code-like run that must stay escaped; for CAVLC an odd number of bits.
    static let cabacData: [UInt8] = [0x12, 0x00, 0x00, 0x02, 0x34, 0x9C]
    static let cavlcData: [(Int, Int)] = [(0b1011_0011_1, 9), (0b0110_1, 5)]

    /// A recovery-point I slice (non-IDR, reference): frame_num 5, order count LSB 20, sliding window.
    static func intraSlice(cabac: Bool) -> NALUnit {
        var w = bits([(0, 0), (7, 0), (0, 0), (5, 4), (20, 6), (0, 1), (-3, -1), (0, 0), (1, -1), (0, -1)])
        if cabac {
            while !w.isByteAligned { w.writeBit(1) }
            return [0x61] + escapedPayload(w.bytes + cabacData)
        }
        w.append(bits(cavlcData))
        return unit(0x61, w)
    }

    /// A P slice (reference) at frame_num 7, LSB 26, whose marking removes the picture 3 frame numbers back.
    static func predictedSlice() -> NALUnit {
        var w = bits([(0, 0), (5, 0), (0, 0), (7, 4), (26, 6), (0, 1), (0, 1), (1, 1), (1, 0), (2, 0), (0, 0), (2, -1), (0, 0), (0, -1), (0, -1)])
        w.append(bits(cavlcData))
        return unit(0x41, w)
    }

    static func renumbering(cabac: Bool) throws -> H264SliceRenumbering {
        try H264SliceRenumbering(parameterSets: [sps, pps(cabac: cabac)])
    }

    /// The bits of `unit`'s payload from `start` to its stop bit, as a string of 0s and 1s.
    static func tail(_ slice: H264SliceHeader) -> String {
        let payload = slice.payload
        let last = payload.lastIndex { $0 != 0 }!
        let stop = last * 8 + 7 - payload[last].trailingZeroBitCount
        return (slice.headerEnd..<stop).map { String((payload[$0 / 8] >> (7 - UInt8($0 % 8))) & 1) }.joined()
    }

    @Test func escapingRoundTrips() {
        let raw: [UInt8] = [0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 7, 0, 0]
        let escaped = escapedPayload(raw)
        #expect(escaped == [0, 0, 3, 0, 0, 3, 1, 0, 0, 3, 2, 0, 0, 3, 3, 7, 0, 0, 3])
        #expect(rawByteSequencePayload(escaped[...]) == raw)
        var w = BitWriter()
        for v in 0..<40 { w.writeUnsignedExpGolomb(v) }
        var r = BitReader(bytes: w.bytes)
        #expect((0..<40).map { _ in r.unsignedExpGolomb() } == (0..<40).map { $0 })
    }

    @Test func theSequenceParameterSetIsReadAndAllowsGapsWhenAsked() throws {
        let sps = try H264SequenceParameterSet(Self.sps)
        #expect(sps.log2MaxFrameNum == 4 && sps.pictureOrderCountType == 0 && sps.log2MaxPictureOrderCountLSB == 6)
        #expect(sps.maxReferenceFrames == 2 && sps.frameMBsOnly && !sps.gapsInFrameNumAllowed && sps.chromaArrayType == 1)
        let gaps = try H264SequenceParameterSet(sps.allowingFrameNumGaps())
        #expect(gaps.gapsInFrameNumAllowed)
        #expect(gaps.log2MaxFrameNum == 4 && gaps.maxReferenceFrames == 2 && gaps.frameMBsOnly)
        #expect(gaps.allowingFrameNumGaps() == gaps.unit)
    }

    @Test(arguments: [false, true])
    func aRecoveryPointSliceBecomesAnIDRWithItsMacroblocksUntouched(cabac: Bool) throws {
        let slices = try Self.renumbering(cabac: cabac)
        let original = try slices.header(Self.intraSlice(cabac: cabac))
        #expect(original.numbering == H264SliceNumbering(frameNum: 5, pictureOrderCountLSB: 20))
        let converted = try slices.header(slices.convertedToIDR(original, idrPictureID: 1))
        #expect(converted.isIDR && converted.nalHeader == 0x65)
        #expect(converted.numbering == H264SliceNumbering(frameNum: 0, pictureOrderCountLSB: 0))
        #expect(converted.sliceTypeCode == 7 && converted.isReference)
        var r = BitReader(bytes: converted.payload)
        r.position = converted.frameNumPosition + 4
        #expect(r.unsignedExpGolomb() == 1)
        if cabac {
            #expect(Array(converted.payload[((converted.headerEnd + 7) / 8)...]) == Self.cabacData)
        } else {
            #expect(Self.tail(converted) == Self.tail(original))
        }
    }

    @Test func laterSlicesAreRenumberedInPlaceOrWithoutMarkingOperations() throws {
        let slices = try Self.renumbering(cabac: false)
        let original = try slices.header(Self.predictedSlice())
        #expect(original.markingOperations == [H264MarkingOperation(operation: 1, arguments: [2])])
        let shift = H264SliceNumbering(frameNum: 5, pictureOrderCountLSB: 20)
        let moved = try slices.renumbered(original, by: shift)
        #expect(moved.count == Self.predictedSlice().count)
        let movedHeader = try slices.header(moved)
        #expect(movedHeader.numbering == H264SliceNumbering(frameNum: 2, pictureOrderCountLSB: 6))
        #expect(movedHeader.markingOperations == original.markingOperations && Self.tail(movedHeader) == Self.tail(original))
        // Modulo the field ranges: 7 - 9 is 14 of 16, 26 - 40 is 50 of 64.
        let wrapped = try slices.header(slices.renumbered(original, by: H264SliceNumbering(frameNum: 9, pictureOrderCountLSB: 40)))
        #expect(wrapped.numbering == H264SliceNumbering(frameNum: 14, pictureOrderCountLSB: 50))
        let unmarked = try slices.header(slices.renumbered(original, by: shift, operations: []))
        #expect(unmarked.markingOperations == [] && unmarked.numbering == movedHeader.numbering)
        #expect(Self.tail(unmarked) == Self.tail(original))
    }

    @Test func referenceFramesFollowTheSlidingWindowGapsAndRemovals() throws {
        var frames = H264ReferenceFrames(maxFrameNum: 16, maxReferenceFrames: 2)
        frames.startSequence()
        #expect(try frames.mark(frameNum: 1, operations: nil) == nil && frames.frames == [0, 1])
        _ = try frames.mark(frameNum: 2, operations: nil)
        #expect(frames.frames == [1, 2])
        // A gap before 5 stands for frames 3 and 4, which slide the window like real ones.
        frames.fillGap(before: 5)
        #expect(frames.frames == [3, 4])
        let removeFour = H264MarkingOperation(operation: 1, arguments: [0])
        #expect(try frames.mark(frameNum: 5, operations: [removeFour]) == [removeFour] && frames.frames == [3, 5])
        // Removing a frame the decoder never held (from before the IDR): left out.
        let removeOld = H264MarkingOperation(operation: 1, arguments: [5])
        #expect(try frames.mark(frameNum: 6, operations: [removeOld]) == [] && frames.frames == [3, 5, 6])
        // Frame numbers wrap: after 15 comes 0, and 15 is older than 0.
        var wrapping = H264ReferenceFrames(maxFrameNum: 16, maxReferenceFrames: 2)
        wrapping.startSequence()
        wrapping.fillGap(before: 15)
        _ = try wrapping.mark(frameNum: 15, operations: nil)
        _ = try wrapping.mark(frameNum: 0, operations: nil)
        #expect(wrapping.frames == [15, 0])
        #expect(throws: H264HeaderError.self) { try wrapping.mark(frameNum: 1, operations: [H264MarkingOperation(operation: 5, arguments: [])]) }
    }

    @Test func recoveryPointSEIsAreFound() {
        // payload type 6, size 1: recovery_frame_cnt 0, exact_match 1, broken_link 0, changing_slice_group_idc 0.
        #expect(h264RecoveryFrameCount(sei: [0x06, 0x06, 0x01, 0xC4, 0x80][...]) == 0)
        // recovery_frame_cnt 2 (ue 011).
        #expect(h264RecoveryFrameCount(sei: [0x06, 0x06, 0x01, 0x64, 0x80][...]) == 2)
        // A user data SEI before it is skipped by its size; an SEI without one says nothing.
        #expect(h264RecoveryFrameCount(sei: [0x06, 0x05, 0x02, 0xAA, 0xBB, 0x06, 0x01, 0xC4, 0x80][...]) == 0)
        #expect(h264RecoveryFrameCount(sei: [0x06, 0x05, 0x02, 0xAA, 0xBB, 0x80][...]) == nil)
        let packet: [UInt8] = [0, 0, 0, 5, 0x06, 0x06, 0x01, 0xC4, 0x80, 0, 0, 0, 2, 0x65, 0x88]
        let summary = packet.withUnsafeBytes { PacketNALSummary(packet: $0, framing: .lengthPrefixed(bytes: 4), codec: .h264) }
        #expect(summary.isRecoveryPoint && summary.isIDR)
    }
}
