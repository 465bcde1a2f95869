import Testing
@testable import LeakTrace

/// A leak cut together from parts of the original (the seconds a student's e-mail shows in cut
/// out) is found as its pieces, each with its own offset, so every frame is compared with the
/// original frame its piece shows; a leak in one piece stays one, moving or still.
@Suite("leak tracing: the pieces of a cut leak")
struct TimelineTests {
    static let video = SyntheticVideo(width: 192, height: 108)

    /// Fingerprints of a leak at 30 fps that shows, in turn, the original from each of `parts`
    /// (original start, seconds), and of the original at 30 fps from `from` to `to`.
    static func prints(parts: [(start: Double, seconds: Double)], frame: (Double) -> LumaImage = { video.frame(at: $0) },
                       from: Double, to: Double) -> (leak: [TimedLuma], original: [TimedLuma]) {
        let fps = 30.0
        var leak: [TimedLuma] = []
        var time = 0.0
        var noise = 0
        for part in parts {
            for index in 0..<Int(part.seconds * fps) {
                var picture = frame(part.start + Double(index) / fps)
                // A little of what re-encoding does, different in every frame.
                for i in stride(from: noise % 7, to: picture.pixels.count, by: 7) { picture.pixels[i] += Float(noise % 5) - 2 }
                noise += 1
                leak.append(TimedLuma(time: time, image: TemporalAlignment.fingerprint(of: picture, region: picture.bounds)))
                time += 1 / fps
            }
        }
        let original = stride(from: from, to: to, by: 1 / fps).map {
            TimedLuma(time: $0, image: TemporalAlignment.fingerprint(of: frame($0), region: PlaneRect(minX: 0, minY: 0, maxX: 192, maxY: 108)))
        }
        return (leak, original)
    }

    /// 60 s of the original from 37.3 s with 0–6 s of every 30 cut out: three pieces, each
    /// offset pinned and each cut on its frame.
    @Test func theSpansCutOutOfALeakGiveItsPieces() throws {
        let parts = [(37.3, 22.7), (66.0, 24.0), (96.0, 1.3)]
        let (leak, original) = Self.prints(parts: parts, from: 25, to: 115)
        let timeline = try #require(LeakTimeline.find(leak: leak, original: original, offsets: 25...60))
        #expect(timeline.pieces.count == 3, "\(timeline.pieces)")
        var leakStart = 0.0
        for (piece, part) in zip(timeline.pieces, parts) {
            #expect(abs(piece.offset - (part.0 - leakStart)) < 0.02, "\(piece) against \(part)")
            #expect(abs(piece.leakStart - leakStart) < 0.04, "\(piece) starts at \(leakStart)")
            leakStart += part.1
        }
        #expect(abs(timeline.originalTime(at: 30) - 73.3) < 0.02)
        #expect(timeline.leakSpans(showing: 58...70).map { [$0.lowerBound, $0.upperBound] }.flatMap { $0 }
                    .enumerated().allSatisfy { abs($1 - [20.7, 22.7, 22.7, 26.7][$0]) < 0.05 })
    }

    /// Parts in another order (a later minute first) are found too.
    @Test func partsInAnotherOrderAreFound() throws {
        let (leak, original) = Self.prints(parts: [(80, 15), (20, 15)], from: 10, to: 100)
        let timeline = try #require(LeakTimeline.find(leak: leak, original: original, offsets: 0...85))
        #expect(timeline.pieces.map { ($0.offset * 10).rounded() / 10 } == [80, 5], "\(timeline.pieces)")
    }

    /// One piece stays one, whether the picture moves or stands still (a still picture has no
    /// timing in it, and its noise never adds up to a cut).
    @Test func anUncutLeakIsOnePiece() throws {
        let (leak, original) = Self.prints(parts: [(37.3, 40)], from: 25, to: 90)
        let timeline = try #require(LeakTimeline.find(leak: leak, original: original, offsets: 25...50))
        #expect(timeline.pieces.count == 1 && abs(timeline.pieces[0].offset - 37.3) < 0.02, "\(timeline.pieces)")

        let slide = Self.video.frame(at: 10)
        let (stillLeak, stillOriginal) = Self.prints(parts: [(37.3, 40)], frame: { _ in slide }, from: 25, to: 90)
        let stillTimeline = try #require(LeakTimeline.find(leak: stillLeak, original: stillOriginal, offsets: 25...50))
        #expect(stillTimeline.pieces.count == 1, "\(stillTimeline.pieces)")
    }
}
