import Foundation
import Animation
import Overlay

/// One student's copy made alone from a config with a variant layer: every frame rendered, the
/// layer drawing, period by period, the variant of the student's codeword — the pictures a class's
/// copy of that student is assembled from out of the shared renders, at the cost of one full render
/// instead of the lecture's q (docs/design/variant-marks.md §6). `Lecture` draws a lecture prepared for
/// one student this way, and `transcode` a media file.
///
/// The periods are the original's `encoded` plan cut every `seconds`, the ones a class's lecture is
/// cut by and `trace` reads a leak by; the codeword is `VariantCode`'s for the student's variables,
/// so `trace` names this copy's student as it names their batch row.
public enum VariantCopy {
    /// The schedule of the student with `variables`, drawn by `compositor` over periods starting at
    /// `periodStarts` (the layer hidden in the periods where another of their marks shows, `own`).
    /// Throws `VariantCode.keyNeeded` (64) when `config` is not keyed.
    static func schedule(config: WatermarkConfig, input: String, periodStarts: [PresentationTime], own: [Bool],
                         variables: [String: String]) throws -> VariantSchedule {
        let code = try VariantCode(config: config, input: input, periods: periodStarts.count)
        return VariantSchedule(periodStarts: periodStarts, variants: try code.codeword(variables: variables, config: config)).hiding(own)
    }

    /// The schedule over `input` indexed alone (a media file's copy), or nil when `config` has no
    /// variant layer. Throws what indexing `input` throws, and what `Lecture` refuses for a variant
    /// layer (no key, another segment length, smart rendering).
    public static func schedule(config: WatermarkConfig, input: String, variables: [String: String], compositor: Compositor, render: RenderMode,
                                warn: @escaping WarningHandler = { _ in }) throws -> VariantSchedule? {
        guard let variants = config.variantLayer?.variants else { return nil }
        let definition = LectureDefinition(name: (input as NSString).lastPathComponent, video: input, marks: .loaded(config), render: render,
                                           audience: .oneStudent)
        let period = try Lecture.variantPeriod(of: definition, config: config, notices: OnceNotices(prefix: "", warn: warn))
        precondition(period.seconds == variants.periodSeconds, "a period is the layer's seconds")
        let source = try PresentationSource(input: input, segment: period, warn: warn)
        let plan = source.plan(.encoded)
        return try schedule(config: config, input: input, periodStarts: plan.plannedSegments.map(\.start),
                            own: source.ownSegments(plan, by: compositor), variables: variables)
    }
}
