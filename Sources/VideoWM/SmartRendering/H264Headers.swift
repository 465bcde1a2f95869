/// The H.264 header fields smart rendering edits where a span ends before an open GOP's keyframe
/// (docs/design/smart-rendering.md, section 3): the keyframe, a recovery-point I picture, becomes an IDR
/// (frame_num 0, picture order count 0), the copied pictures after it until the next IDR have their
/// frame_num and pic_order_cnt_lsb moved by the same amounts, and the input's sequence parameter
/// sets allow gaps in frame_num, where the keyframe's leading pictures (re-encoded with the span)
/// were left out. Each of those is a fixed-length field or one flag; only the keyframe's slices
/// change length (an idr_pic_id and an IDR's reference marking), so only they are rebuilt.
///
/// Supported: progressive pictures (no field pictures), one slice group, picture order count types
/// 0 and 2 (x264 writes these; type 1 makes the order depend on the reference pattern the leading
/// pictures' removal changes). Anything else is refused with `H264HeaderError`, and the splice
/// renders in full.
///
/// Over 300 lines: the bit reader/writer, the parameter-set and slice-header fields and the
/// renumbering that uses them are one bitstream edit, read together.

enum H264HeaderError: Error, Equatable, CustomStringConvertible {
    case truncated(String)
    case unsupported(String)
    case missingParameterSet(String)

    var description: String {
        switch self {
        case .truncated(let what): "an H.264 \(what) ends early"
        case .unsupported(let what): "H.264 \(what) cannot be renumbered at a splice"
        case .missingParameterSet(let what): "an H.264 slice names \(what), which the stream does not carry"
        }
    }
}

/// A NAL unit's payload (after its header byte) with the emulation-prevention bytes removed.
func rawByteSequencePayload(_ payload: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(payload.count)
    var zeros = 0
    for byte in payload {
        if zeros >= 2 && byte == 3 {
            zeros = 0
            continue
        }
        out.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    return out
}

/// A raw byte sequence payload with emulation-prevention bytes put in (00 00 0x, x ≤ 3 → 00 00 03 0x;
/// a payload ending in 00 gets a final 03).
func escapedPayload(_ rbsp: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
    var zeros = 0
    for byte in rbsp {
        if zeros >= 2 && byte <= 3 {
            out.append(3)
            zeros = 0
        }
        out.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    if out.last == 0 { out.append(3) }
    return out
}

/// Writes bits most significant first.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func write(_ value: Int, bits: Int) {
        for shift in stride(from: bits - 1, through: 0, by: -1) { writeBit((value >> shift) & 1) }
    }

    mutating func writeBit(_ bit: Int) {
        if count % 8 == 0 { bytes.append(0) }
        if bit != 0 { bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8) }
        count += 1
    }

    mutating func writeUnsignedExpGolomb(_ value: Int) {
        let coded = value + 1
        let length = Int.bitWidth - coded.leadingZeroBitCount
        write(0, bits: length - 1)
        write(coded, bits: length)
    }

    var isByteAligned: Bool { count % 8 == 0 }
}

extension BitReader {
    mutating func bits(_ n: Int) throws(H264HeaderError) -> Int {
        var value = 0
        for _ in 0..<n {
            guard let b = bit() else { throw .truncated("header") }
            value = value << 1 | b
        }
        return value
    }

    mutating func flag() throws(H264HeaderError) -> Bool { try bits(1) == 1 }

    mutating func ue() throws(H264HeaderError) -> Int {
        guard let value = unsignedExpGolomb() else { throw .truncated("header") }
        return value
    }

    mutating func se() throws(H264HeaderError) -> Int {
        let code = try ue()
        return code % 2 == 1 ? (code + 1) / 2 : -(code / 2)
    }
}

/// What a slice header's layout depends on, from an SPS.
struct H264SequenceParameterSet: Equatable {
    var id: Int
    var separateColourPlane: Bool
    /// 0 for monochrome (or separate planes), 1 for 4:2:0, 2 for 4:2:2, 3 for 4:4:4.
    var chromaArrayType: Int
    var maxReferenceFrames: Int
    var log2MaxFrameNum: Int
    var pictureOrderCountType: Int
    /// For picture order count type 0.
    var log2MaxPictureOrderCountLSB: Int
    var frameMBsOnly: Bool
    var gapsInFrameNumAllowed: Bool
    /// Where `gaps_in_frame_num_value_allowed_flag` is, in bits of the raw payload after the header byte.
    private var gapsFlagPosition: Int
    let unit: NALUnit

