/// Where a layer is and how opaque it is on one frame.
public struct LayerState: Sendable, Equatable {
    /// 0…100: the share of the layer's horizontal travel inside the frame (0 left, 100 right).
    public var xPercent: Double
    /// 0…100: the share of the vertical travel (0 top, 100 bottom).
    public var yPercent: Double
    /// 0…1: multiplies the layer's own opacity; fades and hidden spans lower it.
    public var opacity: Double

    public init(xPercent: Double, yPercent: Double, opacity: Double) {
        self.xPercent = xPercent
        self.yPercent = yPercent
        self.opacity = opacity
    }

    /// Whether the layer needs drawing at all.
    public var isVisible: Bool { opacity > 0 }
}

/// A layer's position and opacity as a pure function of presentation time.
///
/// Built once when the config loads, then evaluated per frame; motion uses the frame's
/// presentation time itself (not the time since `start`), so a layer shown in a window is
/// where it would have been had it shown all along.
public struct LayerTimeline: Sendable, Equatable {
    /// The `duration` of an animation the config does not give one.
    public static let defaultDurationMilliseconds: Int64 = 10_000
    /// Shorter durations are treated as this, so a mark never jitters from frame to frame.
    public static let minimumDurationMilliseconds: Int64 = 100

    /// The resting position, clamped to 0…100 (NaN reads as 0).
    public let xPercent: Double
    public let yPercent: Double
    /// The motion with its durations clamped (see `Motion.clamped`).
    public let motion: Motion
    public let visibility: Visibility

    public init(xPercent: Double, yPercent: Double, motion: Motion = .still, visibility: Visibility = .always) {
        self.xPercent = clampPercent(xPercent)
        self.yPercent = clampPercent(yPercent)
        self.motion = motion.clamped
        self.visibility = visibility
    }

    /// The layer's state on the frame presented at `time`; times before zero count as zero.
    public func state(at time: PresentationTime) -> LayerState {
        let grid = TickGrid([time] + [visibility.start, visibility.end].compactMap { $0 })
        let ticks = max(grid.ticks(time), 0)
        let position = motion.position(atTicks: ticks, on: grid, baseXPercent: xPercent, baseYPercent: yPercent)
        return LayerState(xPercent: position.xPercent, yPercent: position.yPercent,
                          opacity: visibility.opacityFactor(atTicks: ticks, on: grid))
    }
}
