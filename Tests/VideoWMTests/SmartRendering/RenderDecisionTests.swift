import Testing
@testable import VideoWM

private func plan(share reencoded: Int64) -> SmartPlan {
    SmartPlan(spans: reencoded > 0 ? [ReencodedSpan(replacedPackets: [0], decodedPackets: 0..<1)] : [], packetCount: 100,
              reencodedDuration: reencoded, totalDuration: 100)
}

/// auto gives a notice only where it falls back to a full render for a reason the user could act on;
/// every decision keeps its reason (for -v and --progress json).
@Test func autoNoticesOnlyFallbacksTheUserCouldActOn() throws {
    let smart = try RenderDecision.decide(.auto, obstacle: nil) { .success(plan(share: 20)) }
    #expect(smart.plan != nil && smart.notice == nil)
    #expect(smart.reason == "marks are visible in GOPs covering 20% of the video; the rest is copied")
    // An always-on mark: the full render is what it costs, no notice.
    let everywhere = try RenderDecision.decide(.auto, obstacle: nil) { .failure(.marksInEveryGOP) }
    #expect(everywhere.plan == nil && everywhere.notice == nil && everywhere.reason == "a mark is visible in every GOP")
    let mostly = try RenderDecision.decide(.auto, obstacle: nil) { .success(plan(share: 90)) }
    #expect(mostly.plan == nil)
    #expect(mostly.notice == "render: full (marks are visible in GOPs covering 90% of the video, and smart rendering needs a fifth of it copied)")
    let nothing = try RenderDecision.decide(.auto, obstacle: nil) { .success(plan(share: 0)) }
    #expect(nothing.plan != nil && nothing.notice == nil && nothing.reason == "no mark is visible at any time; the video is copied")
    let unplannable = try RenderDecision.decide(.auto, obstacle: nil) { .failure(.doesNotStartWithKeyframe) }
    #expect(unplannable.plan == nil && unplannable.notice == "render: full (the video does not start with a keyframe)")
    let unsupported = RenderObstacle(reason: "the input's video is mpeg4; smart rendering splices H.264, HEVC and VP9", isNotable: true)
    let blocked = try RenderDecision.decide(.auto, obstacle: unsupported) { .success(plan(share: 20)) }
    #expect(blocked.plan == nil && blocked.notice == "render: full (the input's video is mpeg4; smart rendering splices H.264, HEVC and VP9)")
    // A codec change asked for: every frame is re-encoded, as the user expects.
    let asked = RenderObstacle(reason: "--codec hevc asks for another codec than the input's h264", isNotable: false)
    let changed = try RenderDecision.decide(.auto, obstacle: asked) { .success(plan(share: 20)) }
    #expect(changed.plan == nil && changed.notice == nil && changed.reason == asked.reason)
}

@Test func smartIsRefusedWithTheReasonAndFullIsSilent() throws {
    #expect(throws: RenderError(file: "", reason: "a mark is visible in every GOP")) {
        try RenderDecision.decide(.smart, obstacle: nil) { .failure(.marksInEveryGOP) }
    }
    #expect(throws: RenderError(file: "", reason: "the input's video is mpeg4, not H.264, HEVC or VP9")) {
        try RenderDecision.decide(.smart, obstacle: RenderObstacle(reason: "the input's video is mpeg4, not H.264, HEVC or VP9", isNotable: true)) {
            .success(plan(share: 1))
        }
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