    init(_ unit: NALUnit) throws(H264HeaderError) {
        guard unit.count > 4, unit[0] & 0x1F == 7 else { throw .truncated("sequence parameter set") }
        self.unit = unit
        var r = BitReader(bytes: rawByteSequencePayload(unit[1...]))
        let profile = try r.bits(8)
        _ = try r.bits(16)  // constraint flags, level
        id = try r.ue()
        separateColourPlane = false
        var chromaFormat = 1
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            chromaFormat = try r.ue()
            if chromaFormat == 3 { separateColourPlane = try r.flag() }
            _ = try r.ue()  // bit depths
            _ = try r.ue()
            _ = try r.flag()  // qpprime_y_zero_transform_bypass_flag
            if try r.flag() {
                for list in 0..<(chromaFormat == 3 ? 12 : 8) where try r.flag() {
                    var last = 8, next = 8
                    for _ in 0..<(list < 6 ? 16 : 64) where next != 0 {
                        next = (last + (try r.se()) + 256) % 256
                        last = next == 0 ? last : next
                    }
                }
            }
        }
        log2MaxFrameNum = try r.ue() + 4
        pictureOrderCountType = try r.ue()
        log2MaxPictureOrderCountLSB = 0
        switch pictureOrderCountType {
        case 0: log2MaxPictureOrderCountLSB = try r.ue() + 4
        case 1:
            _ = try r.flag()
            _ = try r.se()
            _ = try r.se()
            for _ in 0..<(try r.ue()) { _ = try r.se() }
        default: break
        }
        chromaArrayType = separateColourPlane ? 0 : chromaFormat
        maxReferenceFrames = try r.ue()
        gapsFlagPosition = r.position
        gapsInFrameNumAllowed = try r.flag()
        _ = try r.ue()  // picture width, height
        _ = try r.ue()
        frameMBsOnly = try r.flag()
    }

    /// This SPS with `gaps_in_frame_num_value_allowed_flag` set (itself when it is).
    func allowingFrameNumGaps() -> NALUnit {
        guard !gapsInFrameNumAllowed else { return unit }
        var payload = rawByteSequencePayload(unit[1...])
        payload[gapsFlagPosition / 8] |= 0x80 >> UInt8(gapsFlagPosition % 8)
        return [unit[0]] + escapedPayload(payload)
    }
}

/// What a slice header's layout depends on, from a PPS.
struct H264PictureParameterSet {
    var id: Int
    var sequenceParameterSetID: Int
    var entropyCodingIsCABAC: Bool
    var bottomFieldPicOrderInFramePresent: Bool
    var defaultReferenceCount: (l0: Int, l1: Int)
    var weightedPrediction: Bool
    var weightedBipredictionIDC: Int
    var redundantPictureCountPresent: Bool
    var deblockingFilterControlPresent: Bool
    /// 26 + pic_init_qp_minus26: the quantiser slices start from.
    var initialQP: Int

    init(_ unit: NALUnit) throws(H264HeaderError) {
        guard unit.count > 1, unit[0] & 0x1F == 8 else { throw .truncated("picture parameter set") }
        var r = BitReader(bytes: rawByteSequencePayload(unit[1...]))
        id = try r.ue()
        sequenceParameterSetID = try r.ue()
        entropyCodingIsCABAC = try r.flag()
        bottomFieldPicOrderInFramePresent = try r.flag()
        guard try r.ue() == 0 else { throw .unsupported("a picture parameter set with slice groups") }
        let l0 = try r.ue() + 1, l1 = try r.ue() + 1
        defaultReferenceCount = (l0, l1)
        weightedPrediction = try r.flag()
        weightedBipredictionIDC = try r.bits(2)
        initialQP = 26 + (try r.se())
        _ = try r.se()  // pic_init_qs, chroma_qp_index_offset
        _ = try r.se()
        deblockingFilterControlPresent = try r.flag()
        _ = try r.flag()  // constrained_intra_pred_flag
        redundantPictureCountPresent = try r.flag()
    }
}

