import Testing
@testable import VideoWM

// Three closed GOPs of 4 pictures, decode order I P B B (pts 0 3 1 2), decode delay of one picture.
private let pts: [Int64] = [0, 3, 1, 2, 4, 7, 5, 6, 8, 11, 9, 10]
private let dts: [Int64] = (0..<12).map { Int64($0) - 1 }
private let packets = pts.enumerated().map { IndexedVideoPacket(pts: $1, duration: 1, isKeyframe: $0 % 4 == 0, nal: PacketNALSummary(isIDR: $0 % 4 == 0)) }

@Test func encodedPacketsTakeTheSpansPlaceAndTheInputsDecodeTimes() throws {
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: { $0 == 6 })
    // The encoder reorders less deeply (no B-frames): I P P P.
    let order = try SplicedDecodeOrder.make(plan: plan, inputPTS: pts, inputDTS: dts, encodedPTS: [[4, 5, 6, 7]])
    #expect(order.entries.map(\.dts) == dts)
    #expect(order.entries.map(\.pts) == [0, 3, 1, 2, 4, 5, 6, 7, 8, 11, 9, 10])
    #expect(order.entries[4].source == .encoded(span: 0, index: 0))
    #expect(order.entries[8].source == .copied(packet: 8))
}

@Test func deeperReorderingThanTheInputIsRefused() throws {
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: { $0 == 6 })
    // Decode order I(4) P(7) B(6) B(5) reorders two deep where the input reorders one: the picture
    // shown at 5 would be decoded at the fourth position's time, 6.
    #expect(throws: SplicedDecodeOrder.Failure.decodedAfterShown(pts: 5, dts: 6)) {
        try SplicedDecodeOrder.make(plan: plan, inputPTS: pts, inputDTS: dts, encodedPTS: [[4, 7, 6, 5]])
    }
    #expect(throws: SplicedDecodeOrder.Failure.pictureCountMismatch(span: 0, replaced: 4, encoded: 3)) {
        try SplicedDecodeOrder.make(plan: plan, inputPTS: pts, inputDTS: dts, encodedPTS: [[4, 5, 6]])
    }
}

@Test func raslPicturesThatJoinedTheSpanMoveBeforeTheirBLA() throws {
    // GOP 0: I(0) P(3) B(1) B(2); GOP 1: CRA(6) RASL(4) RASL(5) P(7); both RASL re-encoded with GOP 0.
    let hevcPTS: [Int64] = [0, 3, 1, 2, 6, 4, 5, 7]
    let hevcDTS: [Int64] = (0..<8).map { Int64($0) - 1 }
    let hevc = hevcPTS.enumerated().map { i, p in
        IndexedVideoPacket(pts: p, duration: 1, isKeyframe: i == 0 || i == 4,
                           nal: PacketNALSummary(isIDR: i == 0, isCRA: i == 4, isRASL: i == 5 || i == 6))
    }
    let plan = try SmartPlan.make(packets: hevc, codec: .hevc, isMarked: { $0 == 1 })
    #expect(plan.spans[0].replacedPackets == [0, 1, 2, 3, 5, 6])
    let order = try SplicedDecodeOrder.make(plan: plan, inputPTS: hevcPTS, inputDTS: hevcDTS, encodedPTS: [[0, 2, 1, 3, 5, 4]])
    #expect(order.entries.map(\.pts) == [0, 2, 1, 3, 5, 4, 6, 7])
    #expect(order.entries[6].source == .copied(packet: 4))
    #expect(order.entries.map(\.dts) == hevcDTS)
}
