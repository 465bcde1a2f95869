import Animation
import Overlay

/// Which rendering a row gets, and what it reports: decided from the source and the row's
/// marks alone, before anything is rendered.
extension PresentationSource {
    /// How a row marked by `compositor` is rendered: `batch` shares wherever the input allows
    /// (and copies a row no layer marks); a `transcode` (`mode`) as `--render` says, `auto`
    /// falling back to `encoded` when marks cover more than 80 % of the video. Throws
    /// `RenderError` for `--render smart` where sharing is impossible.
    func rendering(markedBy compositor: Compositor, mode: RenderMode, forBatch: Bool) throws -> (PresentationRendering, RenderOutcome) {
        func full(_ reason: String, notable: Bool) -> RenderOutcome {
            RenderOutcome(isSmart: false, notice: notable ? "render: full (\(reason))" : nil, reason: reason)
        }
        if compositor.isEmpty && forBatch && !settings.copyCannotHonour {
            // A clean row (every layer left out by `unless`): the input's packets, shared where they can be.
            if case .success = sharedPlan, mode != .full { return (.sharedCopies, outcome(.sharedCopies, marked: [])) }
            if copiedPlan != nil { return (.copied, RenderOutcome(isSmart: false)) }
        }
        guard mode != .full else { return (.encoded, .full) }
        switch sharedPlan {
        case .failure(let refusal):
            if mode == .smart {
                throw RenderError(file: input, reason: "\(forBatch ? "the rows' HLS segments cannot be shared" : "its HLS segments cannot be copied"): \(refusal)")
            }
            let notable = !refusal.askedByOptions && !forBatch && !marksNeverHide(compositor)
            return (.encoded, full(refusal.reason, notable: notable))
        case .success(let shared):
            let outcome = outcome(.sharedCopies, marked: markedSegments(shared.plan, by: compositor))
            guard !forBatch && mode == .auto && outcome.reencodedShare > RenderDecision.worthwhileShare else { return (.sharedCopies, outcome) }
            let covered = Int((outcome.reencodedShare * 100).rounded())
            // Marks in every segment are the usual always-on mark: the full render is simply what it costs.
            if covered == 100 { return (.encoded, full("a mark is visible in every segment", notable: false)) }
            return (.encoded, full("marks are visible in segments covering \(covered)% of the video, and copying needs a fifth of it unmarked",
                                   notable: true))
        }
    }

    /// For each segment of `plan`, whether `compositor` draws on some picture of it.
    func markedSegments(_ plan: PresentationPlan, by compositor: Compositor) -> [Bool] {
        guard !compositor.isEmpty else { return [Bool](repeating: false, count: plan.segmentCount) }
        precondition(plan.rendering != .copied, "a copied plan's positions are not its pictures")
        return plan.positions.map { range in range.contains { compositor.drawsAnything(at: plan.time(plan.pictureTimestamps[$0])) } }
    }

    /// For each segment of `plan`, whether a layer of `compositor` other than its variant layer
    /// draws on some picture of it: the segments a student of a lecture with a variant layer
    /// re-encodes (everywhere else their copy is the lecture's shared render of their variant).
    func ownSegments(_ plan: PresentationPlan, by compositor: Compositor) -> [Bool] {
        plan.positions.map { range in range.contains { compositor.drawsOwnMarks(at: plan.time(plan.pictureTimestamps[$0])) } }
    }

    /// What a row whose `marked` segments are re-encoded reports ("re-encoded 12.0 s of 60.0 s").
    func outcome(_ rendering: PresentationRendering, marked: [Bool]) -> RenderOutcome {
        guard rendering == .sharedCopies else { return RenderOutcome(isSmart: rendering == .copied) }
        let plan = self.plan(.sharedCopies)
        var ticks: Int64 = 0
        for (k, isMarked) in marked.enumerated() where isMarked { ticks += plan.end(of: k) - plan.cuts[k] }
        return RenderOutcome(isSmart: true, reencodedSeconds: plan.timeBase.seconds(ticks),
                             totalSeconds: plan.timeBase.seconds(plan.endTimestamp - plan.cuts[0]))
    }

    /// Whether no layer ever hides (judged at the pictures' times): only for whether a fallback is worth a notice.
    private func marksNeverHide(_ compositor: Compositor) -> Bool {
        let plan = encodedPlan
        return plan.pictureTimestamps.allSatisfy { compositor.drawsAnything(at: plan.time($0)) }
    }
}