/// The frame_num and pic_order_cnt_lsb of one slice.
struct H264SliceNumbering: Equatable {
    var frameNum: Int
    /// nil for picture order count type 2 (derived from frame_num).
    var pictureOrderCountLSB: Int?
}

/// One memory_management_control_operation of a reference picture's marking, with its arguments.
struct H264MarkingOperation: Equatable {
    var operation: Int
    var arguments: [Int]
}

/// A slice header read in full, and where its parts lie in the raw payload (bit positions).
struct H264SliceHeader {
    var nalHeader: UInt8
    var payload: [UInt8]
    var sps: H264SequenceParameterSet
    var pps: H264PictureParameterSet
    /// slice_type modulo 5: 0 P, 1 B, 2 I, 3 SP, 4 SI.
    var sliceType: Int
    var sliceTypeCode: Int
    var firstMB: Int
    var isIDR: Bool
    var frameNum: Int
    var frameNumPosition: Int
    var pictureOrderCountLSB: Int?
    var pictureOrderCountPosition: Int
    /// Just after the fields that differ between IDR and non-IDR slices and the order count.
    var afterOrderCountLSB: Int
    /// A non-IDR reference picture's adaptive marking operations (nil: sliding window, or not a
    /// reference picture, or an IDR), and the bits dec_ref_pic_marking() takes (empty when absent).
    var markingOperations: [H264MarkingOperation]?
    var markingBits: Range<Int>
    /// Where the header ends: CABAC's alignment bits or CAVLC's macroblocks follow.
    var headerEnd: Int
    /// The slice's quantiser (SliceQP_Y: the PPS's initial one plus slice_qp_delta).
    var quantiser: Int

    var isReference: Bool { nalHeader & 0x60 != 0 }
    var isIntra: Bool { sliceType == 2 || sliceType == 4 }
    var numbering: H264SliceNumbering { H264SliceNumbering(frameNum: frameNum, pictureOrderCountLSB: pictureOrderCountLSB) }

    init(_ unit: NALUnit, sequenceSets: [Int: H264SequenceParameterSet], pictureSets: [Int: H264PictureParameterSet]) throws(H264HeaderError) {
        let type = Int(unit[0] & 0x1F)
        guard type == 1 || type == 5, unit.count > 1 else { throw .unsupported("a NAL unit of type \(type) as a slice") }
        nalHeader = unit[0]
        isIDR = type == 5
        payload = rawByteSequencePayload(unit[1...])
        var r = BitReader(bytes: payload)
        firstMB = try r.ue()
        sliceTypeCode = try r.ue()
        sliceType = sliceTypeCode % 5
        let ppsID = try r.ue()
        guard let pps = pictureSets[ppsID] else { throw .missingParameterSet("PPS \(ppsID)") }
        guard let sps = sequenceSets[pps.sequenceParameterSetID] else { throw .missingParameterSet("SPS \(pps.sequenceParameterSetID)") }
        self.pps = pps
        self.sps = sps
        if sps.separateColourPlane { throw .unsupported("separate colour planes") }
        frameNumPosition = r.position
        frameNum = try r.bits(sps.log2MaxFrameNum)
        if !sps.frameMBsOnly, try r.flag() { throw .unsupported("a field picture") }
        if isIDR { _ = try r.ue() }
        pictureOrderCountPosition = r.position
        switch sps.pictureOrderCountType {
        case 0:
            pictureOrderCountLSB = try r.bits(sps.log2MaxPictureOrderCountLSB)
        case 2:
            pictureOrderCountLSB = nil
        default:
            throw .unsupported("picture order count type \(sps.pictureOrderCountType)")
        }
        afterOrderCountLSB = r.position
        if sps.pictureOrderCountType == 0 && pps.bottomFieldPicOrderInFramePresent { _ = try r.se() }
        if pps.redundantPictureCountPresent { _ = try r.ue() }
        var references = pps.defaultReferenceCount
        let isB = sliceType == 1, isPredicted = sliceType == 0 || sliceType == 3 || isB
        if isB { _ = try r.flag() }  // direct_spatial_mv_pred_flag
        if isPredicted, try r.flag() {
            references.l0 = try r.ue() + 1
            if isB { references.l1 = try r.ue() + 1 }
        }
        // ref_pic_list_modification()
        for list in 0..<(isB ? 2 : isPredicted ? 1 : 0) {
            _ = list
            if try r.flag() {
                while true {
                    let idc = try r.ue()
                    if idc == 3 { break }
                    guard idc <= 2 else { throw .unsupported("reference list modification \(idc)") }
                    _ = try r.ue()
                }
            }
        }
        // pred_weight_table()
        if (pps.weightedPrediction && (sliceType == 0 || sliceType == 3)) || (pps.weightedBipredictionIDC == 1 && isB) {
            _ = try r.ue()
            if sps.chromaArrayType != 0 { _ = try r.ue() }
            for count in isB ? [references.l0, references.l1] : [references.l0] {
                for _ in 0..<count {
                    if try r.flag() { _ = try r.se(); _ = try r.se() }
                    if sps.chromaArrayType != 0, try r.flag() { for _ in 0..<4 { _ = try r.se() } }
                }
            }
        }
        let markingStart = r.position
        markingOperations = nil
        if nalHeader & 0x60 != 0 {
            if isIDR {
                _ = try r.bits(2)
            } else if try r.flag() {
                var operations: [H264MarkingOperation] = []
                while true {
                    let operation = try r.ue()
                    if operation == 0 { break }
                    guard operation <= 6 else { throw .unsupported("memory management operation \(operation)") }
                    var arguments: [Int] = []
                    if [1, 3].contains(operation) { arguments.append(try r.ue()) }
                    if [2, 3, 6, 4].contains(operation) { arguments.append(try r.ue()) }
                    operations.append(H264MarkingOperation(operation: operation, arguments: arguments))
                }
                markingOperations = operations
            }
        }
        markingBits = markingStart..<r.position
        if pps.entropyCodingIsCABAC && sliceType != 2 && sliceType != 4 { _ = try r.ue() }  // cabac_init_idc
        quantiser = pps.initialQP + (try r.se())
        if sliceType == 3 { _ = try r.flag() }
        if sliceType == 3 || sliceType == 4 { _ = try r.se() }
        if pps.deblockingFilterControlPresent, try r.ue() != 1 {
            _ = try r.se()
            _ = try r.se()
        }
        headerEnd = r.position
    }

