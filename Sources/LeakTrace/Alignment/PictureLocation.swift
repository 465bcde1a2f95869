/// Where in a leak's picture the lecture may be: the whole picture inside any bars (a copy
/// re-encoded, cropped, scaled), or a part of it (a screen recording: the lecture played in a
/// browser, scaled to 30–100 %, anywhere, with the page and other windows around it).
///
/// A screen recording's surroundings stay still while the lecture changes (slides turn, the
/// speaker moves, the marks jump), so the part of the picture that changes over the leak's
/// opening is where the lecture plays. The changes are found on small copies of frames spread
/// over it: a pixel changes when its brightness (3×3 box-smoothed, which damps a recorder's
/// noise) spans more than the noise across those frames; nearby changes are joined, and the
/// largest joined region's bounding box is the lecture's changing part. A lecture whose slides
/// keep a still border changes only inside it, so the box is also grown to the original's
/// shape; `LeakAnalyzer` tries every candidate and keeps the one whose pictures match best,
/// so a copy with no surroundings loses nothing.
public enum PictureLocation {
    /// Width of the pictures changes are looked for in.
    static let gridWidth = 320
    /// Frames compared, spread over the leak's opening.
    static let frameCount = 40

    /// Where `frames` (small copies of the leak's frames spread over its opening, one size)
    /// change: 1 where a pixel's brightness (3×3 box-smoothed, which damps a recorder's noise)
    /// spans more than the noise across them, else 0. Nil for fewer than three frames.
    public static func changes(in frames: [LumaImage]) -> LumaImage? {
        guard frames.count >= 3 else { return nil }
        let width = frames[0].width, height = frames[0].height
        var low = [Float](repeating: .infinity, count: width * height)
        var high = [Float](repeating: -.infinity, count: width * height)
        for frame in spread(frames, count: frameCount) {
            let small = frame.boxBlurred(radius: 1)
            small.pixels.withUnsafeBufferPointer { p in
                for i in low.indices {
                    low[i] = min(low[i], p[i])
                    high[i] = max(high[i], p[i])
                }
            }
        }
        let spans = zip(high, low).map { $0 - $1 }
        // Noise spans every pixel a little; the lecture's changes are many times that.
        let threshold = max(10, 4 * spans.median())
        return LumaImage(width: width, height: height, pixels: spans.map { $0 > threshold ? 1 : 0 })
    }

    /// Candidate rectangles for the lecture's picture in the pixels of `changes` (see
    /// `changes(in:)`), most likely first: what changes grown to `originalAspect` (width /
    /// height) and as found (see `changingRegions`), then `content` (the whole picture inside
    /// bars). Candidates much like an earlier one are left out.
    public static func candidates(changes: LumaImage?, originalAspect: Double, content: PlaneRect) -> [PlaneRect] {
        var result: [PlaneRect] = []
        func add(_ rect: PlaneRect) {
            let clipped = rect.intersection(content)
            guard clipped.width >= 8, clipped.height >= 8 else { return }
            if result.contains(where: { Self.overlap($0, clipped) > 0.95 }) { return }
            result.append(clipped)
        }
        for changing in changes.map({ changingRegions($0, content: content) }) ?? [] {
            add(grown(changing, toAspect: originalAspect, within: content))
            add(changing)
        }
        add(content)
        return result
    }

    /// The bounding boxes of what changes, most likely the lecture first: every sizeable
    /// changing region together (a slide's title, bullets and demo change apart from each
    /// other), then the largest alone (should something change outside the lecture too, a
    /// cursor or a clock). Empty when nothing changes.
    static func changingRegions(_ changes: LumaImage, content: PlaneRect) -> [PlaneRect] {
        let width = changes.width, height = changes.height
        var changed = changes.pixels.map { $0 > 0.5 }
        for y in 0..<height {
            for x in 0..<width where !(Double(x) + 0.5 > content.minX && Double(x) + 0.5 < content.maxX
                                          && Double(y) + 0.5 > content.minY && Double(y) + 0.5 < content.maxY) {
                changed[y * width + x] = false
            }
        }
        let regions = joinedRegions(changed, width: width, height: height, reach: max(2, width / 40))
        guard let largest = regions.first else { return [] }
        // Regions with a few percent of the changes count towards the whole; specks do not.
        let total = regions.reduce(0) { $0 + $1.count }
        let sizeable = regions.filter { Double($0.count) >= 0.02 * Double(total) }
        let together = sizeable.dropFirst().reduce(largest.box) { box, region in
            PlaneRect(minX: min(box.minX, region.box.minX), minY: min(box.minY, region.box.minY),
                      maxX: max(box.maxX, region.box.maxX), maxY: max(box.maxY, region.box.maxY))
        }
        // At least a few percent of the picture, or it is a cursor or a clock, not a lecture.
        return [together, largest.box].filter { $0.width * $0.height >= 0.02 * Double(width * height) }
    }

