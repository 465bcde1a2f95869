/// How many stored bytes of an H.264 slice NAL unit (types 1 and 5) its header byte and slice header take (ITU-T
/// H.264 §7.3.3): the part Common Encryption leaves clear so a decoder can parse it before decrypting
/// (ISO/IEC 23001-7 §10.2, and CMAF's rule for `cbcs`: protection starts at the first byte after the slice header).
enum H264SliceHeader {
    /// The clear length, counted from the NAL header byte (at `range.lowerBound`) to the end of the stored byte that
    /// holds the slice header's last bit.
    static func clearLength(of bytes: [UInt8], range: Range<Int>, parameterSets: H264ParameterSets,
                            location: String) throws(MP4StructureError) -> Int {
        precondition(!range.isEmpty, "a NAL unit has a header byte")
        let header = bytes[range.lowerBound]
        let nalType = header & 0x1F
        let referenceIDC = header >> 5 & 3
        let isIDR = nalType == 5
        var reader = RBSPBitReader(bytes, range: range.lowerBound + 1..<range.upperBound, location: location)

        _ = try reader.unsignedExpGolomb()  // first_mb_in_slice
        let sliceType = try reader.unsignedExpGolomb(in: 0...9, "slice_type") % 5
        let (isP, isB, isI, isSP, isSI) = (sliceType == 0, sliceType == 1, sliceType == 2, sliceType == 3, sliceType == 4)
        let ppsID = try reader.unsignedExpGolomb(in: 0...255, "pic_parameter_set_id")
        guard let pps = parameterSets.pictures[ppsID] else { throw .malformed(location, "the slice names PPS \(ppsID), which no parameter set defines") }
        guard let sps = parameterSets.sequences[pps.sequenceID] else {
            throw .malformed(location, "PPS \(ppsID) names SPS \(pps.sequenceID), which no parameter set defines")
        }
        if sps.separateColourPlane { _ = try reader.bits(2) }  // colour_plane_id
        _ = try reader.bits(sps.log2MaxFrameNumber)  // frame_num
        var fieldPicture = false
        if !sps.frameMacroblocksOnly {
            fieldPicture = try reader.flag()
            if fieldPicture { _ = try reader.bit() }  // bottom_field_flag
        }
        if isIDR { _ = try reader.unsignedExpGolomb() }  // idr_pic_id
        if sps.pictureOrderCountType == 0 {
            _ = try reader.bits(sps.log2MaxPictureOrderCountLSB)  // pic_order_cnt_lsb
            if pps.bottomFieldPictureOrderInFramePresent && !fieldPicture { _ = try reader.signedExpGolomb() }
        }
        if sps.pictureOrderCountType == 1 && !sps.deltaPictureOrderAlwaysZero {
            _ = try reader.signedExpGolomb()  // delta_pic_order_cnt[0]
            if pps.bottomFieldPictureOrderInFramePresent && !fieldPicture { _ = try reader.signedExpGolomb() }
        }
        if pps.redundantPictureCountPresent { _ = try reader.unsignedExpGolomb() }
        if isB { _ = try reader.bit() }  // direct_spatial_mv_pred_flag
        var (l0, l1) = (pps.referenceIndexDefaults[0], pps.referenceIndexDefaults[1])
        if isP || isSP || isB {
            if try reader.flag() {  // num_ref_idx_active_override_flag
                l0 = try reader.unsignedExpGolomb(in: 0...31, "num_ref_idx_l0_active_minus1")
                if isB { l1 = try reader.unsignedExpGolomb(in: 0...31, "num_ref_idx_l1_active_minus1") }
            }
        }
        // ref_pic_list_modification() (§7.3.3.1)
        if !isI && !isSI { try skipReferenceListModification(&reader) }
        if isB { try skipReferenceListModification(&reader) }
        if (pps.weightedPrediction && (isP || isSP)) || (pps.weightedBipredictionIDC == 1 && isB) {
            try skipPredictionWeightTable(&reader, chroma: sps.chromaArrayType != 0, l0: l0, l1: isB ? l1 : nil)
        }
        if referenceIDC != 0 { try skipReferencePictureMarking(&reader, idr: isIDR) }
        if pps.entropyCodingCABAC && !isI && !isSI { _ = try reader.unsignedExpGolomb() }  // cabac_init_idc
        _ = try reader.signedExpGolomb()  // slice_qp_delta
        if isSP || isSI {
            if isSP { _ = try reader.bit() }  // sp_for_switch_flag
            _ = try reader.signedExpGolomb()  // slice_qs_delta
        }
        if pps.deblockingFilterControlPresent {
            if try reader.unsignedExpGolomb() != 1 {  // disable_deblocking_filter_idc
                _ = try reader.signedExpGolomb()  // slice_alpha_c0_offset_div2
                _ = try reader.signedExpGolomb()  // slice_beta_offset_div2
            }
        }
        if pps.sliceGroupCount > 1 && (3...5).contains(pps.sliceGroupMapType) {
            // Ceil(Log2(PicSizeInMapUnits ÷ SliceGroupChangeRate + 1)), the division exact.
            let rate = UInt64(pps.sliceGroupChangeRate)
            var bits = 0
            while (UInt64(1) << bits) * rate < UInt64(sps.pictureSizeInMapUnits) + rate { bits += 1 }
            _ = try reader.bits(bits)  // slice_group_change_cycle
        }
        return reader.storedEnd - range.lowerBound
    }

