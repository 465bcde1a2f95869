/// Where each part of a leak was taken from in the original: the leak as pieces of the original
/// played one after another, each at normal speed with its own offset (original time = leak
/// time + offset). A copy leaked whole is one piece; a leaker who cuts spans out (the seconds a
/// student's e-mail shows in) or joins parts in another order makes several, and every frame
/// must be compared with the original frame of its own piece: paired by one offset, the frames
/// after a cut would be read against the wrong seconds (the wrong variant periods, the wrong
/// mark slots).
public struct LeakTimeline: Sendable, Equatable {
    public struct Piece: Sendable, Equatable {
        /// The piece's span of the leak's time.
        public var leakStart: Double
        public var leakEnd: Double
        /// Original time = leak time + offset, within the piece.
        public var offset: Double

        public init(leakStart: Double, leakEnd: Double, offset: Double) {
            self.leakStart = leakStart
            self.leakEnd = leakEnd
            self.offset = offset
        }

        /// The original's span the piece shows.
        public var original: ClosedRange<Double> { (leakStart + offset)...(leakEnd + offset) }
    }

    /// In the leak's order, each starting where the one before ends.
    public let pieces: [Piece]

    public init(pieces: [Piece]) {
        precondition(!pieces.isEmpty && zip(pieces, pieces.dropFirst()).allSatisfy { $0.leakEnd <= $1.leakStart + 1e-9 },
                     "pieces in the leak's order")
        self.pieces = pieces
    }

    /// The whole leak (from `leakStart` to `leakEnd`) at one offset.
    public init(offset: Double, leakStart: Double, leakEnd: Double) {
        self.init(pieces: [Piece(leakStart: leakStart, leakEnd: max(leakStart, leakEnd), offset: offset)])
    }

    /// The offset at a leak time: its piece's (before the first piece the first's, after the last the last's).
    public func offset(at leakTime: Double) -> Double {
        var low = 0, high = pieces.count
        while low < high {
            let middle = (low + high) / 2
            if pieces[middle].leakStart <= leakTime { low = middle + 1 } else { high = middle }
        }
        return pieces[max(low - 1, 0)].offset
    }

    /// The original time a leak time shows.
    public func originalTime(at leakTime: Double) -> Double { leakTime + offset(at: leakTime) }

    /// The spans of the leak's time that show some of `original` (original seconds), in the leak's order.
    public func leakSpans(showing original: ClosedRange<Double>) -> [ClosedRange<Double>] {
        pieces.compactMap { piece in
            let from = max(original.lowerBound, piece.original.lowerBound), to = min(original.upperBound, piece.original.upperBound)
            return to > from ? (from - piece.offset)...(to - piece.offset) : nil
        }
    }
}

extension LeakTimeline {
    /// What a cut costs the path, in summed scores: a piece is cut in only when the frames after
    /// it match the other part of the original that much better than where they were. At
    /// `pathStep`, a frame whose picture moves (a speaker, a pointer, a demo) scores near 1 more
    /// at the right offset than at others, so a piece of two seconds or more is found; frames of
    /// a still picture count for little (`changeFloor`) and their noise does not add up to a cut.
    public static let cutCost = 4.0
    /// What a cut back to an earlier part of the original costs: leakers cut spans out far more
    /// often than they reorder, and where the picture repeats (a loop, a slide shown twice) the
    /// part after the one before is the likelier reading.
    public static let backwardCutCost = 8.0
    /// The leak's frames the path is found on are this far apart at least (seconds); the cuts
    /// are then placed on the frames between.
    public static let pathStep = 0.2
    /// A frame scores two correlations. What moves: its fingerprint less the mean of its stream's
    /// fingerprints this many seconds either side, up to the nearest abrupt change (what a slide
    /// shows is the same all the time it stands, and only what changes from moment to moment, a
    /// speaker or a pointer, tells one instant from the next). Measured on a slide lecture:
    /// against the stream's overall mean, the right instant and one 6 s off within a slide
    /// correlated alike (0.98), and the cuts of a leak went unseen.
    public static let localMeanSeconds = 2.0
    /// Where a fingerprint differs from the one before by this much (luma units, root mean square
    /// over its cells) the picture changed at once (a slide's change, a cut): the local mean stops
    /// there. Straddling a cut, it made the leak's frames look like a slide changing, and a slide
    /// change in the seconds cut out then matched them better than the right seconds (measured:
    /// a 4-s part at the wrong offset, and row 77's excerpt short of its naming).
    public static let abruptChange: Float = 3
    /// And which slide: the fingerprint less its stream's overall mean, weighted this much.
    public static let pictureWeight: Float = 0.5
    /// A leak frame whose fingerprint changes by less than this from its local mean (luma units,
    /// root mean square over the fingerprint's cells, each the mean of many pixels) is mostly
    /// noise: its correlation is weighted down in proportion.
    public static let changeFloor: Float = 2

