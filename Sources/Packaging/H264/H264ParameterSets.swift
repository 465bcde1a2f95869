/// The fields of H.264 sequence and picture parameter sets that decide how long a slice header is (ITU-T H.264
/// §7.3.2.1, §7.3.2.2, §7.3.3), read from the `avcC` record and from parameter sets inside samples.
struct H264ParameterSets: Sendable, Equatable {
    struct Sequence: Sendable, Equatable {
        var separateColourPlane = false
        /// ChromaArrayType: 0 for monochrome or separate planes, else chroma_format_idc.
        var chromaArrayType: UInt32 = 1
        var log2MaxFrameNumber = 4
        var pictureOrderCountType: UInt32 = 0
        var log2MaxPictureOrderCountLSB = 4
        var deltaPictureOrderAlwaysZero = false
        var frameMacroblocksOnly = true
        var pictureSizeInMapUnits: UInt32 = 0
    }

    struct Picture: Sendable, Equatable {
        var sequenceID: UInt32
        var entropyCodingCABAC: Bool
        var bottomFieldPictureOrderInFramePresent: Bool
        var sliceGroupCount: UInt32
        var sliceGroupMapType: UInt32
        var sliceGroupChangeRate: UInt32
        /// num_ref_idx_l0_default_active_minus1, num_ref_idx_l1_default_active_minus1.
        var referenceIndexDefaults: [UInt32]
        var weightedPrediction: Bool
        var weightedBipredictionIDC: UInt32
        var deblockingFilterControlPresent: Bool
        var redundantPictureCountPresent: Bool
    }

    private(set) var sequences: [UInt32: Sequence] = [:]
    private(set) var pictures: [UInt32: Picture] = [:]

    /// Takes in one parameter set NAL unit (its header byte first); other NAL units are ignored.
    mutating func read(nalUnit bytes: [UInt8], range: Range<Int>, location: String) throws(MP4StructureError) {
        guard !range.isEmpty else { return }
        let payload = range.lowerBound + 1..<range.upperBound
        switch bytes[range.lowerBound] & 0x1F {
        case 7: try readSequence(bytes, payload, location)
        case 8: try readPicture(bytes, payload, location)
        default: break
        }
    }

