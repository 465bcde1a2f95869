import LeakTrace
import VideoWM

/// The part of `videowm trace`'s report that only a still picture has: the instant and place of
/// the lecture's frame in it, what OCR read, and each row's two readings.
enum StillTraceOutput {
    /// "LEAK: a still 1920×1080 showing INPUT at 0:12.3 (…)", the lecture's corners, the readings.
    static func text(_ still: StillTraceReport, request: LeakTraceRequest) -> String {
        let span = still.times.upperBound - still.times.lowerBound
        var out = "\(request.leak): a still picture \(still.width)×\(still.height) showing \(request.original) at "
            + "\(TraceOutput.clock(still.time))" + (span > 0.001 ? " (any instant \(TraceOutput.clock(still.times.lowerBound))–\(TraceOutput.clock(still.times.upperBound)) fits as well)" : "")
            + "; \(still.featurePairs) feature pairs; \(Int((still.coverage * 100).rounded()))% of the frame shown\n"
        let corners = still.corners.map { "(\(Int($0.x.rounded())), \(Int($0.y.rounded())))" }
        if corners.count == 4 { out += "the frame's corners in the picture: \(corners.joined(separator: ", "))\n" }
        if still.readings.isEmpty {
            out += "read: no text where the picture differs from the frame\n"
        }
        for reading in still.readings {
            out += "read: \"\(reading.text)\" (confidence \(Int(reading.confidence.rounded())), from the \(reading.source == .opacity ? "mark's opacity" : "picture")) "
                + "at (\(Int(reading.box.minX.rounded())), \(Int(reading.box.minY.rounded())))–(\(Int(reading.box.maxX.rounded())), \(Int(reading.box.maxY.rounded()))) of the frame\n"
        }
        return out
    }

    struct Point: Encodable { var x: Double, y: Double }
    struct Box: Encodable { var x: Double, y: Double, width: Double, height: Double }
    struct Reading: Encodable { var text: String, confidence: Double, source: String, box: Box }
    struct RowEvidence: Encodable {
        var row: Int
        var reading: String?
        var matchedCharacters: Int, edits: Int, textPValue: Double
        var located: Bool?
        var markOpacity: Double?
        var positionPValue: Double
        /// The chance that a mark typed where somebody liked lies as close to the row's place (text read there only).
        var forgeryChance: Double?
    }
    struct Placement: Encodable {
        /// The original display's corners in the still's pixels, clockwise from the top left.
        var corners: [Point]
        /// Original display pixels → still pixels, row by row.
        var homography: [Double]
        var featurePairs: Int
        var coverage: Double
    }
    struct Still: Encodable {
        var width: Int, height: Int, displayWidth: Int, displayHeight: Int
        var timeSeconds: Double, earliestSeconds: Double, latestSeconds: Double
        var placement: Placement
        var readings: [Reading]
        /// The `--top` strongest rows' evidence.
        var rows: [RowEvidence]
        var forgery: String?
        var forgedRows: [Int]
    }

    static func json(_ still: StillTraceReport, top: Int) -> Still {
        let r = TraceOutput.rounded
        func box(_ rect: PlaneRect) -> Box { Box(x: r(rect.minX, 1), y: r(rect.minY, 1), width: r(rect.width, 1), height: r(rect.height, 1)) }
        return Still(width: still.width, height: still.height, displayWidth: still.displayWidth, displayHeight: still.displayHeight,
                     timeSeconds: r(still.time, 3), earliestSeconds: r(still.times.lowerBound, 3), latestSeconds: r(still.times.upperBound, 3),
                     placement: Placement(corners: still.corners.map { Point(x: r($0.x, 1), y: r($0.y, 1)) },
                                          homography: still.placement.entries.map { r($0, 8) }, featurePairs: still.featurePairs,
                                          coverage: r(still.coverage, 4)),
                     readings: still.readings.map {
                         Reading(text: $0.text, confidence: r($0.confidence, 1), source: $0.source.rawValue, box: box($0.box))
                     },
                     rows: still.rows.prefix(top).map {
                         RowEvidence(row: $0.number, reading: $0.reading, matchedCharacters: $0.matchedCharacters, edits: $0.edits,
                                     textPValue: $0.textPValue, located: $0.located, markOpacity: $0.markOpacity.map { r($0, 4) },
                                     positionPValue: $0.positionPValue, forgeryChance: $0.forgeryChance)
                     },
                     forgery: still.forgery, forgedRows: still.forged)
    }
}
