import Testing
@testable import VideoWM

private func plan(share reencoded: Int64) -> SmartPlan {
    SmartPlan(spans: reencoded > 0 ? [ReencodedSpan(replacedPackets: [0], decodedPackets: 0..<1)] : [], packetCount: 100,
              reencodedDuration: reencoded, totalDuration: 100)
}

@Test func autoSaysWhichAndWhy() throws {
    let smart = try RenderDecision.decide(.auto, obstacle: nil) { .success(plan(share: 20)) }
    #expect(smart.plan != nil)
    #expect(smart.notice == "render: smart (marks are visible in GOPs covering 20% of the video; the rest is copied)")
    let everywhere = try RenderDecision.decide(.auto, obstacle: nil) { .failure(.marksInEveryGOP) }
    #expect(everywhere.plan == nil && everywhere.notice == "render: full (a mark is visible in every GOP)")
    let mostly = try RenderDecision.decide(.auto, obstacle: nil) { .success(plan(share: 90)) }
    #expect(mostly.plan == nil && mostly.notice == "render: full (marks are visible in GOPs covering 90% of the video)")
    let nothing = try RenderDecision.decide(.auto, obstacle: nil) { .success(plan(share: 0)) }
    #expect(nothing.plan != nil && nothing.notice == "render: smart (no mark is visible at any time; the video is copied)")
    let blocked = try RenderDecision.decide(.auto, obstacle: "the output asks for a different codec") { .success(plan(share: 20)) }
    #expect(blocked.plan == nil && blocked.notice == "render: full (the output asks for a different codec)")
}

@Test func smartIsRefusedWithTheReasonAndFullIsSilent() throws {
    #expect(throws: RenderError(file: "", reason: "a mark is visible in every GOP")) {
        try RenderDecision.decide(.smart, obstacle: nil) { .failure(.marksInEveryGOP) }
    }
    #expect(throws: RenderError(file: "", reason: "the input's video is mpeg4, not H.264, HEVC or VP9")) {
        try RenderDecision.decide(.smart, obstacle: "the input's video is mpeg4, not H.264, HEVC or VP9") { .success(plan(share: 1)) }
    }
    // Asked for explicitly, smart is followed even where auto would not bother.
    #expect(try RenderDecision.decide(.smart, obstacle: nil) { .success(plan(share: 90)) }.plan != nil)
    var planned = false
    let full = try RenderDecision.decide(.full, obstacle: nil) { planned = true; return .success(plan(share: 1)) }
    #expect(full == RenderDecision(plan: nil, notice: nil) && !planned)
}

@Test func summaryLine() {
    #expect(reencodedSummary(reencodedSeconds: 12, totalSeconds: 60) == "re-encoded 12.0 s of 60.0 s (20%)")
    #expect(reencodedSummary(reencodedSeconds: 0, totalSeconds: 0) == "re-encoded 0.0 s of 0.0 s (0%)")
}