    private static func skipReferenceListModification(_ reader: inout RBSPBitReader) throws(MP4StructureError) {
        guard try reader.flag() else { return }
        for _ in 0..<100 {
            // 0, 1: abs_diff_pic_num_minus1 follows; 2: long_term_pic_num; 3 ends the list.
            guard try reader.unsignedExpGolomb(in: 0...3, "modification_of_pic_nums_idc") != 3 else { return }
            _ = try reader.unsignedExpGolomb()
        }
        throw .malformed(reader.location, "a reference list modification that does not end")
    }

    private static func skipPredictionWeightTable(_ reader: inout RBSPBitReader, chroma: Bool, l0: UInt32, l1: UInt32?) throws(MP4StructureError) {
        _ = try reader.unsignedExpGolomb()  // luma_log2_weight_denom
        if chroma { _ = try reader.unsignedExpGolomb() }  // chroma_log2_weight_denom
        for count in [l0] + (l1.map { [$0] } ?? []) {
            for _ in 0...count {
                if try reader.flag() {  // luma_weight_lX_flag
                    _ = try reader.signedExpGolomb()
                    _ = try reader.signedExpGolomb()
                }
                if chroma, try reader.flag() {  // chroma_weight_lX_flag
                    for _ in 0..<4 { _ = try reader.signedExpGolomb() }
                }
            }
        }
    }

    private static func skipReferencePictureMarking(_ reader: inout RBSPBitReader, idr: Bool) throws(MP4StructureError) {
        if idr {
            _ = try reader.bits(2)  // no_output_of_prior_pics_flag, long_term_reference_flag
            return
        }
        guard try reader.flag() else { return }  // adaptive_ref_pic_marking_mode_flag
        for _ in 0..<100 {
            let operation = try reader.unsignedExpGolomb(in: 0...6, "memory_management_control_operation")
            if operation == 0 { return }
            if operation == 1 || operation == 3 { _ = try reader.unsignedExpGolomb() }  // difference_of_pic_nums_minus1
            if operation == 2 { _ = try reader.unsignedExpGolomb() }  // long_term_pic_num
            if operation == 3 || operation == 6 { _ = try reader.unsignedExpGolomb() }  // long_term_frame_idx
            if operation == 4 { _ = try reader.unsignedExpGolomb() }  // max_long_term_frame_idx_plus1
        }
        throw .malformed(reader.location, "a reference picture marking that does not end")
    }
}