    /// The regions of `marked` pixels joined through marked pixels at most `reach` apart (a
    /// dilation by `reach`, then 4-connected regions): each one's bounding box (grid pixels)
    /// and marked pixels, the largest first.
    static func joinedRegions(_ marked: [Bool], width: Int, height: Int, reach: Int) -> [(box: PlaneRect, count: Int)] {
        // Dilate with a square of side 2·reach + 1, separably.
        var rows = [Bool](repeating: false, count: marked.count)
        for y in 0..<height {
            var last = -Int.max / 2
            var next = [Int](repeating: Int.max / 2, count: width)
            var upcoming = Int.max / 2
            for x in stride(from: width - 1, through: 0, by: -1) {
                if marked[y * width + x] { upcoming = x }
                next[x] = upcoming
            }
            for x in 0..<width {
                if marked[y * width + x] { last = x }
                rows[y * width + x] = x - last <= reach || next[x] - x <= reach
            }
        }
        var grown = [Bool](repeating: false, count: marked.count)
        for x in 0..<width {
            var last = -Int.max / 2
            var upcoming = Int.max / 2
            var next = [Int](repeating: Int.max / 2, count: height)
            for y in stride(from: height - 1, through: 0, by: -1) {
                if rows[y * width + x] { upcoming = y }
                next[y] = upcoming
            }
            for y in 0..<height {
                if rows[y * width + x] { last = y }
                grown[y * width + x] = y - last <= reach || next[y] - y <= reach
            }
        }
        var label = [Int](repeating: -1, count: marked.count)
        var regions: [(box: PlaneRect, count: Int)] = []
        var stack: [Int] = []
        var current = 0
        for start in grown.indices where grown[start] && label[start] < 0 {
            var region = (count: 0, minX: width, minY: height, maxX: -1, maxY: -1)
            label[start] = current
            stack.append(start)
            while let index = stack.popLast() {
                let x = index % width, y = index / width
                if marked[index] {
                    region.count += 1
                    (region.minX, region.maxX) = (min(region.minX, x), max(region.maxX, x))
                    (region.minY, region.maxY) = (min(region.minY, y), max(region.maxY, y))
                }
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && nx < width && ny >= 0 && ny < height {
                    let neighbour = ny * width + nx
                    if grown[neighbour] && label[neighbour] < 0 {
                        label[neighbour] = current
                        stack.append(neighbour)
                    }
                }
            }
            if region.count > 0 {
                regions.append((PlaneRect(minX: Double(region.minX), minY: Double(region.minY),
                                          maxX: Double(region.maxX + 1), maxY: Double(region.maxY + 1)), region.count))
            }
            current += 1
        }
        return regions.sorted { $0.count > $1.count }
    }

    /// `rect` grown (about its centre, then moved back inside `bounds` where it can be) until its
    /// width over height is `aspect`.
    static func grown(_ rect: PlaneRect, toAspect aspect: Double, within bounds: PlaneRect) -> PlaneRect {
        var width = rect.width, height = rect.height
        if width / height < aspect { width = height * aspect } else { height = width / aspect }
        width = min(width, bounds.width)
        height = min(height, bounds.height)
        let centreX = (rect.minX + rect.maxX) / 2, centreY = (rect.minY + rect.maxY) / 2
        let minX = min(max(centreX - width / 2, bounds.minX), bounds.maxX - width)
        let minY = min(max(centreY - height / 2, bounds.minY), bounds.maxY - height)
        return PlaneRect(x: minX, y: minY, width: width, height: height)
    }

    /// The share of the larger rectangle that the two have in common.
    static func overlap(_ a: PlaneRect, _ b: PlaneRect) -> Double {
        a.intersection(b).area / max(a.area, b.area, 1e-9)
    }
}
