/// `--render auto|full|smart`: whether a copy is smart-rendered, and the one line that says so.
public enum RenderMode: String, Sendable, CaseIterable {
    /// Smart where it is possible and saves work, else full, with a notice saying which and why.
    case auto
    /// Every frame decoded, marked and encoded.
    case full
    /// Only the GOPs in which a mark is visible re-encoded; refused (`RenderError`) where impossible.
    case smart
}

/// Why smart rendering cannot apply to an output, found before planning.
struct RenderObstacle: Equatable {
    var reason: String
    /// Whether `auto` says so in a notice: the user could act on it (an input codec or picture the
    /// splice cannot take, an input whose packets cannot be planned) and the marks do hide at times.
    /// Options that ask for every frame (another codec, size, container or keyframe interval) make
    /// the full render what the user expects, and so do marks that never hide: no notice then.
    var isNotable: Bool
}

/// `auto`'s, `smart`'s or `full`'s decision for one output.
///
/// `auto` prints a notice only where it falls back to a full render for a reason the user could act
/// on; where the marks show in every GOP (an always-on mark: most configs) the full render is what was
/// expected, and where smart rendering applies the summary line says how much was re-encoded. The
/// reason is kept either way, for `--progress json` and `-v`.
struct RenderDecision: Equatable {
    /// The plan to follow; nil renders every frame.
    var plan: SmartPlan?
    /// Why `auto` decided as it did ("a mark is visible in every GOP"); nil for an explicit mode.
    var reason: String? = nil
    /// The notice line `auto` prints once the output has its first frame; nil for none.
    var notice: String? = nil

    /// Above this share of re-encoded duration, `auto` renders everything: the copy would cost about as
    /// much and every seam is a place where the re-encoded pictures meet the input's.
    static let worthwhileShare = 0.8

    /// A full render for `reason`, with a notice when `notable`.
    private static func full(_ reason: String, notable: Bool) -> RenderDecision {
        RenderDecision(plan: nil, reason: reason, notice: notable ? "render: full (\(reason))" : nil)
    }

    /// - Parameters:
    ///   - obstacle: why no smart rendering is possible before planning (a codec, size or pixel-format
    ///     change asked, an unsupported codec or container), or nil.
    ///   - planning: the planner's result when there was no obstacle.
    ///   - file: the input, named by a refusal.
    static func decide(_ mode: RenderMode, obstacle: RenderObstacle?, file: String = "",
                       planning: () -> Result<SmartPlan, SmartPlanRefusal>) throws(RenderError) -> RenderDecision {
        if mode == .full { return RenderDecision(plan: nil) }
        if let obstacle {
            if mode == .smart { throw RenderError(file: file, reason: obstacle.reason) }
            return full(obstacle.reason, notable: obstacle.isNotable)
        }
        switch planning() {
        case .failure(let refusal):
            if mode == .smart { throw RenderError(file: file, reason: refusal.description) }
            // A mark shown in every GOP is the usual always-on mark: the full render is simply what it costs.
            return full(refusal.description, notable: refusal != .marksInEveryGOP)
        case .success(let plan):
            if mode == .smart { return RenderDecision(plan: plan) }
            if plan.spans.isEmpty { return RenderDecision(plan: plan, reason: "no mark is visible at any time; the video is copied") }
            if plan.reencodedShare > worthwhileShare {
                return full("marks are visible in GOPs covering \(percent(plan.reencodedShare)) of the video, "
                            + "and smart rendering needs a fifth of it copied", notable: true)
            }
            return RenderDecision(plan: plan, reason: "marks are visible in GOPs covering \(percent(plan.reencodedShare)) of the video; the rest is copied")
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
