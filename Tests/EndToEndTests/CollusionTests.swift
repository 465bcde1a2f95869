import Foundation
import Testing
import TestSupport
@testable import VideoWM

/// Colluders and the false-accusation rate, on the keyed lecture of `TraceMedia` traced against
/// 300 rows: the copies of rows 17, 77 and 150 averaged two and three at a time, and switched
/// between every 10 s, re-encoded at CRF 30: the averages 80 s (the issue's 120 s, shortened:
/// docs/design/measurements.md's table has the full length, `scripts/trace-table`), the switching leak the
/// issue's full 120 s, four 10-s turns (eight slots) per row: with 80 s a row had two turns and
/// with 90 s three, and under some keys a row fell short of the threshold (measured: row 150 at
/// 80 s, row 77 at 90 s, each with a fresh key); every colluder is identified and
/// nobody else. An unmarked copy and a copy made with another key identify nobody; and over 200
/// innocent trials (those two leaks scored under 100 other keys each: under a key that did not
/// make them, every row is innocent) no row reaches a false-match probability more often than
/// the probability says.
@Suite("trace: colluders and false accusations")
struct CollusionTests {
    @Test(arguments: [("average of two", [17, 77]), ("average of three", [17, 77, 150]), ("switching every 10 s", [17, 77, 150])])
    func everyColluderIsIdentifiedAndNobodyElse(attack: String, rows: [Int]) throws {
        let media = try CollusionMedia.shared.get()
        let result = try media.trace(media.leaks[attack]!)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try TraceReport(result.stdoutData)
        #expect(report.identified.map(\.row).sorted() == rows, "\(attack): \(report.identified.map { ($0.row, $0.falseMatchProbability) })")
        guard attack.hasPrefix("switching") else { return }
        // Each row explains the 10-s turns it was on (the leak's own seconds), give or take a slot.
        for (turn, row) in rows.enumerated() {
            let spans = report.identified.first { $0.row == row }?.explains ?? []
            for start in stride(from: Double(turn) * 10, to: CollusionMedia.switchingSeconds - 5, by: 30) {
                let middle = start + 5
                #expect(spans.contains { $0.startSeconds <= middle && middle <= $0.endSeconds }, "row \(row) at \(middle) s: \(spans)")
                let other = middle + 10
                guard other < CollusionMedia.switchingSeconds - 5 else { continue }
                #expect(!spans.contains { $0.startSeconds <= other - 2 && other + 2 <= $0.endSeconds }, "row \(row) at \(other) s: \(spans)")
            }
        }
    }

    @Test func unmarkedAndForeignCopiesIdentifyNobody() throws {
        let media = try CollusionMedia.shared.get()
        let unmarked = try media.sessions.unmarked.report()
        #expect(unmarked.identified.isEmpty, "\(unmarked.ranking.prefix(2).map(\.score))")
        #expect(unmarked.forgery == nil)
        let foreign = try media.sessions.foreign.report()
        #expect(foreign.identified.isEmpty, "\(foreign.ranking.prefix(2).map(\.score))")
        #expect(foreign.forgery?.description.hasPrefix("forged or foreign marks: marks in ") == true, "\(String(describing: foreign.forgery))")
    }

    /// Under a key that did not make the leak, every row is innocent: the rows' paths are then
    /// as unrelated to the leak as an innocent student's. 200 such trials of 300 rows each; the
    /// share of trials in which the best row's false-match probability is at most α must not
    /// exceed α by more than chance allows (three binomial standard deviations, plus one).
    @Test func falseMatchProbabilitiesAreCalibrated() throws {
        let media = try CollusionMedia.shared.get()
        var generator = SplitMix64(seed: 27)
        var best: [Double] = []
        let began = Date()
        for session in [media.sessions.unmarked, media.sessions.foreign] {
            for _ in 0..<CollusionMedia.keysPerLeak {
                let key = try KeyedDerivation(key: SecretKey(bytes: (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }))
                best.append(try session.score(pathKey: key).first?.falseMatchProbability ?? 1)
            }
        }
        let perTrial = Date().timeIntervalSince(began) / Double(best.count)
        // Scoring alone, the rows' marks already placed (the leak's own key): docs/design/measurements.md's cost of
        // scoring once the differences are collected (wall time, an upper bound while other tests run).
        let scoringBegan = Date()
        let own = media.sessions.unmarked
        for _ in 0..<5 { #expect(try own.score(pathKey: own.request.pathKey).count == 300) }
        let scoring = Date().timeIntervalSince(scoringBegan) / 5
        var lines = ["\(best.count) innocent trials (300 rows each, \(String(format: "%.3f", perTrial)) s per rebinding and scoring; "
                     + "scoring alone \(String(format: "%.3f", scoring)) s):"]
        for alpha in [0.001, 0.01, 0.05, 0.1, 0.2, 0.5] {
            let count = best.filter { $0 <= alpha }.count
            let expected = Double(best.count) * alpha
            let allowed = expected + 3 * (expected * (1 - alpha)).squareRoot() + 1
            lines.append("  best row at or below \(alpha): \(count) (\(String(format: "%.1f", expected)) expected of calibrated p-values)")
            #expect(Double(count) <= allowed, "\(count) of \(best.count) trials had an innocent row at or below \(alpha)")
        }
        print(lines.joined(separator: "\n"))
        #expect(best.count >= 200)
    }
}

/// The suite's media: 300 rows (the first 200 `TraceMedia`'s), its keyed copies of rows 17, 77
/// and 150 combined into three colluders' leaks, a copy of row 17 made with another key, and the
/// unmarked lecture, each leak from 10 s at CRF 30 (80 s; switching 120 s).
final class CollusionMedia: @unchecked Sendable {
    static let shared = Result { try CollusionMedia() }
    static let leakStart = 10.0, leakSeconds = 80.0, switchingSeconds = 120.0
    /// Keys each of the two leaks is scored under; `VIDEOWM_CALIBRATION_KEYS` asks for more
    /// (`scripts/trace-table --tables calibration` uses 500 for docs/design/measurements.md's figures).
    static let keysPerLeak = ProcessInfo.processInfo.environment["VIDEOWM_CALIBRATION_KEYS"].flatMap { Int($0) } ?? 100

