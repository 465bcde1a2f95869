import Overlay

/// Reads, period by period, which variants of the variant layer a leak shows
/// (docs/design/variant-marks.md §5), from the same pairs of leak and original frames the difference
/// maps use: the leak's signed difference from the original is fitted, by non-negative least
/// squares, with the differences each variant would make on that original picture.
///
/// Frames arrive in time order; a period's sums are kept until a later period's frame arrives,
/// then it is fitted and only its few numbers are kept (memory: two maps, not one per period).
public final class VariantReader {
    public let width: Int
    public let height: Int
    public let periods: VariantPeriods
    /// Box radii (analysis pixels) the variants' differences are blurred by before fitting: the
    /// one that explains the whole leak best stands for what the leak did (a blur, a softer scale).
    public static let modelBlurRadii = [0, 1, 2, 3, 5]

    private let originalToAnalysis: AxisAlignedMap
    private let mask: [Bool]
    private let maskedPixels: Int
    /// Per variant, its added luma and coverage in analysis pixels.
    private let added: [[Float]]
    private let covered: [[Float]]
    /// The period being summed: Σ of its leak frames (evened out by a 3×3 box) and of the
    /// original frames warped into the grid, and how many.
    private var open: (period: Int, leak: [Float], original: [Float], frames: Int)?
    private var fitted: [Int: [PeriodFit]] = [:]
    private var finished: Set<Int> = []