    /// The slice rebuilt: `head` in place of the payload's first `resume` bits, the rest of the header
    /// up to the reference marking as it was, `marking` in place of dec_ref_pic_marking(), the rest
    /// of the header, and the slice data (CABAC: realigned, byte for byte; CAVLC: bit for bit, with
    /// new trailing bits).
    func rebuilt(nalType: Int, head: BitWriter, resume: Int, marking: BitWriter) throws(H264HeaderError) -> NALUnit {
        var w = head
        copy(resume..<markingBits.lowerBound, into: &w)
        w.append(marking)
        copy(markingBits.upperBound..<headerEnd, into: &w)
        if pps.entropyCodingIsCABAC {
            while !w.isByteAligned { w.writeBit(1) }
            let dataStart = (headerEnd + 7) / 8
            return [nalHeader & 0xE0 | UInt8(nalType)] + escapedPayload(w.bytes + payload[dataStart...])
        }
        guard let index = payload.lastIndex(where: { $0 != 0 }) else { throw .truncated("slice") }
        let stopBit = index * 8 + 7 - payload[index].trailingZeroBitCount
        guard stopBit >= headerEnd else { throw .truncated("slice") }
        copy(headerEnd..<(stopBit + 1), into: &w)
        while !w.isByteAligned { w.writeBit(0) }
        return [nalHeader & 0xE0 | UInt8(nalType)] + escapedPayload(w.bytes)
    }

    private func copy(_ range: Range<Int>, into w: inout BitWriter) {
        for p in range { w.writeBit(Int(payload[p / 8] >> (7 - UInt8(p % 8))) & 1) }
    }
}

extension BitWriter {
    mutating func append(_ other: BitWriter) {
        var r = BitReader(bytes: other.bytes)
        for _ in 0..<other.count { writeBit(r.bit() ?? 0) }
    }
}

/// The input's SPS/PPS by id, and the edits of section 3 on its slices.
struct H264SliceRenumbering {
    private(set) var sequenceSets: [Int: H264SequenceParameterSet] = [:]
    private var pictureSets: [Int: H264PictureParameterSet] = [:]

