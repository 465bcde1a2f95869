import Testing
@testable import VideoWM

@Test func lengthPrefixedAndAnnexBPacketsGiveTheSameUnits() {
    // An H.264 access unit: SEI (6), IDR slice (5); then the same in Annex B with a 4- and a 3-byte start code.
    let prefixed: [UInt8] = [0, 0, 0, 3, 0x06, 0xAA, 0xBB, 0, 0, 0, 2, 0x65, 0x88]
    let annexB: [UInt8] = [0, 0, 0, 1, 0x06, 0xAA, 0xBB, 0, 0, 1, 0x65, 0x88]
    prefixed.withUnsafeBytes { bytes in
        #expect(nalUnitRanges(in: bytes, framing: .lengthPrefixed(bytes: 4)) == [4..<7, 11..<13])
        #expect(PacketNALSummary(packet: bytes, framing: .lengthPrefixed(bytes: 4), codec: .h264) == PacketNALSummary(isIDR: true))
    }
    annexB.withUnsafeBytes { bytes in
        #expect(nalUnitRanges(in: bytes, framing: .annexB) == [4..<7, 10..<12])
        #expect(PacketNALSummary(packet: bytes, framing: .annexB, codec: .h264).isIDR)
    }
}

@Test func hevcTypesAreReadFromTheTwoByteHeader() {
    // CRA (21 << 1 = 0x2A) and RASL_N (8 << 1 = 0x10), each with its second header byte (0x01).
    let cra: [UInt8] = [0, 0, 0, 3, 0x2A, 0x01, 0xAF]
    let rasl: [UInt8] = [0, 0, 0, 3, 0x10, 0x01, 0xAF]
    cra.withUnsafeBytes { #expect(PacketNALSummary(packet: $0, framing: .lengthPrefixed(bytes: 4), codec: .hevc) == PacketNALSummary(isCRA: true)) }
    rasl.withUnsafeBytes { #expect(PacketNALSummary(packet: $0, framing: .lengthPrefixed(bytes: 4), codec: .hevc) == PacketNALSummary(isRASL: true)) }
}

@Test func truncatedLengthsEndTheScanInsteadOfReadingPastTheEnd() {
    let broken: [UInt8] = [0, 0, 0, 2, 0x65, 0x88, 0, 0, 0, 200, 0x41]
    broken.withUnsafeBytes { #expect(nalUnitRanges(in: $0, framing: .lengthPrefixed(bytes: 4)) == [4..<6]) }
}
