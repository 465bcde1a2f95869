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

    init(alpha: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        var rowStart = [Int32](repeating: 0, count: height + 1)
        var starts: [Int32] = [], ends: [Int32] = []
        for y in 0..<height {
            rowStart[y] = Int32(starts.count)
            let row = y * width
            var x = 0
            while x < width {
                while x < width && alpha[row + x] == 0 { x += 1 }
                guard x < width else { break }
                let start = x
                while x < width && alpha[row + x] != 0 { x += 1 }
                starts.append(Int32(start))
                ends.append(Int32(x))
            }
        }
        rowStart[height] = Int32(starts.count)
        self.rowStart = rowStart
        self.starts = starts
        self.ends = ends
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
