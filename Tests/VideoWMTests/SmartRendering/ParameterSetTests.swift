import Testing
@testable import VideoWM

// An avcC in the shape x264 writes (High, level 3.1, 4-byte lengths, High tail), units shortened, and an
// Annex B global header as x264 writes it with sps-id=1 (SPS, PPS, SEI).
private let inputRecord: [UInt8] = [
    0x01, 0x64, 0x00, 0x1F, 0xFF, 0xE1, 0x00, 0x04, 0x67, 0x64, 0x00, 0x1F, 0x01, 0x00, 0x04, 0x68, 0xEB, 0xE3, 0xCB,
    0xFD, 0xF8, 0xF8, 0x00,
]
private let encoderHeader: [UInt8] = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1F, 0x40, 0, 0, 0, 1, 0x68, 0x40, 0x11, 0, 0, 1, 0x06, 0x05]

@Test func avcRecordListsTheInputsSetsThenTheEncoders() throws {
    let record = try AVCConfigurationRecord(inputRecord)
    #expect(record.lengthSize == 4)
    #expect(record.sequenceParameterSets == [[0x67, 0x64, 0x00, 0x1F]])
    #expect(record.pictureParameterSets == [[0x68, 0xEB, 0xE3, 0xCB]])
    #expect(record.bytes == inputRecord)  // round trip, High-profile tail included
    let joined = try record.adding(encoderHeader: encoderHeader)
    #expect(joined.sequenceParameterSets.count == 2 && joined.pictureParameterSets.count == 2)
    #expect(joined.sequenceParameterSets[1] == [0x67, 0x64, 0x00, 0x1F, 0x40])
    #expect(joined.profile == 0x64 && joined.level == 0x1F)
    #expect(try AVCConfigurationRecord(joined.bytes) == joined)
}

@Test func theFirstUnusedSPSIDIsFoundFromTheSetsThemselves() throws {
    // seq_parameter_set_id ue(v) right after level_idc: bit string "1" is id 0, "010" id 1.
    var record = try AVCConfigurationRecord(inputRecord)
    #expect(H264SPS.id(of: [0x67, 0x64, 0x00, 0x1F, 0x80]) == 0)
    #expect(H264SPS.id(of: [0x67, 0x64, 0x00, 0x1F, 0x40]) == 1)
    record.sequenceParameterSets = [[0x67, 0x64, 0x00, 0x1F, 0x80]]
    record.pictureParameterSets = []
    #expect(try H264ParameterSetIDs.free(usedBy: record.sequenceParameterSets) == 1)
    record.sequenceParameterSets.append([0x67, 0x64, 0x00, 0x1F, 0x40])
    #expect(try H264ParameterSetIDs.free(usedBy: record.sequenceParameterSets) == 2)
    // A PPS's id (its first ue(v): "011" is id 2) is taken too: x264 gives both sets the one id.
    #expect(try H264ParameterSetIDs.free(usedBy: record.sequenceParameterSets + [[0x68, 0x60]]) == 3)
}

@Test func everyIDTakenIsAnErrorNotACollision() throws {
    #expect(throws: ParameterSetError.noFreeID) { try H264ParameterSetIDs.free(avoiding: Set(0...31)) }
    #expect(try H264ParameterSetIDs.free(avoiding: Set(0...30)) == 31)
}

@Test func malformedRecordsThrowInsteadOfReadingPastTheEnd() {
    #expect(throws: ParameterSetError.malformedRecord("avcC")) { try AVCConfigurationRecord([1, 0x64, 0, 0x1F, 0xFF, 0xE1, 0x00, 0x09, 0x67]) }
    #expect(throws: ParameterSetError.malformedRecord("hvcC")) { try hevcRecordParameterSets([1, 2, 3]) }
}

@Test func annexBBecomesLengthPrefixed() {
    #expect(annexBUnits(encoderHeader).count == 3)
    #expect(lengthPrefixed([[0x65, 0x88], [0x06]]) == [0, 0, 0, 2, 0x65, 0x88, 0, 0, 0, 1, 0x06])
}

@Test func hevcRecordGivesItsVPSSPSAndPPS() throws {
    // hvcC: 22 bytes of header fields, then 3 arrays (VPS 32, SPS 33, PPS 34), one unit each.
    var record: [UInt8] = [1] + Array(repeating: 0, count: 20) + [0x0F, 3]
    for type: UInt8 in [32, 33, 34] { record += [0x80 | type, 0, 1, 0, 3, type << 1, 1, 0xAA] }
    let units = try hevcRecordParameterSets(record)
    #expect(units.map { Int($0[0] >> 1) } == [32, 33, 34])
}

@Test func craSlicesBecomeBLAAndNothingElseChanges() {
    // A prefix SEI (39), then two CRA slice segments (21).
    let packet: [UInt8] = [0, 0, 0, 3, 39 << 1, 1, 0x05, 0, 0, 0, 3, 21 << 1, 1, 0xAF, 0, 0, 0, 3, 21 << 1, 1, 0x11]
    let rewritten = rewritingCRAToBLA(packet, lengthSize: 4, blaType: 18)
    var expected = packet
    expected[11] = 18 << 1
    expected[18] = 18 << 1
    #expect(rewritten == expected)
}
