import Testing
@testable import VideoWM

/// Packets of a 30 fps stream in a 1/30 time base, decode order, each GOP `I P B B P B B …` with a
/// B-frame delay of one: frame n is shown at pts n.
private func closedGOPs(count: Int, length: Int, idr: Bool = true) -> [IndexedVideoPacket] {
    var packets: [IndexedVideoPacket] = []
    for g in 0..<count {
        let base = Int64(g * length)
        var order: [Int64] = [0]
        var n: Int64 = 1
        while n < Int64(length) {
            let p = min(n + 2, Int64(length) - 1)
            order.append(p)
            for b in n..<p { order.append(b) }
            n = p + 1
        }
        for (i, offset) in order.enumerated() {
            packets.append(IndexedVideoPacket(pts: base + offset, duration: 1, isKeyframe: i == 0,
                                              nal: PacketNALSummary(isIDR: i == 0 && idr)))
        }
    }
    return packets
}

/// Open GOPs: each keyframe after the first is followed in decode order by two leading pictures shown
/// before it (pts key-2, key-1). `kind` marks the keyframes' NAL summary; leading ones are RASL when `rasl`.
private func openGOPs(count: Int, length: Int, keyframe: PacketNALSummary, rasl: Bool) -> [IndexedVideoPacket] {
    var packets: [IndexedVideoPacket] = []
    for g in 0..<count {
        let key = Int64(g * length)
        packets.append(IndexedVideoPacket(pts: key, duration: 1, isKeyframe: true,
                                          nal: g == 0 ? PacketNALSummary(isIDR: true) : keyframe))
        if g > 0 {
            for lead in [key - 2, key - 1] {
                packets.append(IndexedVideoPacket(pts: lead, duration: 1, isKeyframe: false, nal: PacketNALSummary(isRASL: rasl)))
            }
        }
        let last = g + 1 < count ? key + Int64(length) - 3 : key + Int64(length) - 1
        for p in (key + 1)...last { packets.append(IndexedVideoPacket(pts: p, duration: 1, isKeyframe: false)) }
    }
    return packets
}

private func marked(_ packets: [IndexedVideoPacket], _ ranges: [Range<Int64>]) -> (Int) -> Bool {
    { i in ranges.contains { $0.contains(packets[i].pts) } }
}

@Test func closedGOPsReencodeExactlyTheGOPsAMarkTouches() throws {
    // 60 s at 30 fps, 2-s GOPs; marks 10–16 s and 40–46 s: 20%.
    let packets = closedGOPs(count: 30, length: 60)
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [300..<480, 1200..<1380]))
    #expect(plan.spans.count == 2)
    #expect(plan.spans[0].replacedPackets == Array(300..<480))
    #expect(plan.spans[0].decodedPackets == 300..<480)
    #expect(plan.spans[1].replacedPackets == Array(1200..<1380))
    #expect(plan.reencodedDuration == 360 && plan.totalDuration == 1800)
    #expect(abs(plan.reencodedShare - 0.2) < 1e-12)
    #expect(plan.spans.allSatisfy { $0.keyframeBecomingBLA == nil })
}

@Test func aSpanStartingAndEndingMidGOPTakesTheWholeGOPs() throws {
    let packets = closedGOPs(count: 30, length: 60)
    // 11.5 s … 12.3 s touches the GOPs starting at 10 s and 12 s; one frame at 59.9 s the last GOP.
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [345..<369, 1797..<1798]))
    #expect(plan.spans.map(\.replacedPackets) == [Array(300..<420), Array(1740..<1800)])
}

@Test func aMarkOnOneBFrameStillMarksItsGOP() throws {
    // Decode order differs from presentation order; the GOP is found by the packet, not by position.
    let packets = closedGOPs(count: 3, length: 30)
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [59..<60]))
    #expect(plan.spans.map(\.replacedPackets) == [Array(30..<60)])
}

@Test func h264OpenGOPsExtendToTheNextIDR() throws {
    // Recovery-point I frames (not IDR) with leading pictures: nothing may be copied after a span
    // until an IDR; decoding starts one GOP early for the first GOP's leading pictures.
    var packets = openGOPs(count: 6, length: 30, keyframe: PacketNALSummary(), rasl: false)
    let idrGOP = packets.firstIndex { $0.pts == 120 }!
    packets[idrGOP].nal.isIDR = true  // the GOP at 4 s starts with an IDR (a closed-GOP scene cut)
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [40..<41]))
    let gop1 = packets.firstIndex { $0.pts == 30 }!
    #expect(plan.spans.count == 1)
    #expect(plan.spans[0].replacedPackets == Array(gop1..<idrGOP))
    #expect(plan.spans[0].decodedPackets == 0..<idrGOP)
}

@Test func h264OpenGOPsWithoutALaterIDRReencodeToTheEnd() throws {
    let packets = openGOPs(count: 4, length: 30, keyframe: PacketNALSummary(), rasl: false)
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [70..<71]))
    let gop2 = packets.firstIndex { $0.pts == 60 }!
    #expect(plan.spans.map(\.replacedPackets) == [Array(gop2..<packets.count)])
    #expect(plan.spans[0].decodedPackets.lowerBound == packets.firstIndex { $0.pts == 30 }!)
}

