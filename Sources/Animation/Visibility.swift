/// When a layer shows and how it fades: a `start`/`end` window, an optional shown/hidden
/// cycle inside it, and a linear fade at the edges of every appearance.
public struct Visibility: Sendable, Hashable {
    /// The layer shows from here on; nil shows it from the first frame (with no fade in there).
    public var start: PresentationTime?
    /// The layer is hidden from here on (exclusive); nil shows it to the end (with no fade out).
    public var end: PresentationTime?
    /// Milliseconds shown in each cycle, measured from `start` (or from 0 when `start` is nil).
    /// Nil or not positive: no cycle, the layer shows throughout its window.
    public var intervalMilliseconds: Int64?
    /// Milliseconds hidden after each interval. Not positive: the intervals join up and the
    /// layer shows throughout its window.
    public var skipMilliseconds: Int64
    /// Milliseconds of linear fade in at the start and fade out at the end of every appearance
    /// (the window's edges and each interval's), shortened to half an appearance when longer.
    public var fadeMilliseconds: Int64

    public init(start: PresentationTime? = nil, end: PresentationTime? = nil,
                intervalMilliseconds: Int64? = nil, skipMilliseconds: Int64 = 0, fadeMilliseconds: Int64 = 0) {
        self.start = start
        self.end = end
        self.intervalMilliseconds = intervalMilliseconds
        self.skipMilliseconds = skipMilliseconds
        self.fadeMilliseconds = fadeMilliseconds
    }

    /// Shown on every frame, fully opaque.
    public static let always = Visibility()

    /// The opacity factor at `time`, 0…1: 0 outside the window and during skips, ramping
    /// linearly over the fades, 1 otherwise. Times before zero count as zero.
    public func opacityFactor(at time: PresentationTime) -> Double {
        let grid = TickGrid([time] + [start, end].compactMap { $0 })
        return opacityFactor(atTicks: max(grid.ticks(time), 0), on: grid)
    }

    /// `opacityFactor(at:)` for a time already on `grid`, which must hold `start` and `end` exactly.
    func opacityFactor(atTicks ticks: Int128, on grid: TickGrid) -> Double {
        // The current appearance is [appearanceStart, appearanceEnd); nil is unbounded.
        var appearanceStart = start.map(grid.ticks)
        var appearanceEnd = end.map(grid.ticks)
        if let appearanceStart, ticks < appearanceStart { return 0 }
        if let appearanceEnd, ticks >= appearanceEnd { return 0 }

        if let intervalMilliseconds, intervalMilliseconds > 0, skipMilliseconds > 0 {
            let shown = grid.ticks(milliseconds: intervalMilliseconds)
            let period = shown + grid.ticks(milliseconds: skipMilliseconds)
            let origin = appearanceStart ?? 0
            let cycleStart = origin + floorDivide(ticks - origin, by: period) * period
            if ticks - cycleStart >= shown { return 0 }
            appearanceStart = max(appearanceStart ?? cycleStart, cycleStart)
            appearanceEnd = min(appearanceEnd ?? (cycleStart + shown), cycleStart + shown)
        }

        let fade = grid.ticks(milliseconds: fadeMilliseconds)
        guard fade > 0 else { return 1 }
        // Twice the fade length, so that "half the appearance" stays an integer.
        var doubleFade = 2 * fade
        if let appearanceStart, let appearanceEnd {
            doubleFade = min(doubleFade, appearanceEnd - appearanceStart)
        }
        var opacity = 1.0
        if let appearanceStart {
            opacity = min(opacity, ratio(2 * (ticks - appearanceStart), doubleFade))
        }
        if let appearanceEnd {
            opacity = min(opacity, ratio(2 * (appearanceEnd - ticks), doubleFade))
        }
        return min(max(opacity, 0), 1)
    }
}
