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
            if alignment.pieces.count > 1 {
                out += "the leak joins \(alignment.pieces.count) parts of the original: "
                    + alignment.pieces.map { "\(clock($0.original.lowerBound))–\(clock($0.original.upperBound)) at \(clock($0.leakStart))" }
                        .joined(separator: ", ") + " of the leak\n"
            }
            let picture = alignment.pictureInLeak
            if picture.width < Double(alignment.leakWidth) * 0.95 || picture.height < Double(alignment.leakHeight) * 0.95 {
                out += "the lecture fills (\(Int(picture.minX.rounded())), \(Int(picture.minY.rounded())))–"
                    + "(\(Int(picture.maxX.rounded())), \(Int(picture.maxY.rounded()))) of the leak's \(alignment.leakWidth)×\(alignment.leakHeight) picture "
                    + "(\(percent(picture.width / Double(alignment.leakWidth))) of its width)\n"
            }
        }
        if let still = report.still { out += StillTraceOutput.text(still, request: request) }
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
        let identified = report.identified
        if !identified.isEmpty {
            for (index, row) in identified.enumerated() {
                out += (index == 0 ? "identified: " : "also identified: ")
                    + "row \(row.number) (line \(row.line)), \(namingLine(row))"
                    + (index == 0 ? " (threshold \(threshold))" : "")
                    + (identified.count > 1 && row.namedBy.contains(.marks) ? "; its marks explain \(spans(row.explains))" : "") + "\n"
            }
        } else if let best = report.ranking.first {
            out += "identified: nobody (best false-match probability \(probability(best.score.falseMatchProbability)), threshold \(threshold))\n"
        } else {
            out += "identified: nobody\n"
        }
        if let variants = report.variants { out += variantLines(variants) }
        if let forgery = report.forgery { out += "\(forgery)\n" }
        if let still = report.still, let forgery = still.forgery {
            out += "forged: \(forgery) (the text names row\(still.forged.count == 1 ? "" : "s") \(still.forged.map(String.init).joined(separator: ", ")))\n"
        }
        if !report.keyed { out += "note: \(LeakTraceReport.unkeyedWarning)\n" }
        return out
    }

    /// "false-match probability 1.0e-12, named by its text and position" (or by its marks, its variants).
    static func namingLine(_ row: TracedRow) -> String {
        let chance = row.namedBy == [.variants] ? "false-accusation probability" : "false-match probability"
        let by = row.namedBy.map { evidence in
            switch evidence {
            case .marks: "its marks' path"
            case .variants: "its variants"
            case .text: "its text"
            case .position: "its mark's position"
            }
        }
        return "\(chance) \(probability(row.namingProbability ?? row.score.falseMatchProbability))"
            + (by.isEmpty ? "" : ", named by \(by.joined(separator: " and "))")
    }

    /// "0:00.0–0:10.0, 0:30.0–0:40.0 of the leak".
    /// The variant code's verdict: every row it names, or why nobody.
    static func variantLines(_ verdict: VariantTraceVerdict) -> String {
        let read = "\(verdict.periodsRead) of \(verdict.periodsCovered) periods read"
        let threshold = verdict.threshold.map { String(format: "score threshold %.1f", $0) } ?? "too few periods to name anybody"
        guard !verdict.named.isEmpty else {
            let best = verdict.best.map { "best row \($0.number), false-accusation probability \(probability($0.falseAccusationProbability)); " } ?? ""
            return "variant code: nobody named (\(best)\(read); \(threshold))\n"
        }
        var out = ""
        for (index, row) in verdict.named.enumerated() {
            out += "variant code: \(index == 0 ? "named" : "also named") row \(row.number), false-accusation probability "
                + "\(probability(row.falseAccusationProbability)) (score \(String(format: "%.1f", row.score))"
                + (index == 0 ? "; \(read); \(threshold); named at \(probability(VariantTraceVerdict.target))" : "") + ")\n"
        }
        return out
    }

    static func spans(_ spans: [ClosedRange<Double>]) -> String {
        guard !spans.isEmpty else { return "no single part of the leak" }
        return spans.map { "\(clock($0.lowerBound))–\(clock($0.upperBound))" }.joined(separator: ", ") + " of the leak"
    }

    /// m:ss.s
    static func clock(_ seconds: Double) -> String {
        let tenths = Int((max(0, seconds) * 10).rounded())
        return String(format: "%d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
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
        struct Span: Encodable { var startSeconds: Double, endSeconds: Double }
        struct Row: Encodable {
            var rank: Int, row: Int, line: Int, values: [String: String], score: Double, falseMatchProbability: Double, slots: Int
            var explains: [Span]?
            /// For an identified row: what named it ("marks", "variants", "text", "position").
            var namedBy: [String]?
        }
        struct Forgery: Encodable {
            var message: String, unkeyedMatches: [Int], slotsWithMarks: Int, slots: Int
        }
        struct Crop: Encodable { var left: Double, right: Double, top: Double, bottom: Double }
        struct Picture: Encodable { var x: Double, y: Double, width: Double, height: Double }
        struct Part: Encodable { var leakStartSeconds: Double, leakEndSeconds: Double, offsetSeconds: Double }
        struct Alignment: Encodable {
            var offsetSeconds: Double, originalStartSeconds: Double, originalEndSeconds: Double, crop: Crop, correlation: Double, slots: Int
            var leakWidth: Int, leakHeight: Int
            /// Where the lecture was found in the leak's picture, leak pixels.
            var picture: Picture
            /// The parts of the original the leak shows in turn (one for a copy leaked whole).
            var parts: [Part]
        }
        struct Document: Encodable {
            var leak: String, original: String, rows: Int, threshold: Double
            /// "video" or "still".
            var kind: String
            var alignment: Alignment?, problem: String?
            var still: StillTraceOutput.Still?
            var identified: [Row], ranking: [Row]
            var keyed: Bool, forgery: Forgery?, warning: String?
            var variants: Variants?
        }
        struct VariantRow: Encodable { var row: Int, score: Double, falseAccusationProbability: Double }
        struct Variants: Encodable {
            var periods: Int, periodsCovered: Int, periodsRead: Int, threshold: Double?, target: Double
            var named: [VariantRow], best: VariantRow?
            /// The `--top` strongest rows, named or not.
            var ranking: [VariantRow]
        }
        func variantRow(_ row: VariantTraceVerdict.Row) -> VariantRow {
            VariantRow(row: row.number, score: rounded(row.score, 3), falseAccusationProbability: row.falseAccusationProbability)
        }
        func row(_ traced: TracedRow, rank: Int, spans: Bool = false) -> Row {
            let named = spans
            return Row(rank: rank, row: traced.number, line: traced.line, values: traced.values, score: rounded(traced.score.score, 3),
                       falseMatchProbability: named ? traced.namingProbability ?? traced.score.falseMatchProbability : traced.score.falseMatchProbability,
                       slots: traced.score.slotsUsed,
                       explains: named && traced.namedBy.contains(.marks)
                           ? traced.explains.map { Span(startSeconds: rounded($0.lowerBound, 2), endSeconds: rounded($0.upperBound, 2)) } : nil,
                       namedBy: named ? traced.namedBy.map(\.rawValue) : nil)
        }
        let ranks = Dictionary(uniqueKeysWithValues: report.ranking.enumerated().map { ($1.number, $0 + 1) })
        let alignment = report.alignment.map {
            Alignment(offsetSeconds: rounded($0.offsetSeconds, 3), originalStartSeconds: rounded($0.originalSpan.lowerBound, 3),
                      originalEndSeconds: rounded($0.originalSpan.upperBound, 3),
                      crop: Crop(left: rounded($0.crops.left, 4), right: rounded($0.crops.right, 4), top: rounded($0.crops.top, 4),
                                 bottom: rounded($0.crops.bottom, 4)),
                      correlation: rounded($0.correlation, 4), slots: $0.slots, leakWidth: $0.leakWidth, leakHeight: $0.leakHeight,
                      picture: Picture(x: rounded($0.pictureInLeak.minX, 1), y: rounded($0.pictureInLeak.minY, 1),
                                       width: rounded($0.pictureInLeak.width, 1), height: rounded($0.pictureInLeak.height, 1)),
                      parts: $0.pieces.map {
                          Part(leakStartSeconds: rounded($0.leakStart, 3), leakEndSeconds: rounded($0.leakEnd, 3), offsetSeconds: rounded($0.offset, 3))
                      })
        }
        let document = Document(leak: request.leak, original: request.original, rows: report.rowCount,
                                threshold: LeakTraceReport.identificationThreshold, kind: report.still == nil ? "video" : "still",
                                alignment: alignment, problem: report.problem,
                                still: report.still.map { StillTraceOutput.json($0, top: top) },
                                identified: report.identified.map { row($0, rank: ranks[$0.number] ?? 0, spans: true) },
                                ranking: report.ranking.prefix(top).enumerated().map { row($1, rank: $0 + 1) },
                                keyed: report.keyed,
                                forgery: report.forgery.map {
                                    Forgery(message: $0.description, unkeyedMatches: $0.unkeyedMatches.map(\.number),
                                            slotsWithMarks: $0.slotsWithMarks, slots: $0.slots)
                                },
                                warning: report.keyed ? nil : LeakTraceReport.unkeyedWarning,
                                variants: report.variants.map {
                                    Variants(periods: $0.periods, periodsCovered: $0.periodsCovered, periodsRead: $0.periodsRead,
                                             threshold: $0.threshold.map { rounded($0, 3) }, target: VariantTraceVerdict.target,
                                             named: $0.named.map(variantRow), best: $0.best.map(variantRow),
                                             ranking: $0.ranking.prefix(top).map(variantRow))
                                })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }

    static func rounded(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }
}