    /// The pieces that best explain the leak as parts of the original: a Viterbi path over the
    /// offsets in `offsets`, a leak frame scoring at each offset its correlation with the
    /// original frame then, a change of offset costing `cutCost` (to a later part of the original)
    /// or `backwardCutCost` (to an earlier one).
    ///
    /// `leak` holds fingerprints of every leak frame (or a dense share of them) and `original` of
    /// every original frame read, in time order, each of the same part of the picture (the leak's
    /// content and the original region it shows) and the same small size; a frame's score is the
    /// correlation of what moves (`localMeanSeconds`) plus that of which picture it is
    /// (`pictureWeight`).
    /// Offsets are tried on the original's frame spacing; each piece's offset is then pinned
    /// between frames and each cut placed on the leak frame where the next piece matches better.
    /// Nil when the streams do not overlap at any offset.
    public static func find(leak: [TimedLuma], original: [TimedLuma], offsets: ClosedRange<Double>) -> LeakTimeline? {
        guard leak.count >= 2, original.count >= 2, let first = leak.first, let last = leak.last else { return nil }
        // One vector per frame: what moves, then which picture, so one dot product scores both.
        let leakMoves = withoutLocalMean(leak, seconds: localMeanSeconds)
        let leakPictures = TemporalAlignment.withoutAverage(leak.map(\.image)).map(TemporalAlignment.unit)
        let leakPrints = zip(leakMoves, leakPictures).map { moves, picture -> [Float] in
            let rms = (moves.reduce(0) { $0 + $1 * $1 } / Float(max(moves.count, 1))).squareRoot()
            let weight = min(1, rms / changeFloor)
            return TemporalAlignment.unit(moves).map { $0 * weight } + picture.map { $0 * pictureWeight }
        }
        let originalPrints = zip(withoutLocalMean(original, seconds: localMeanSeconds),
                                 TemporalAlignment.withoutAverage(original.map(\.image)).map(TemporalAlignment.unit)).map {
            TemporalAlignment.unit($0) + $1
        }
        let originalTimes = original.map(\.time)
        let step = max(TemporalAlignment.medianStep(originalTimes), 0.001)
        let binCount = Int(((offsets.upperBound - offsets.lowerBound) / step).rounded(.up)) + 1
        func offset(_ bin: Int) -> Double { offsets.lowerBound + Double(bin) * step }

        // The correlation of leak frame i with the original frame shown at its time + offset,
        // for every offset bin; −1 where no original frame was read then.
        func scores(_ i: Int, bins: Range<Int> = 0..<binCount) -> [Double] {
            var row = [Double](repeating: -1, count: bins.count)
            let time = leak[i].time
            var j = nearestIndex(count: originalTimes.count, to: time + offset(bins.lowerBound)) { originalTimes[$0] }
            for bin in bins {
                let target = time + offset(bin)
                while j + 1 < originalTimes.count, abs(originalTimes[j + 1] - target) <= abs(originalTimes[j] - target) { j += 1 }
                guard abs(originalTimes[j] - target) <= step else { continue }
                row[bin - bins.lowerBound] = Double(dot(leakPrints[i], originalPrints[j]))
            }
            return row
        }

        // The path, on leak frames at least `pathStep` apart.
        var path: [Int] = []
        for (i, frame) in leak.enumerated() where path.isEmpty || frame.time - leak[path[path.count - 1]].time >= pathStep - 1e-6 {
            path.append(i)
        }
        var best = scores(path[0])
        // For each path frame after the first, how each bin was reached; and the best bins of the
        // frame before as records (a bin whose score beats every bin before it, from the left;
        // after it, from the right): the best earlier bin for a cut forward is the last left
        // record before the bin, for a cut back the first right record after it.
        var arrivals: [[Arrival]] = []
        var forwardRecords: [[Int]] = [], backwardRecords: [[Int]] = []
        for i in path.dropFirst() {
            let row = scores(i)
            var fromLeft: [Int] = [], fromRight: [Int] = []
            for bin in 0..<binCount where fromLeft.last.map({ best[bin] > best[$0] }) ?? true { fromLeft.append(bin) }
            for bin in stride(from: binCount - 1, through: 0, by: -1) where fromRight.last.map({ best[bin] > best[$0] }) ?? true {
                fromRight.append(bin)
            }
            var next = [Double](repeating: 0, count: binCount)
            var arrival = [Arrival](repeating: .stay, count: binCount)
            var left = -1, right = fromRight.count - 1
            for bin in 0..<binCount {
                // The best bins strictly before and strictly after this one.
                while left + 1 < fromLeft.count, fromLeft[left + 1] < bin { left += 1 }
                while right >= 0, fromRight[right] <= bin { right -= 1 }
                var reach = best[bin]
                if left >= 0, best[fromLeft[left]] - cutCost > reach { (reach, arrival[bin]) = (best[fromLeft[left]] - cutCost, .forward) }
                if right >= 0, best[fromRight[right]] - backwardCutCost > reach {
                    (reach, arrival[bin]) = (best[fromRight[right]] - backwardCutCost, .backward)
                }
                next[bin] = row[bin] + reach
            }
            arrivals.append(arrival)
            forwardRecords.append(fromLeft)
            backwardRecords.append(fromRight)
            best = next
        }
        guard var bin = best.indices.max(by: { best[$0] < best[$1] }), best[bin] > -Double(path.count) else { return nil }
        var bins = [Int](repeating: 0, count: path.count)
        for step in stride(from: path.count - 1, through: 0, by: -1) {
            bins[step] = bin
            guard step > 0 else { break }
            switch arrivals[step - 1][bin] {
            case .stay: break
            case .forward: bin = forwardRecords[step - 1].last { $0 < bin } ?? bin
            case .backward: bin = backwardRecords[step - 1].last { $0 > bin } ?? bin
            }
        }

        // Runs of one bin are the pieces; each cut is placed on the leak frame from which the
        // next piece matches better (every frame between the two path frames is tried).
        var runs: [(bin: Int, firstFrame: Int)] = [(bins[0], 0)]
        for k in 1..<path.count where bins[k] != bins[k - 1] {
            let (before, after) = (bins[k - 1], bins[k])
            var cutFrame = path[k], gain = 0.0, bestGain = 0.0
            for i in stride(from: path[k] - 1, to: path[k - 1], by: -1) {
                let pair = scores(i, bins: min(before, after)..<(max(before, after) + 1))
                gain += pair[after - min(before, after)] - pair[before - min(before, after)]
                if gain > bestGain { (bestGain, cutFrame) = (gain, i) }
            }
            runs.append((after, cutFrame))
        }
        var pieces: [Piece] = []
        for (index, run) in runs.enumerated() {
            let end = index + 1 < runs.count ? runs[index + 1].firstFrame : leak.count
            // The offset between frames: a parabola through the piece's mean correlation at its
            // bin and the two beside it.
            let around = max(run.bin - 1, 0)..<min(run.bin + 2, binCount)
            var sums = [Double](repeating: 0, count: around.count)
            for i in run.firstFrame..<end {
                for (k, value) in scores(i, bins: around).enumerated() { sums[k] += value }
            }
            var shift = 0.0
            if around.count == 3 {
                let (a, b, c) = (sums[0], sums[1], sums[2])
                let curvature = a - 2 * b + c
                if curvature < 0 { shift = min(max(0.5 * (a - c) / curvature, -0.5), 0.5) }
            }
            let start = index == 0 ? first.time : leak[run.firstFrame].time
            let finish = end < leak.count ? leak[end].time : last.time
            pieces.append(Piece(leakStart: start, leakEnd: finish, offset: offset(run.bin) + shift * step))
        }
        return LeakTimeline(pieces: pieces)
    }