    init(parameterSets: [NALUnit]) throws(H264HeaderError) {
        for unit in parameterSets { try learn(unit) }
    }

    /// Learns a parameter set sent in band (MPEG-TS), so later slices naming it can be read.
    mutating func learn(_ unit: NALUnit) throws(H264HeaderError) {
        switch unit.first.map({ $0 & 0x1F }) {
        case 7:
            let sps = try H264SequenceParameterSet(unit)
            sequenceSets[sps.id] = sps
        case 8:
            let pps = try H264PictureParameterSet(unit)
            pictureSets[pps.id] = pps
        default: break
        }
    }

    /// Whether every SPS says its pictures' order counts can be moved (types 0 and 2, frames only).
    func checkSupported() throws(H264HeaderError) {
        for sps in sequenceSets.values {
            if sps.pictureOrderCountType == 1 { throw .unsupported("picture order count type 1") }
            if sps.separateColourPlane { throw .unsupported("separate colour planes") }
        }
    }

    func header(_ unit: NALUnit) throws(H264HeaderError) -> H264SliceHeader {
        try H264SliceHeader(unit, sequenceSets: sequenceSets, pictureSets: pictureSets)
    }

    /// The quantiser of a slice NAL unit, read from its first bytes (a header is far shorter); nil
    /// when it cannot be read.
    func quantiser(ofSlice unit: UnsafeRawBufferPointer) -> Int? {
        let prefix = Array(unit.prefix(1024))
        return try? H264SliceHeader(prefix, sequenceSets: sequenceSets, pictureSets: pictureSets).quantiser
    }

    /// A non-IDR slice with `numbering` subtracted from its frame_num and pic_order_cnt_lsb (modulo
    /// their ranges), and `operations` as its adaptive reference marking when given. The numbers keep
    /// their lengths, so without new operations only those bits change.
    func renumbered(_ slice: H264SliceHeader, by numbering: H264SliceNumbering,
                    operations: [H264MarkingOperation]? = nil) throws(H264HeaderError) -> NALUnit {
        var slice = slice
        func put(_ value: Int, at position: Int, bits: Int) {
            for n in 0..<bits {
                let bit = (value >> (bits - 1 - n)) & 1, p = position + n, mask = UInt8(0x80 >> (p % 8))
                slice.payload[p / 8] = bit == 1 ? slice.payload[p / 8] | mask : slice.payload[p / 8] & ~mask
            }
        }
        let maxFrameNum = 1 << slice.sps.log2MaxFrameNum
        put(((slice.frameNum - numbering.frameNum) % maxFrameNum + maxFrameNum) % maxFrameNum,
            at: slice.frameNumPosition, bits: slice.sps.log2MaxFrameNum)
        if let lsb = slice.pictureOrderCountLSB, let shift = numbering.pictureOrderCountLSB {
            let maxLSB = 1 << slice.sps.log2MaxPictureOrderCountLSB
            put(((lsb - shift) % maxLSB + maxLSB) % maxLSB, at: slice.pictureOrderCountPosition, bits: slice.sps.log2MaxPictureOrderCountLSB)
        }
        guard let operations, operations != slice.markingOperations else {
            return [slice.nalHeader] + escapedPayload(slice.payload)
        }
        var marking = BitWriter()
        marking.writeBit(1)
        for op in operations {
            marking.writeUnsignedExpGolomb(op.operation)
            for argument in op.arguments { marking.writeUnsignedExpGolomb(argument) }
        }
        marking.writeUnsignedExpGolomb(0)
        return try slice.rebuilt(nalType: 1, head: BitWriter(), resume: 0, marking: marking)
    }

