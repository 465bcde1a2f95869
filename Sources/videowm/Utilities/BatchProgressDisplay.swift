import Foundation
import VideoWM

/// Progress of a whole batch: a bar with rows finished, failed and the ETA on a terminal;
/// with `--progress json`, one object a line on stdout (a `row` event per row, `progress`
/// at most once a second, `done` at the end). Each row's outcome is also a line on stderr.
final class BatchProgressDisplay {
    private let line: ProgressLine
    private let console: Console

    init(mode: ProgressLine.Mode, console: Console) {
        line = ProgressLine(mode: mode, console: console)
        self.console = console
    }

    func rowFinished(_ result: BatchRowResult) {
        let row = result.row
        if line.mode == .json {
            line.emitLine("{\"event\":\"row\"," + result.jsonLine.dropFirst())
        }
        if let error = result.error {
            line.clearBar()
            console.error("row \(row.number): \(errorLine(for: error))")
        } else if line.mode != .bar && (result.status == .done || console.verbosity == .verbose) {
            let smart = result.render?.summary.map { " (\($0))" } ?? ""
            console.info(result.status == .done
                ? "row \(row.number): \(row.output) done in \(String(format: "%.1f", result.seconds)) s\(smart)"
                : "row \(row.number): \(row.output) exists, skipped (--force redoes it)")
        }
    }

    func update(_ progress: BatchProgress, final: Bool = false) {
        guard line.isDue(final: final) else { return }
        if line.mode == .json {
            let number = ProgressLine.number
            var fields = ["\"event\":\"\(final ? "done" : "progress")\"", "\"total\":\(progress.total)", "\"done\":\(progress.done)",
                          "\"skipped\":\(progress.skipped)", "\"failed\":\(progress.failed)",
                          "\"percent\":\(number(progress.fractionComplete * 100))", "\"elapsed\":\(number(progress.elapsedSeconds))"]
            if let eta = progress.etaSeconds { fields.append("\"eta\":\(number(eta))") }
            line.emit(fields)
        } else {
            let failed = progress.failed > 0 ? String(format: " %d failed", progress.failed) : ""
            line.drawBar(fraction: progress.fractionComplete,
                         String(format: "%5.1f%% %d/%d rows%@ ", progress.fractionComplete * 100, progress.finished, progress.total, failed)
                             + ProgressLine.eta(progress.etaSeconds),
                         final: final)
        }
    }

    /// Draws the final state, then one summary line.
    func finish(_ progress: BatchProgress) {
        update(progress, final: true)
        console.info("\(progress.done) done, \(progress.skipped) skipped, \(progress.failed) failed of \(progress.total) rows"
                     + String(format: " in %.1f s", progress.elapsedSeconds))
    }

    /// Ends the bar's line so an error printed next starts on its own line.
    func stop() { line.clearBar() }
}