    /// Each fingerprint less the mean of those within `seconds` of it (its own included) and on
    /// its side of every abrupt change (`abruptChange`).
    static func withoutLocalMean(_ frames: [TimedLuma], seconds: Double) -> [[Float]] {
        guard let size = frames.first?.image.pixels.count else { return [] }
        // Each frame's stretch: the frames since the last abrupt change.
        var stretch = [Int](repeating: 0, count: frames.count)
        for i in frames.indices.dropFirst() {
            var squares: Float = 0
            for k in 0..<size {
                let difference = frames[i].image.pixels[k] - frames[i - 1].image.pixels[k]
                squares += difference * difference
            }
            stretch[i] = stretch[i - 1] + ((squares / Float(size)).squareRoot() >= abruptChange ? 1 : 0)
        }
        var sum = [Float](repeating: 0, count: size)
        var low = 0, high = 0
        return frames.indices.map { i in
            let frame = frames[i]
            while high < frames.count, frames[high].time <= frame.time + seconds, stretch[high] == stretch[i] {
                for k in 0..<size { sum[k] += frames[high].image.pixels[k] }
                high += 1
            }
            while low < high, frames[low].time < frame.time - seconds || stretch[low] != stretch[i] {
                for k in 0..<size { sum[k] -= frames[low].image.pixels[k] }
                low += 1
            }
            let scale = 1 / Float(max(high - low, 1))
            return (0..<size).map { frame.image.pixels[$0] - sum[$0] * scale }
        }
    }

    /// How the path reached a bin from the frame before: at the same offset, or by a cut to a
    /// later or an earlier part of the original.
    enum Arrival: UInt8 { case stay, forward, backward }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var sum: Float = 0
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                for k in 0..<min(x.count, y.count) { sum += x[k] * y[k] }
            }
        }
        return sum
    }
}