    /// Leak frames will be `width`×`height` (the analysis grid), `content` their picture inside
    /// any bars; `originalToAnalysis` takes original frame pixels into them and `displayToAnalysis`
    /// the original's display pixels (where the patterns are drawn).
    public init(patterns: VariantPatterns, periods: VariantPeriods, width: Int, height: Int, content: PlaneRect,
                originalToAnalysis: AxisAlignedMap, displayToAnalysis: AxisAlignedMap) {
        self.width = width
        self.height = height
        self.periods = periods
        self.originalToAnalysis = originalToAnalysis
        var mask = [Bool](repeating: false, count: width * height)
        let inner = content.insetBy(dx: 1, dy: 1)
        for y in 0..<height where Double(y) >= inner.minY && Double(y) + 1 <= inner.maxY {
            for x in 0..<width where Double(x) >= inner.minX && Double(x) + 1 <= inner.maxX { mask[y * width + x] = true }
        }
        self.mask = mask
        maskedPixels = mask.filter { $0 }.count
        let region = displayToAnalysis.inverse.apply(PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)))
        added = patterns.addedLuma.map { $0.resampled(from: region, width: width, height: height).pixels }
        covered = patterns.coverage.map { $0.resampled(from: region, width: width, height: height).pixels }
    }

    public var variantCount: Int { added.count }

    /// Adds a leak frame (analysis size) and the original frame shown at the same instant,
    /// `originalTime` seconds into the original.
    public func add(leak: LumaImage, original: LumaImage, originalTime: Double) {
        precondition(leak.width == width && leak.height == height, "leak frames of the reader's size")
        guard maskedPixels > 16, let period = periods.period(at: originalTime), !finished.contains(period) else { return }
        if let current = open, current.period != period {
            finish()
            guard !finished.contains(period) else { return }
        }
        let frame = PlaneRect(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height))
        let warped = original.resampled(from: originalToAnalysis.inverse.apply(frame), width: width, height: height)
        let smoothedLeak = leak.boxBlurred(radius: 1)
        var state = open ?? (period, [Float](repeating: 0, count: width * height), [Float](repeating: 0, count: width * height), 0)
        // Every pixel, not only the mask's: the blurs at the end must not see an edge of zeros.
        for i in 0..<mask.count {
            state.leak[i] += smoothedLeak.pixels[i]
            state.original[i] += warped.pixels[i]
        }
        state.frames += 1
        open = state
    }

    /// One period fitted under one model blur.
    struct PeriodFit {
        var frames: Int
        /// Each variant's share (non-negative least squares).
        var shares: [Double]
        /// How much of the difference's energy the fit explains (2bᵀβ − βᵀGβ), and the difference's own.
        var explained: Double
        var energy: Double
        /// The mean of the variants' own energies ⟨Eₖ, Eₖ⟩: how much the variants can show here.
        var patternEnergy: Double
        /// What is left unexplained: the measure by which the model blur is chosen.
        var residual: Double { energy - explained }
    }

    /// Fits the open period under every model blur and forgets its maps.
    ///
    /// Blurring is linear and so is averaging, so the period is fitted on its mean frames: the mean
    /// leak against the mean original blurred by the model's radius (a leak blurred by its maker
    /// differs from the sharp original by the blur of all its detail, which would swamp the
    /// marks), with each variant's difference on the mean original blurred alike.
    private func finish() {
        guard let state = open else { return }
        open = nil
        finished.insert(state.period)
        let scale = 1 / Float(state.frames)
        let meanLeak = state.leak.map { $0 * scale }
        let meanOriginal = LumaImage(width: width, height: height, pixels: state.original.map { $0 * scale })
        let smoothedOriginal = meanOriginal.boxBlurred(radius: 1)
        // Each variant's difference on this period's picture, before any blur of the leak's: added − coverage·original.
        let sharp = (0..<variantCount).map { k -> LumaImage in
            var pixels = [Float](repeating: 0, count: width * height)
            for i in 0..<mask.count { pixels[i] = added[k][i] - covered[k][i] * meanOriginal.pixels[i] }
            return LumaImage(width: width, height: height, pixels: pixels).boxBlurred(radius: 1)
        }
        fitted[state.period] = Self.modelBlurRadii.map { radius in
            fit(leak: meanLeak, original: smoothedOriginal.boxBlurred(radius: radius).pixels,
                variants: sharp.map { $0.boxBlurred(radius: radius).pixels }, frames: state.frames)
        }
    }

    /// The least-squares fit leak ≈ g·original + b + Σ βₖ·Eₖ with β ≥ 0, over the mask.
    ///
    /// Brightness and contrast (g, b) are fitted together with the variants, not before them: the
    /// tiled mark brightens the whole leak, and a gain fitted without it would leave a difference
    /// that follows the picture's darkness, which every variant's difference also follows. So the
    /// variants' differences are first made orthogonal to the original and to a constant (the
    /// Frisch–Waugh step), and the shares are the non-negative fit of the leak's residual on them.
    private func fit(leak: [Float], original: [Float], variants models: [[Float]], frames: Int) -> PeriodFit {
        let q = models.count
        // Sums over the mask: of the original (o), the leak (l), each variant's difference (e).
        var n = 0.0, so = 0.0, soo = 0.0, sl = 0.0, sol = 0.0, sll = 0.0
        var se = [Double](repeating: 0, count: q), soe = se, sle = se
        var see = [[Double]](repeating: [Double](repeating: 0, count: q), count: q)
        for i in 0..<mask.count where mask[i] {
            let o = Double(original[i]), l = Double(leak[i])
            n += 1; so += o; soo += o * o; sl += l; sol += o * l; sll += l * l
            for k in 0..<q {
                let e = Double(models[k][i])
                se[k] += e; soe[k] += o * e; sle[k] += l * e
                for m in k..<q { see[k][m] += e * Double(models[m][i]) }
            }
        }
        for k in 0..<q { for m in 0..<k { see[k][m] = see[m][k] } }
        // Inner products after taking out the part [original, 1] explains: ⟨x', y'⟩ = ⟨x, y⟩ − uₓᵀ M⁻¹ u_y,
        // M = [[Σo², Σo], [Σo, n]], u_z = (Σ o·z, Σ z).
        let determinant = soo * n - so * so
        func explainedByOriginal(_ ox: Double, _ x: Double, _ oy: Double, _ y: Double) -> Double {
            guard determinant > 1e-9 * soo * n else { return n > 0 ? x * y / n : 0 }
            return (ox * (n * oy - so * y) + x * (soo * y - so * oy)) / determinant
        }
        let energy = sll - explainedByOriginal(sol, sl, sol, sl)
        let projections = (0..<q).map { sle[$0] - explainedByOriginal(soe[$0], se[$0], sol, sl) }
        let gram = (0..<q).map { k in (0..<q).map { m in see[k][m] - explainedByOriginal(soe[k], se[k], soe[m], se[m]) } }
        let shares = NonNegativeLeastSquares.solve(gram: gram, projections: projections)
        var explained = 0.0
        for k in 0..<q {
            explained += 2 * projections[k] * shares[k]
            for m in 0..<q { explained -= shares[k] * gram[k][m] * shares[m] }
        }
        return PeriodFit(frames: frames, shares: shares, explained: explained, energy: max(energy, 0),
                         patternEnergy: (0..<q).reduce(0) { $0 + gram[$1][$1] } / Double(q))
    }

    /// Every period read so far, as shares and decisions (docs/design/variant-marks.md §5).
    public func readings() -> VariantReadings {
        finish()
        let periodsRead = fitted.sorted { $0.key < $1.key }
        // The model blur under which the leak is best explained, over all its periods.
        guard !periodsRead.isEmpty, let best = Self.modelBlurRadii.indices.min(by: { a, b in
            periodsRead.reduce(0) { $0 + $1.value[a].residual } < periodsRead.reduce(0) { $0 + $1.value[b].residual }
        }) else { return VariantReadings(periods: [], modelBlurRadius: 0, strength: 0) }
        let fits = periodsRead.map { (period: $0.key, fit: $0.value[best]) }
        let typicalPatternEnergy = Self.median(fits.map(\.fit.patternEnergy))
        let visible = fits.filter { $0.fit.patternEnergy >= VariantReadings.leastPatternEnergy * typicalPatternEnergy }
        let strength = Self.median(visible.map { $0.fit.shares.reduce(0, +) })
        let readings = fits.map { period, fit in
            VariantReading(period: period, frames: fit.frames, shares: fit.shares,
                           explainedShare: fit.energy > 0 ? max(0, fit.explained / fit.energy) : 0,
                           variants: VariantReadings.decide(shares: fit.shares, strength: strength,
                                                            patternEnergyShare: typicalPatternEnergy > 0 ? fit.patternEnergy / typicalPatternEnergy : 0))
        }
        return VariantReadings(periods: readings, modelBlurRadius: Self.modelBlurRadii[best], strength: strength)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
