import Animation

/// A variant layer's variants: the same tiled mark drawn at `count` phases of its lattice, one
/// per period of `periodSeconds` (docs/design/variant-marks.md). Every student's copy shows, period by
/// period, the variant their codeword says; each variant of each period is drawn once per
/// lecture and shared.
public struct LayerVariants: Equatable, Sendable {
    /// How many variants a layer may have: at most 8, a row's eighth apart (beyond, neighbouring
    /// phases blur into each other), and what the code's integer biases support.
    public static let counts = 2...8

    public var count: Int
    public var periodSeconds: Double

    public init(count: Int, periodSeconds: Double) {
        precondition(Self.counts.contains(count), "a variant layer has 2…8 variants")
        self.count = count
        self.periodSeconds = periodSeconds
    }

    /// The tile phase variant `k` draws: k/count of the lattice's row-to-row step.
    public func phase(of variant: Int) -> Double { Double(variant) / Double(count) }
}

/// Which variant of a variant layer each frame shows: one per period, the period being the
/// segment whose span holds the frame's presentation time. A student's own periods (where a
/// mark of theirs other than the layer shows) are hidden: the layer draws nothing there, their
/// own marks name them (docs/design/variant-marks.md §6).
public struct VariantSchedule: Sendable, Equatable {
    /// When each period starts, ascending; the first covers everything before it too.
    public let periodStarts: [PresentationTime]
    /// The variant of each period.
    public let variants: [Int]
    /// Per period, whether the layer draws nothing in it (none, unless `hiding` said so).
    public private(set) var hiddenPeriods: [Bool]

    public init(periodStarts: [PresentationTime], variants: [Int]) {
        precondition(!periodStarts.isEmpty && periodStarts.count == variants.count, "one variant per period")
        precondition(zip(periodStarts, periodStarts.dropFirst()).allSatisfy { $0 < $1 }, "periods in order")
        self.periodStarts = periodStarts
        self.variants = variants
        hiddenPeriods = [Bool](repeating: false, count: variants.count)
    }

    /// This schedule with the layer hidden in the periods `hidden` marks (one flag per period):
    /// a student's own periods. Drawing the tile under their own marks would make every row's
    /// re-encoded segments dearer (+13–15 % at the same CRF, measured at 300 rows) for nothing a
    /// trace needs — their own marks name them there — and break the storage bound per row.
    public func hiding(_ hidden: [Bool]) -> VariantSchedule {
        precondition(hidden.count == variants.count, "one flag per period")
        var schedule = self
        schedule.hiddenPeriods = hidden
        return schedule
    }

    /// Whether the layer draws nothing at `time`.
    public func hides(at time: PresentationTime) -> Bool { hiddenPeriods[period(at: time)] }

    /// Periods every `seconds` from 0 (the plan's cuts when every frame starts on time).
    public init(periodSeconds seconds: Double, variants: [Int]) {
        self.init(periodStarts: variants.indices.map { PresentationTime(seconds: Double($0) * seconds) }, variants: variants)
    }

    /// The same variant all along: what one of the lecture's shared renders draws.
    public static func constant(_ variant: Int) -> VariantSchedule {
        VariantSchedule(periodStarts: [.zero], variants: [variant])
    }

    /// The period holding `time`: the last whose start is at or before it (the first before all).
    public func period(at time: PresentationTime) -> Int {
        var low = 0, high = periodStarts.count
        while low < high {
            let middle = (low + high) / 2
            if periodStarts[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return max(low - 1, 0)
    }

    public func variant(at time: PresentationTime) -> Int { variants[period(at: time)] }
}
