/// For each row of a mark, the runs of columns with non-zero alpha.
///
/// Blending walks only these runs, so the transparent parts of a mark (between letters,
/// between the tiles of a full-frame pattern) cost nothing per frame.
struct CoverageSpans {
    /// `spans[rowStart[y] ..< rowStart[y + 1]]` are row y's runs.
    private(set) var rowStart: [Int32]
    /// Half-open column ranges `start ..< end`, in increasing order within a row.
    private(set) var starts: [Int32]
    private(set) var ends: [Int32]

    /// `rows` rows without a run.
    init(emptyRows rows: Int) {
        rowStart = [Int32](repeating: 0, count: rows + 1)
        starts = []
        ends = []
    }

    init(alpha: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        rowStart = [Int32](repeating: 0, count: height + 1)
        starts = []
        ends = []
        starts.reserveCapacity(2 * height)
        ends.reserveCapacity(2 * height)
        for y in 0..<height {
            rowStart[y] = Int32(starts.count)
            if let base = alpha.baseAddress { Self.appendRuns(of: base + y * width, width: width, starts: &starts, ends: &ends) }
        }
        rowStart[height] = Int32(starts.count)
    }

    /// Finds the runs of `rows` again after their alpha changed (a timed text's redrawn glyphs);
    /// the other rows keep theirs.
    mutating func update(rows: Range<Int>, alpha: UnsafeBufferPointer<UInt8>, width: Int) {
        guard !rows.isEmpty else { return }
        let first = Int(rowStart[rows.lowerBound]), last = Int(rowStart[rows.upperBound])
        var newStarts: [Int32] = [], newEnds: [Int32] = []
        var offset = Int32(first)
        for y in rows {
            rowStart[y] = offset
            if let base = alpha.baseAddress { Self.appendRuns(of: base + y * width, width: width, starts: &newStarts, ends: &newEnds) }
            offset = Int32(first + newStarts.count)
        }
        starts.replaceSubrange(first..<last, with: newStarts)
        ends.replaceSubrange(first..<last, with: newEnds)
        let shift = offset - Int32(last)
        if shift != 0 {
            for y in rows.upperBound..<rowStart.count { rowStart[y] += shift }
        }
    }

    /// Appends the runs of non-zero bytes in one row, skipping eight bytes at a time where it can.
    private static func appendRuns(of row: UnsafePointer<UInt8>, width: Int, starts: inout [Int32], ends: inout [Int32]) {
        let raw = UnsafeRawPointer(row)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var x = 0
        while x < width {
            while x + 8 <= width && raw.loadUnaligned(fromByteOffset: x, as: UInt64.self) == 0 { x += 8 }
            while x < width && row[x] == 0 { x += 1 }
            guard x < width else { break }
            let start = x
            // A word holds no zero byte exactly when (v − 0x01…) & ~v & 0x80… is zero.
            while x + 8 <= width {
                let v = raw.loadUnaligned(fromByteOffset: x, as: UInt64.self)
                guard (v &- ones) & ~v & highs == 0 else { break }
                x += 8
            }
            while x < width && row[x] != 0 { x += 1 }
            starts.append(Int32(start))
            ends.append(Int32(x))
        }
    }

    /// Calls `body(start, end)` for each run of row `y` clipped to `lower ..< upper`.
    @inline(__always)
    func forEachRun(inRow y: Int, clippedTo lower: Int, _ upper: Int, _ body: (Int, Int) -> Void) {
        for i in Int(rowStart[y])..<Int(rowStart[y + 1]) {
            let start = max(Int(starts[i]), lower), end = min(Int(ends[i]), upper)
            if start < end { body(start, end) }
        }
    }
}