@Test func h264RecoveryPointAfterASpanTakesItsLeadingPicturesAndBecomesAnIDR() throws {
    // x264 open-gop=1: keyframes after the first are recovery-point I pictures; every leading picture
    // may reference the GOP before, so they are re-encoded with the span and the keyframe is copied.
    let packets = openGOPs(count: 4, length: 30, keyframe: PacketNALSummary(isRecoveryPoint: true), rasl: false)
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [35..<36]))
    let gop1 = packets.firstIndex { $0.pts == 30 }!
    let gop2 = packets.firstIndex { $0.pts == 60 }!
    #expect(plan.spans.count == 1)
    #expect(plan.spans[0].replacedPackets == Array(gop1..<gop2) + [gop2 + 1, gop2 + 2])
    // Decoded from a GOP earlier (GOP 1's own leading pictures) through the keyframe to its leading pictures.
    #expect(plan.spans[0].decodedPackets == 0..<(gop2 + 3))
    #expect(plan.spans[0].keyframeBecomingIDR == gop2)
    #expect(plan.spans[0].keyframeBecomingBLA == nil)
    #expect(plan.reencodedDuration == 32)
}

@Test func markedLeadingPicturesAloneEndTheSpanBeforeTheirKeyframe() throws {
    // A mark on the two pictures shown just before the keyframe at 60: the span is GOP 1 and those two
    // pictures; GOP 2 itself is copied (today's rule took it whole, and its neighbour's leading pictures).
    let packets = openGOPs(count: 4, length: 30, keyframe: PacketNALSummary(isRecoveryPoint: true), rasl: false)
    let plan = try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [58..<60]))
    let gop1 = packets.firstIndex { $0.pts == 30 }!, gop2 = packets.firstIndex { $0.pts == 60 }!
    #expect(plan.spans.map(\.replacedPackets) == [Array(gop1..<gop2) + [gop2 + 1, gop2 + 2]])
    #expect(plan.spans[0].keyframeBecomingIDR == gop2)
}

@Test func hevcCRAAfterASpanTakesItsRASLPicturesAndBecomesBLA() throws {
    let packets = openGOPs(count: 4, length: 30, keyframe: PacketNALSummary(isCRA: true), rasl: true)
    let plan = try SmartPlan.make(packets: packets, codec: .hevc, isMarked: marked(packets, [35..<36]))
    let gop1 = packets.firstIndex { $0.pts == 30 }!
    let gop2 = packets.firstIndex { $0.pts == 60 }!
    #expect(plan.spans.count == 1)
    // GOP 1 whole, then the two RASL pictures of GOP 2 (shown at 58 and 59), not its CRA.
    #expect(plan.spans[0].replacedPackets == Array(gop1..<gop2) + [gop2 + 1, gop2 + 2])
    #expect(plan.spans[0].decodedPackets == packets.firstIndex { $0.pts == 0 }!..<(gop2 + 3))
    #expect(plan.spans[0].keyframeBecomingBLA?.packet == gop2)
    #expect(plan.spans[0].keyframeBecomingBLA?.nalType == 18)
    #expect(plan.reencodedDuration == 32)
}

@Test func hevcDecodableLeadingPicturesStayWithABLAWithRADL() throws {
    // Leading pictures that are not RASL (RADL) only reference the CRA: they stay copied.
    let packets = openGOPs(count: 3, length: 30, keyframe: PacketNALSummary(isCRA: true), rasl: false)
    let plan = try SmartPlan.make(packets: packets, codec: .hevc, isMarked: marked(packets, [5..<6]))
    let gop1 = packets.firstIndex { $0.pts == 30 }!
    #expect(plan.spans[0].replacedPackets == Array(0..<gop1))
    #expect(plan.spans[0].keyframeBecomingBLA?.nalType == 17)
}

@Test func hevcIDRNeedsNothing() throws {
    let packets = closedGOPs(count: 4, length: 30)
    let plan = try SmartPlan.make(packets: packets, codec: .hevc, isMarked: marked(packets, [30..<31]))
    #expect(plan.spans.map(\.replacedPackets) == [Array(30..<60)])
    #expect(plan.spans[0].keyframeBecomingBLA == nil)
}

@Test func vp9KeyframesAreSeams() throws {
    let packets = closedGOPs(count: 4, length: 30, idr: false)
    let plan = try SmartPlan.make(packets: packets, codec: .vp9, isMarked: marked(packets, [30..<31]))
    #expect(plan.spans.map(\.replacedPackets) == [Array(30..<60)])
}

@Test func marksInEveryGOPOrNoneRefuseOrPlanNothing() throws {
    let packets = closedGOPs(count: 4, length: 30)
    #expect(throws: SmartPlanRefusal.marksInEveryGOP) {
        try SmartPlan.make(packets: packets, codec: .h264, isMarked: marked(packets, [0..<1, 30..<31, 60..<61, 90..<91]))
    }
    let none = try SmartPlan.make(packets: packets, codec: .h264, isMarked: { _ in false })
    #expect(none.spans.isEmpty && none.reencodedShare == 0)
    // Open GOPs whose extension reaches every GOP count as every GOP.
    let open = openGOPs(count: 3, length: 30, keyframe: PacketNALSummary(), rasl: false)
    #expect(throws: SmartPlanRefusal.marksInEveryGOP) {
        try SmartPlan.make(packets: open, codec: .h264, isMarked: marked(open, [0..<1]))
    }
}

@Test func streamsThatCannotBePlanned() {
    #expect(throws: SmartPlanRefusal.noPackets) { try SmartPlan.make(packets: [], codec: .h264, isMarked: { _ in true }) }
    let noKey = [IndexedVideoPacket(pts: 0, duration: 1, isKeyframe: false)]
    #expect(throws: SmartPlanRefusal.doesNotStartWithKeyframe) { try SmartPlan.make(packets: noKey, codec: .h264, isMarked: { _ in true }) }
}
