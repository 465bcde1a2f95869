/// Which frame of a looping animation (an animated GIF, APNG or WebP logo) shows at a
/// presentation time: a pure function of the time, like every other animation here.
///
/// The animation starts with its first frame at time zero (the video's first frame) and
/// loops for ever. Frame boundaries are kept as exact cumulative times on one integer grid,
/// so a GIF's 0.07 s frames or an APNG's 1/30 s frames never drift, however long the video.
public struct FrameLoop: Sendable, Equatable {
    /// How many frames the animation has (at least 1).
    public let frameCount: Int
    /// The end of each frame from the loop's start, in `ticksPerSecond` ticks, non-decreasing.
    private let ends: [Int128]
    private let ticksPerSecond: Int128

    /// The finest common grid used exactly; frame times with no common grid this fine (odd
    /// APNG fractions) are placed on microseconds, each boundary rounded once, so no error
    /// accumulates from frame to frame or loop to loop.
    private static let maximumTicksPerSecond: Int128 = 1 << 40
    /// A frame longer than a day is treated as a day.
    private static let maximumFrameSeconds: Int128 = 86_400

    /// A loop of frames shown for `durations` each. Negative durations count as zero; a
    /// zero-length frame is never shown, and a loop whose frames are all zero-length shows
    /// its first frame throughout.
    public init(durations: [PresentationTime]) {
        precondition(!durations.isEmpty, "an animation needs at least one frame")
        frameCount = durations.count
        var common: Int128 = 1
        for duration in durations {
            common = leastCommonMultiple(common, Int128(duration.reduced.timescale))
            if common > Self.maximumTicksPerSecond {
                common = 1_000_000
                break
            }
        }
        ticksPerSecond = common
        var ends: [Int128] = []
        ends.reserveCapacity(durations.count)
        // Exact running sum of the durations; each end is rounded to the grid on its own.
        var sum = PresentationTime.zero
        for duration in durations {
            let limit = PresentationTime(value: Int64(Self.maximumFrameSeconds), timescale: 1)
            sum = sum + min(max(duration, .zero), limit)
            ends.append(floorDivide(Int128(sum.value) * common * 2 + Int128(sum.timescale), by: 2 * Int128(sum.timescale)))
        }
        self.ends = ends
    }

    /// A single still frame.
    public static let still = FrameLoop(durations: [.zero])

    /// The length of one pass through the frames.
    public var loopDuration: PresentationTime {
        PresentationTime(exactValue: ends.last ?? 0, timescale: ticksPerSecond)
    }

    /// The index of the frame shown at `time`; times before zero count as zero.
    public func frameIndex(at time: PresentationTime) -> Int {
        guard let total = ends.last, total > 0, frameCount > 1 else { return 0 }
        // Every boundary lies on the grid, so flooring the time onto it keeps it between the same two boundaries.
        let ticks = max(0, floorDivide(Int128(time.value) * ticksPerSecond, by: Int128(time.timescale)))
        let position = ticks % total
        // The first frame whose end lies after `position`.
        var low = 0, high = frameCount - 1
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] > position { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