    let base: TraceMedia
    let students: String
    let leaks: [String: String]
    /// The unmarked and foreign-key leaks analysed in this process, to score under many keys.
    let sessions: (unmarked: TraceSession, foreign: TraceSession)

    private init() throws {
        base = try TraceMedia.shared.get()
        let h = base.harness
        students = try h.write("students-300.csv", "email,id\n" + TraceMedia.students(count: 300).map { "\($0.email),\($0.id)" }.joined(separator: "\n") + "\n")
        let copy = { (row: Int) in h.path("marked/\(1000 + row).mp4") }
        let window = ["-ss", "\(Self.leakStart)", "-t", "\(Self.leakSeconds)"]
        let encode = ["-an", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30"]
        func leak(_ name: String, from rows: [Int], seconds: Double = CollusionMedia.leakSeconds, filter: String) throws -> String {
            let inputs = rows.flatMap { ["-ss", "\(Self.leakStart)", "-t", "\(seconds)", "-i", copy($0)] }
            try h.ffmpeg(inputs + ["-filter_complex", filter + ",format=yuv420p[v]", "-map", "[v]"] + encode + [h.path(name)])
            return h.path(name)
        }
        leaks = [
            "average of two": try leak("avg2.mp4", from: [17, 77], filter: "[0:v][1:v]mix=inputs=2"),
            "average of three": try leak("avg3.mp4", from: [17, 77, 150], filter: "[0:v][1:v][2:v]mix=inputs=3"),
            "switching every 10 s": try leak("switch3.mp4", from: [17, 77, 150], seconds: Self.switchingSeconds,
                                             filter: "[0:v][1:v]overlay=enable='between(mod(t,30),10,20)'[a];[a][2:v]overlay=enable='gte(mod(t,30),20)'"),
        ]
        // Row 17's copy made with another key, and the unmarked lecture.
        let otherKey = h.path("other.key")
        guard try h.videowm("keygen", otherKey, "-q").status == 0 else { throw HarnessError.toolFailed("keygen") }
        let foreignCopy = h.path("foreign-17.mp4")
        let student = TraceMedia.students()[16]
        let transcode = try h.videowm("transcode", base.lecture, foreignCopy, "-c", base.config, "--var", "email=\(student.email)",
                                      "--var", "id=\(student.id)", "--key-file", otherKey, "--preset", "ultrafast", "--crf", "18", "-q")
        guard transcode.status == 0 else { throw HarnessError.toolFailed("transcode: \(transcode.stderr)") }
        for (source, name) in [(foreignCopy, "foreign.mp4"), (base.lecture, "unmarked.mp4")] {
            try h.ffmpeg(window + ["-i", source] + encode + [h.path(name)])
        }
        let key = try KeyedDerivation(key: SecretKey.read(fromFile: base.key))
        let (lecture, config, rows) = (base.lecture, base.config, students)
        func session(_ leak: String) throws -> TraceSession {
            try TraceSession(LeakTraceRequest(leak: h.path(leak), original: lecture, configPath: config, csvPath: rows, pathKey: key),
                             warn: { _ in })
        }
        sessions = (try session("unmarked.mp4"), try session("foreign.mp4"))
    }

    func trace(_ leak: String) throws -> Harness.Result {
        try base.harness.videowm("trace", leak, "--original", base.lecture, "-c", base.config, "--vars", students,
                                  "--key-file", base.key, "--json", "--top", "5")
    }
}