    /// An I slice of a recovery-point picture rewritten as an IDR slice: NAL unit type 5,
    /// frame_num 0, `idrPictureID`, its own picture order count made 0, and the IDR's reference
    /// marking (prior pictures output, not long-term) in place of its own. The rest of the slice
    /// (quantiser, deblocking, the coded macroblocks) is copied bit for bit.
    func convertedToIDR(_ slice: H264SliceHeader, idrPictureID: Int) throws(H264HeaderError) -> NALUnit {
        guard slice.isReference else { throw .unsupported("a keyframe that is not a reference picture") }
        guard slice.isIntra else { throw .unsupported("a keyframe with inter slices") }
        var head = BitWriter()
        head.writeUnsignedExpGolomb(slice.firstMB)
        head.writeUnsignedExpGolomb(slice.sliceTypeCode)
        head.writeUnsignedExpGolomb(slice.pps.id)
        head.write(0, bits: slice.sps.log2MaxFrameNum)
        if !slice.sps.frameMBsOnly { head.writeBit(0) }
        head.writeUnsignedExpGolomb(idrPictureID)
        if slice.sps.pictureOrderCountType == 0 { head.write(0, bits: slice.sps.log2MaxPictureOrderCountLSB) }
        var marking = BitWriter()
        marking.writeBit(0)  // no_output_of_prior_pics_flag: the span's pictures are shown
        marking.writeBit(0)  // long_term_reference_flag
        return try slice.rebuilt(nalType: 5, head: head, resume: slice.afterOrderCountLSB, marking: marking)
    }
}

/// The short-term reference frames an H.264 decoder holds (frame_num values, oldest first), from
/// the reference marking process (ITU-T H.264 8.2.5): sliding window, memory management
/// operation 1, and the frames a gap in frame_num stands for.
struct H264ReferenceFrames {
    let maxFrameNum: Int
    let capacity: Int
    private(set) var frames: [Int] = []
    private var previousReference = 0

    init(maxFrameNum: Int, maxReferenceFrames: Int) {
        self.maxFrameNum = maxFrameNum
        capacity = max(maxReferenceFrames, 1)
    }

    /// An IDR: it alone is held.
    mutating func startSequence() {
        frames = [0]
        previousReference = 0
    }

    private func wrapped(_ frameNum: Int, current: Int) -> Int { frameNum > current ? frameNum - maxFrameNum : frameNum }

    private mutating func slide(current: Int) {
        guard frames.count >= capacity,
              let oldest = frames.indices.min(by: { wrapped(frames[$0], current: current) < wrapped(frames[$1], current: current) }) else { return }
        frames.remove(at: oldest)
    }

    /// Frames a gap before `frameNum` stands for, each held as a reference.
    mutating func fillGap(before frameNum: Int) {
        guard frameNum != previousReference, frameNum != (previousReference + 1) % maxFrameNum else { return }
        var missing = (previousReference + 1) % maxFrameNum
        while missing != frameNum {
            slide(current: missing)
            frames.append(missing)
            previousReference = missing
            missing = (missing + 1) % maxFrameNum
        }
    }

    /// Marks reference picture `frameNum` (its gap filled first) with `operations` (nil: sliding
    /// window), and returns the operations that apply: those removing a frame not held (one the
    /// input's decoder held from before the keyframe that became an IDR) are left out.
    mutating func mark(frameNum: Int, operations: [H264MarkingOperation]?) throws(H264HeaderError) -> [H264MarkingOperation]? {
        guard let operations else {
            slide(current: frameNum)
            frames.append(frameNum)
            previousReference = frameNum
            return nil
        }
        var kept: [H264MarkingOperation] = []
        for op in operations {
            guard op.operation == 1 else { throw .unsupported("long-term reference pictures") }
            let target = frameNum - (op.arguments[0] + 1)
            if let n = frames.firstIndex(where: { wrapped($0, current: frameNum) == target }) {
                frames.remove(at: n)
                kept.append(op)
            }
        }
        frames.append(frameNum)
        previousReference = frameNum
        return kept
    }
}

/// Reads H.264 SEI messages for a recovery point: `recovery_frame_cnt`, nil when the SEI has none.
func h264RecoveryFrameCount(sei unit: ArraySlice<UInt8>) -> Int? {
    guard unit.count > 1 else { return nil }
    let payload = rawByteSequencePayload(unit.dropFirst())
    var offset = 0
    while offset + 2 <= payload.count, payload[offset] != 0x80 {
        var type = 0, size = 0
        while offset < payload.count, payload[offset] == 0xFF { type += 255; offset += 1 }
        guard offset < payload.count else { return nil }
        type += Int(payload[offset]); offset += 1
        while offset < payload.count, payload[offset] == 0xFF { size += 255; offset += 1 }
        guard offset < payload.count else { return nil }
        size += Int(payload[offset]); offset += 1
        guard offset + size <= payload.count else { return nil }
        if type == 6 {
            var r = BitReader(bytes: Array(payload[offset..<(offset + size)]))
            return r.unsignedExpGolomb()
        }
        offset += size
    }
    return nil
}

