import Foundation
import Testing
import TestSupport
@testable import VideoWM

/// The innocent trials of `scripts/variant-trace-table` (docs/design/measurements.md, variant marks): leaks
/// analysed once each by trace's own code (`TraceSession`), then scored as `trace` scores them
/// (`VariantTracing.verdict`) against classes none of whose students made them: fresh classes of
/// made-up students under the platform's key, and the class itself under fresh keys (under a key
/// that did not make a copy, its codeword is as unrelated to it as an innocent student's). Every
/// row is innocent, so the share of trials whose best row reaches a class false-accusation
/// probability α may be at most α. Skipped unless VIDEOWM_VARIANT_EVIDENCE names the script's
/// manifest (JSON: `original`, `config`, `csv`, `key`, `leaks`, `trialsPerLeak`, `output`).
@Suite("variant layers: innocent trials")
struct VariantInnocentTrials {
    struct Manifest: Decodable {
        var original: String, config: String, csv: String, key: String
        var leaks: [String]
        var trialsPerLeak: Int
        var output: String
    }

    static let manifest: Manifest? = ProcessInfo.processInfo.environment["VIDEOWM_VARIANT_EVIDENCE"].flatMap {
        try? JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: $0)))
    }
    static let levels = [1e-6, 1e-4, 1e-3, 1e-2, 0.1, 0.5]

    @Test(.enabled(if: manifest != nil)) func innocentClassesAreNamedNoMoreOftenThanStated() throws {
        let manifest = try #require(Self.manifest)
        let key = try KeyedDerivation(key: SecretKey.read(fromFile: manifest.key))
        var random = SplitMix64(seed: 2929)
        var best: [Double] = []
        var rowsScored = 0, named = 0
        var lines: [String] = []
        for leak in manifest.leaks {
            let began = Date()
            let session = try TraceSession(LeakTraceRequest(leak: leak, original: manifest.original, configPath: manifest.config,
                                                            csvPath: manifest.csv, pathKey: key), warn: { _ in })
            let tracing = try #require(session.variantTracing, "\(leak): no variant layer traced")
            let readings = session.analysis?.variantReadings
            let classSize = session.table.rows.count
            let numbers = Array(1...classSize)
            let analysed = Date().timeIntervalSince(began)
            let lecture = tracing.codebook.lecture, q = tracing.codebook.alphabetSize
            for trial in 0..<manifest.trialsPerLeak {
                let verdict: VariantTraceVerdict
                if trial % 2 == 0 {
                    // A fresh class under the platform's key.
                    let students = (1...classSize).map { _ in
                        session.config.variantStudent(variables: ["email": "innocent\(random.next() % 1_000_000_000)@example.net",
                                                                  "name": "Innocent", "id": "0"]) ?? ""
                    }
                    verdict = try tracing.verdict(readings, numbers: numbers, students: students, codebook: tracing.codebook)
                } else {
                    // The class under a fresh key.
                    let fresh = try KeyedDerivation(key: SecretKey(bytes: (0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }))
                    verdict = try tracing.verdict(readings, numbers: numbers, students: tracing.students,
                                                  codebook: VariantCodebook(derivation: fresh, lecture: lecture, alphabetSize: q))
                }
                best.append(verdict.best?.falseAccusationProbability ?? 1)
                named += verdict.named.count
                rowsScored += classSize
            }
            let read = readings.map { readings in readings.periods.filter { !$0.variants.isErased }.count } ?? 0
            print("\(leak): analysed in \(String(format: "%.0f", analysed)) s, \(read) periods read, \(manifest.trialsPerLeak) trials")
        }
        lines.append("\(best.count) innocent trials (\(manifest.leaks.count) leaks of the table, each analysed once by trace's own code, "
                     + "then scored as trace scores them against \(manifest.trialsPerLeak) classes that did not make it: half fresh classes "
                     + "of \(rowsScored / max(best.count, 1)) made-up students, half the class under a fresh key); "
                     + "\(named) of \(rowsScored) innocent rows named.")
        lines.append("")
        lines.append("| class false-accusation probability α | trials whose best row reached it | allowed (α × trials) |")
        lines.append("|---|---:|---:|")
        for level in Self.levels {
            let count = best.filter { $0 <= level }.count
            lines.append("| \(level) | \(count) | \(String(format: "%g", level * Double(best.count))) |")
            // A valid bound: at most α of the trials, give or take chance (three binomial
            // standard deviations, plus one).
            let expected = level * Double(best.count)
            #expect(Double(count) <= expected + 3 * (expected * (1 - level)).squareRoot() + 1, "\(count) trials at or below \(level)")
        }
        #expect(named == 0)
        #expect(best.count >= 200)
        try (lines.joined(separator: "\n") + "\n").write(toFile: manifest.output, atomically: true, encoding: .utf8)
    }
}
