/// `--render auto|full|smart`: whether a copy is smart-rendered, and the one line that says so.
public enum RenderMode: String, Sendable, CaseIterable {
    /// Smart where it is possible and saves work, else full, with a notice saying which and why.
    case auto
    /// Every frame decoded, marked and encoded.
    case full
    /// Only the GOPs in which a mark is visible re-encoded; refused (`RenderError`) where impossible.
    case smart
}

struct RenderDecision: Equatable {
    /// The plan to follow; nil renders every frame.
    var plan: SmartPlan?
    /// The notice line for `auto` (nil for an explicit mode that was followed as asked).
    var notice: String?

    /// Above this share of re-encoded duration, `auto` renders everything: the copy would cost about as
    /// much and every seam is a place where the re-encoded pictures meet the input's.
    static let worthwhileShare = 0.8

    /// - Parameters:
    ///   - obstacle: why no smart rendering is possible before planning (a codec, size or pixel-format
    ///     change asked, an unsupported codec or container), or nil.
    ///   - planning: the planner's result when there was no obstacle.
    ///   - file: the input, named by a refusal.
    static func decide(_ mode: RenderMode, obstacle: String?, file: String = "",
                       planning: () -> Result<SmartPlan, SmartPlanRefusal>) throws(RenderError) -> RenderDecision {
        if mode == .full { return RenderDecision(plan: nil, notice: nil) }
        if let obstacle {
            if mode == .smart { throw RenderError(file: file, reason: obstacle) }
            return RenderDecision(plan: nil, notice: "render: full (\(obstacle))")
        }
        switch planning() {
        case .failure(let refusal):
            if mode == .smart { throw RenderError(file: file, reason: refusal.description) }
            return RenderDecision(plan: nil, notice: "render: full (\(refusal))")
        case .success(let plan):
            if mode == .smart { return RenderDecision(plan: plan, notice: nil) }
            if plan.spans.isEmpty {
                return RenderDecision(plan: plan, notice: "render: smart (no mark is visible at any time; the video is copied)")
            }
            if plan.reencodedShare > worthwhileShare {
                return RenderDecision(plan: nil, notice: "render: full (marks are visible in GOPs covering \(percent(plan.reencodedShare)) of the video)")
            }
            return RenderDecision(plan: plan, notice: "render: smart (marks are visible in GOPs covering \(percent(plan.reencodedShare)) of the video; the rest is copied)")
        }
    }
}

/// "re-encoded 12.0 s of 60.0 s (20%)": the transcode summary's share.
func reencodedSummary(reencodedSeconds: Double, totalSeconds: Double) -> String {
    let share = totalSeconds > 0 ? reencodedSeconds / totalSeconds : 0
    return "re-encoded \(oneDecimal(reencodedSeconds)) s of \(oneDecimal(totalSeconds)) s (\(percent(share)))"
}

private func oneDecimal(_ x: Double) -> String {
    let tenths = Int((x * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

private func percent(_ share: Double) -> String {
    "\(Int((share * 100).rounded()))%"
}