/// The copied H.264 pictures after spans that end before recovery-point keyframes, as section 3
/// of docs/design/smart-rendering.md has them: each such keyframe becomes an IDR and the copied pictures
/// after it, up to the next IDR, take frame numbers and picture order counts counted from it; the
/// reference marking operations that remove pictures from before the keyframe (which the IDR
/// already let go) are left out. Fed every output packet in decode order (copied ones through
/// `rewrite`, re-encoded ones through `noteEncoded`).
final class H264OpenGOPSeams {
    private var slices: H264SliceRenumbering
    private let keyframes: Set<Int>
    /// Subtracted from the copied pictures since the last keyframe made an IDR, and the reference
    /// frames a decoder holds there.
    private var shift: H264SliceNumbering?
    private var references: H264ReferenceFrames?
    /// The last idr_pic_id written, so that an IDR right after another gets a different one.
    private var lastIDRPictureID: Int?

    /// - Parameters:
    ///   - keyframes: the input packets (decode order) that become IDRs.
    ///   - parameterSets: the input's SPS/PPS and the encoder's (their ids differ).
    init(keyframes: Set<Int>, parameterSets: [NALUnit]) throws(H264HeaderError) {
        self.keyframes = keyframes
        slices = try H264SliceRenumbering(parameterSets: parameterSets)
        try slices.checkSupported()
    }

    private static func type(_ unit: NALUnit) -> Int { Int((unit.first ?? 0) & 0x1F) }

    /// A re-encoded packet went out: an IDR among its slices sets the id the next must differ from.
    func noteEncoded(_ units: [NALUnit]) throws(H264HeaderError) {
        for unit in units where Self.type(unit) == 5 {
            let slice = try slices.header(unit)
            var r = BitReader(bytes: slice.payload)
            r.position = slice.frameNumPosition + slice.sps.log2MaxFrameNum
            lastIDRPictureID = try r.ue()
        }
        shift = nil
        references = nil
    }

    /// Copied packet `index`'s NAL units as the output needs them, or nil when they stay as they are.
    func rewrite(_ units: [NALUnit], packet index: Int) throws(H264HeaderError) -> [NALUnit]? {
        for unit in units where [7, 8].contains(Self.type(unit)) { try slices.learn(unit) }
        let isSlice = { (unit: NALUnit) in [1, 5].contains(Self.type(unit)) }
        if keyframes.contains(index) {
            guard let first = units.first(where: isSlice) else { throw .truncated("keyframe") }
            let key = try slices.header(first)
            shift = key.numbering
            var frames = H264ReferenceFrames(maxFrameNum: 1 << key.sps.log2MaxFrameNum, maxReferenceFrames: key.sps.maxReferenceFrames)
            frames.startSequence()
            references = frames
            let id = lastIDRPictureID == 0 ? 1 : 0
            lastIDRPictureID = id
            return try units.map { unit throws(H264HeaderError) in
                isSlice(unit) ? try slices.convertedToIDR(try slices.header(unit), idrPictureID: id) : unit
            }
        }
        if units.contains(where: { Self.type($0) == 5 }) {
            // The input's own IDR: numbering starts again there.
            shift = nil
            references = nil
            lastIDRPictureID = nil
            return nil
        }
        guard let shift, var frames = references else { return nil }
        var kept: [H264MarkingOperation]?
        var marked = false
        let edited = try units.map { unit throws(H264HeaderError) -> NALUnit in
            guard isSlice(unit) else { return unit }
            let slice = try slices.header(unit)
            let frameNum = ((slice.frameNum - shift.frameNum) % frames.maxFrameNum + frames.maxFrameNum) % frames.maxFrameNum
            if !marked {
                // Once per picture (its slices carry the same marking).
                marked = true
                frames.fillGap(before: frameNum)
                if slice.isReference { kept = try frames.mark(frameNum: frameNum, operations: slice.markingOperations) }
            }
            return try slices.renumbered(slice, by: shift, operations: kept)
        }
        references = frames
        return edited
    }
}
