import Foundation
import LeakTrace
import VideoWM

/// How `videowm trace` prints its report: a table for people, one JSON object for programs.
enum TraceOutput {
    /// The alignment line, the top rows as a table, and the verdict.
    static func text(_ report: LeakTraceReport, request: LeakTraceRequest, top: Int) -> String {
        var out = ""
        if let alignment = report.alignment {
            let crops = alignment.crops
            out += "\(request.leak): \(seconds(alignment.originalSpan.upperBound - alignment.originalSpan.lowerBound)) of "
                + "\(request.original) from \(seconds(alignment.originalSpan.lowerBound)); crop left \(percent(crops.left)), "
                + "right \(percent(crops.right)), top \(percent(crops.top)), bottom \(percent(crops.bottom)); "
                + "picture match \(String(format: "%.3f", alignment.correlation)); \(alignment.slots) slot\(alignment.slots == 1 ? "" : "s") compared\n"
        }
        let shown = Array(report.ranking.prefix(top))
        if !shown.isEmpty {
            let header = ["rank", "row", "score", "false match"] + report.columns
            let lines = shown.enumerated().map { rank, row in
                ["\(rank + 1)", "\(row.number)", String(format: "%.1f", row.score.score), probability(row.score.falseMatchProbability)]
                    + report.columns.map { row.values[$0] ?? "" }
            }
            out += table([header] + lines)
        }
        let threshold = probability(LeakTraceReport.identificationThreshold)
        if let best = report.identified.first {
            out += "identified: row \(best.number) (line \(best.line)), false-match probability \(probability(best.score.falseMatchProbability))"
                + " (threshold \(threshold))\n"
            for other in report.identified.dropFirst() {
                out += "also matching: row \(other.number) (line \(other.line)), false-match probability \(probability(other.score.falseMatchProbability))\n"
            }
        } else if let best = report.ranking.first {
            out += "identified: nobody (best false-match probability \(probability(best.score.falseMatchProbability)), threshold \(threshold))\n"
        } else {
            out += "identified: nobody\n"
        }
        return out
    }

    /// Columns padded to their widest cell, two spaces apart.
    private static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    /// 0.42, 0.001, 3.1e-05: two decimals down to 0.01, three down to 0.001, then powers of ten.
    static func probability(_ p: Double) -> String {
        if p >= 0.01 { return String(format: "%.2f", p) }
        if p >= 0.00095 { return String(format: "%.3f", p) }
        return String(format: "%.1e", p)
    }

    private static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }
    private static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

    /// The report as one JSON object with sorted keys.
    static func json(_ report: LeakTraceReport, request: LeakTraceRequest, top: Int) throws -> String {
        struct Row: Encodable {
            var rank: Int, row: Int, line: Int, values: [String: String], score: Double, falseMatchProbability: Double, slots: Int
        }
        struct Crop: Encodable { var left: Double, right: Double, top: Double, bottom: Double }
        struct Alignment: Encodable {
            var offsetSeconds: Double, originalStartSeconds: Double, originalEndSeconds: Double, crop: Crop, correlation: Double, slots: Int
        }
        struct Document: Encodable {
            var leak: String, original: String, rows: Int, threshold: Double
            var alignment: Alignment?, problem: String?
            var identified: [Row], ranking: [Row]
        }
        func row(_ traced: TracedRow, rank: Int) -> Row {
            Row(rank: rank, row: traced.number, line: traced.line, values: traced.values, score: rounded(traced.score.score, 3),
                falseMatchProbability: traced.score.falseMatchProbability, slots: traced.score.slotsUsed)
        }
        let ranks = Dictionary(uniqueKeysWithValues: report.ranking.enumerated().map { ($1.number, $0 + 1) })
        let alignment = report.alignment.map {
            Alignment(offsetSeconds: rounded($0.offsetSeconds, 3), originalStartSeconds: rounded($0.originalSpan.lowerBound, 3),
                      originalEndSeconds: rounded($0.originalSpan.upperBound, 3),
                      crop: Crop(left: rounded($0.crops.left, 4), right: rounded($0.crops.right, 4), top: rounded($0.crops.top, 4),
                                 bottom: rounded($0.crops.bottom, 4)),
                      correlation: rounded($0.correlation, 4), slots: $0.slots)
        }
        let document = Document(leak: request.leak, original: request.original, rows: report.rowCount,
                                threshold: LeakTraceReport.identificationThreshold, alignment: alignment, problem: report.problem,
                                identified: report.identified.map { row($0, rank: ranks[$0.number] ?? 0) },
                                ranking: report.ranking.prefix(top).enumerated().map { row($1, rank: $0 + 1) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }

    private static func rounded(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }
}