    private mutating func readSequence(_ bytes: [UInt8], _ payload: Range<Int>, _ location: String) throws(MP4StructureError) {
        var reader = RBSPBitReader(bytes, range: payload, location: location + " (SPS)")
        let profile = try reader.bits(8)
        _ = try reader.bits(16)  // constraint flags, level
        let id = try reader.unsignedExpGolomb(in: 0...31, "seq_parameter_set_id")
        var sps = Sequence()
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            let chromaFormat = try reader.unsignedExpGolomb(in: 0...3, "chroma_format_idc")
            if chromaFormat == 3 { sps.separateColourPlane = try reader.flag() }
            sps.chromaArrayType = sps.separateColourPlane ? 0 : chromaFormat
            _ = try reader.unsignedExpGolomb()  // bit_depth_luma_minus8
            _ = try reader.unsignedExpGolomb()  // bit_depth_chroma_minus8
            _ = try reader.bit()  // qpprime_y_zero_transform_bypass_flag
            if try reader.flag() {  // seq_scaling_matrix_present_flag
                for list in 0..<(chromaFormat == 3 ? 12 : 8) where try reader.flag() {
                    try Self.skipScalingList(&reader, size: list < 6 ? 16 : 64)
                }
            }
        }
        sps.log2MaxFrameNumber = Int(try reader.unsignedExpGolomb(in: 0...12, "log2_max_frame_num_minus4")) + 4
        sps.pictureOrderCountType = try reader.unsignedExpGolomb(in: 0...2, "pic_order_cnt_type")
        if sps.pictureOrderCountType == 0 {
            sps.log2MaxPictureOrderCountLSB = Int(try reader.unsignedExpGolomb(in: 0...12, "log2_max_pic_order_cnt_lsb_minus4")) + 4
        } else if sps.pictureOrderCountType == 1 {
            sps.deltaPictureOrderAlwaysZero = try reader.flag()
            _ = try reader.signedExpGolomb()  // offset_for_non_ref_pic
            _ = try reader.signedExpGolomb()  // offset_for_top_to_bottom_field
            let cycle = try reader.unsignedExpGolomb(in: 0...255, "num_ref_frames_in_pic_order_cnt_cycle")
            for _ in 0..<cycle { _ = try reader.signedExpGolomb() }
        }
        _ = try reader.unsignedExpGolomb()  // max_num_ref_frames
        _ = try reader.bit()  // gaps_in_frame_num_value_allowed_flag
        let widthInMacroblocks = try reader.unsignedExpGolomb(in: 0...1023, "pic_width_in_mbs_minus1") + 1
        let heightInMapUnits = try reader.unsignedExpGolomb(in: 0...1023, "pic_height_in_map_units_minus1") + 1
        sps.pictureSizeInMapUnits = widthInMacroblocks * heightInMapUnits
        sps.frameMacroblocksOnly = try reader.flag()
        sequences[id] = sps
    }

    /// scaling_list() (§7.3.2.1.1.1): only its length matters here.
    private static func skipScalingList(_ reader: inout RBSPBitReader, size: Int) throws(MP4StructureError) {
        var last: Int32 = 8
        var next: Int32 = 8
        for _ in 0..<size {
            if next != 0 {
                let delta = try reader.signedExpGolomb()
                next = (last + delta + 256) % 256
            }
            last = next == 0 ? last : next
        }
    }

    private mutating func readPicture(_ bytes: [UInt8], _ payload: Range<Int>, _ location: String) throws(MP4StructureError) {
        var reader = RBSPBitReader(bytes, range: payload, location: location + " (PPS)")
        let id = try reader.unsignedExpGolomb(in: 0...255, "pic_parameter_set_id")
        let sequenceID = try reader.unsignedExpGolomb(in: 0...31, "seq_parameter_set_id")
        let cabac = try reader.flag()
        let bottomField = try reader.flag()
        let groups = try reader.unsignedExpGolomb(in: 0...7, "num_slice_groups_minus1") + 1
        var mapType: UInt32 = 0
        var changeRate: UInt32 = 1
        if groups > 1 {
            mapType = try reader.unsignedExpGolomb(in: 0...6, "slice_group_map_type")
            switch mapType {
            case 0:
                for _ in 0..<groups { _ = try reader.unsignedExpGolomb() }  // run_length_minus1
            case 2:
                for _ in 0..<(groups - 1) {
                    _ = try reader.unsignedExpGolomb()  // top_left
                    _ = try reader.unsignedExpGolomb()  // bottom_right
                }
            case 3, 4, 5:
                _ = try reader.bit()  // slice_group_change_direction_flag
                changeRate = try reader.unsignedExpGolomb(in: 0...(1 << 20), "slice_group_change_rate_minus1") + 1
            case 6:
                let units = try reader.unsignedExpGolomb(in: 0...(1 << 20), "pic_size_in_map_units_minus1") + 1
                let idBits = Self.ceilLog2(groups)
                for _ in 0..<units { _ = try reader.bits(idBits) }
            default:
                break
            }
        }
        let l0 = try reader.unsignedExpGolomb(in: 0...31, "num_ref_idx_l0_default_active_minus1")
        let l1 = try reader.unsignedExpGolomb(in: 0...31, "num_ref_idx_l1_default_active_minus1")
        let weighted = try reader.flag()
        let bipred = try reader.bits(2)
        _ = try reader.signedExpGolomb()  // pic_init_qp_minus26
        _ = try reader.signedExpGolomb()  // pic_init_qs_minus26
        _ = try reader.signedExpGolomb()  // chroma_qp_index_offset
        let deblocking = try reader.flag()
        _ = try reader.bit()  // constrained_intra_pred_flag
        let redundant = try reader.flag()
        pictures[id] = Picture(sequenceID: sequenceID, entropyCodingCABAC: cabac, bottomFieldPictureOrderInFramePresent: bottomField,
                               sliceGroupCount: groups, sliceGroupMapType: mapType, sliceGroupChangeRate: changeRate,
                               referenceIndexDefaults: [l0, l1], weightedPrediction: weighted, weightedBipredictionIDC: bipred,
                               deblockingFilterControlPresent: deblocking, redundantPictureCountPresent: redundant)
    }

    /// Ceil(Log2(n)) for n ≥ 1.
    static func ceilLog2(_ n: UInt32) -> Int {
        var bits = 0
        while (UInt64(1) << bits) < UInt64(n) { bits += 1 }
        return bits
    }
}
