import Animation

/// Where the segments of an HLS presentation start, when its video is (partly) the input's own
/// packets.
///
/// A segment's bytes depend on the packets it holds and on its position (the fragment sequence
/// number in its `mfhd`), so segments can be shared between the rows of a batch only if every row
/// cuts at the same instants. The cuts therefore come from the input alone: its keyframes, the
/// edges of the spans smart rendering re-encodes (the same for every row), and the target length.
/// A span edge is always a cut, so a segment is either wholly copied (shared) or holds re-encoded
/// pictures (the row's own), and no copied seconds are duplicated into every row's own segments.
/// Between edges the cut is the keyframe nearest to `target` after the previous cut (an input with
/// 2.002-s GOPs gets 6.006-s segments rather than 4.004-s ones).
enum SegmentBoundaries {
    /// The presentation times at which segments start, ascending, the first keyframe first.
    ///
    /// - Parameters:
    ///   - keyframes: presentation times of the input's keyframes; the first is the first picture.
    ///   - edges: times that must start a segment (re-encoded spans' starts and the keyframes
    ///     right after them); each must be one of `keyframes`.
    ///   - end: when the presentation ends (the last picture's time plus its duration).
    ///   - target: the wanted segment length (`--segment`).
    static func plan(keyframes: [PresentationTime], edges: [PresentationTime], end: PresentationTime,
                     target: PresentationTime) -> [PresentationTime] {
        let keyframes = Array(Set(keyframes)).sorted()
        guard let first = keyframes.first else { return [] }
        precondition(target > .zero, "a segment target must be positive")
        let keyframeSet = Set(keyframes)
        precondition(edges.allSatisfy(keyframeSet.contains), "a segment edge must be a keyframe")
        let stops = Array(Set(edges.filter { $0 > first })).sorted() + [end]
        var cuts = [first]
        var candidate = 1
        for stop in stops {
            var start = cuts[cuts.count - 1]
            while true {
                // Options: every keyframe strictly between the last cut and the stop, or the stop itself.
                while candidate < keyframes.count && keyframes[candidate] <= start { candidate += 1 }
                let wanted = start + target
                var best = stop
                var index = candidate
                while index < keyframes.count && keyframes[index] < stop {
                    let gap = distance(keyframes[index], wanted), bestGap = distance(best, wanted)
                    if gap < bestGap || (gap == bestGap && keyframes[index] < best) {
                        best = keyframes[index]
                    } else if keyframes[index] > wanted {
                        break
                    }
                    index += 1
                }
                if best == stop { break }
                cuts.append(best)
                start = best
            }
            if stop < end { cuts.append(stop) }
        }
        return cuts
    }

    private static func distance(_ a: PresentationTime, _ b: PresentationTime) -> PresentationTime {
        a < b ? b - a : a - b
    }
}
