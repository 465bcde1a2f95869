import Animation
import Overlay

/// One student's copy made alone (`transcode`) from a config with a variant layer: every frame
/// rendered, the layer drawing, period by period, the variant of the student's codeword — the
/// pictures `batch` assembles that student's copy from out of the class's shared renders, at the
/// cost of one full render instead of the lecture's q (docs/design/variant-marks.md §6).
///
/// The periods are the original's `encoded` plan cut every `seconds`, the ones `batch` cuts the
/// lecture by and `trace` reads a leak by; the codeword is `VariantCode`'s for the student's
/// variables, so `trace` names this copy's student as it names their batch row.
public enum VariantCopy {
    /// The schedule of the student with `variables` over `input`, drawn by `compositor` (their
    /// marks: the layer is hidden in the periods where another of them shows, as in their batch
    /// row), or nil when `config` has no variant layer. Throws `VariantCode.keyNeeded` (64) when
    /// `config` is not keyed, and what indexing `input` throws.
    public static func schedule(config: WatermarkConfig, input: String, variables: [String: String], compositor: Compositor,
                                warn: @escaping WarningHandler = { _ in }) throws -> VariantSchedule? {
        guard let variants = config.variantLayer?.variants else { return nil }
        guard config.pathKey != nil else { throw VariantCode.keyNeeded(config: config) }
        let source = try PresentationSource(input: input, segment: PresentationTime(seconds: variants.periodSeconds), warn: warn)
        let plan = source.plan(.encoded)
        let starts = plan.plannedSegments.map(\.start)
        let code = try VariantCode(config: config, input: input, periods: starts.count)
        return VariantSchedule(periodStarts: starts, variants: try code.codeword(variables: variables, config: config))
            .hiding(source.ownSegments(plan, by: compositor))
    }
}
