import Foundation
import VideoWM

/// `videowm batch INPUT -c CONFIG --vars FILE.csv --output TEMPLATE [-j N] [--shard I/N] [--force] [--report FILE] [encode options]`
struct BatchCommand: ToolCommand {
    static let name = "batch"
    var input = ""
    var csvPath: String?
    var outputTemplate: String?
    var outputsPerDecode = 4
    var shard: String?
    var shardCount: Int?
    var force = false
    var reportPath: String?
    var marks = MarkOptions()
    var encode = EncodeOptions()

    init(arguments: [String]) throws {
        var scanner = ArgumentScanner(arguments, command: Self.name)
        var marks = MarkOptions(), encode = EncodeOptions()
        var csvPath: String?, outputTemplate: String?, shard: String?, shardCount: Int?, reportPath: String?
        var outputsPerDecode = 4, force = false
        try scanner.scan { option, value in
            switch option {
            case "--vars": csvPath = try value()
            case "-o", "--output": outputTemplate = try value()
            case "-j", "--jobs": outputsPerDecode = try Parse.integer(try value(), option: option, command: Self.name, range: 1...64)
            case "--shard": shard = try value()
            case "--shard-count": shardCount = try Parse.integer(try value(), option: option, command: Self.name, range: 1...1_000_000)
            case "--force": force = true
            case "--report": reportPath = try value()
            default: return try marks.handle(option, value, command: Self.name) || encode.handle(option, value, command: Self.name)
            }
            return true
        }
        (self.marks, self.encode, self.csvPath, self.outputTemplate) = (marks, encode, csvPath, outputTemplate)
        (self.shard, self.shardCount, self.reportPath, self.outputsPerDecode, self.force) = (shard, shardCount, reportPath, outputsPerDecode, force)
        input = try scanner.files(1, described: "one INPUT video")[0]
    }

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard csvPath != nil else { throw UsageError("--vars FILE.csv is required (one row per output)", command: Self.name) }
        guard outputTemplate != nil else { throw UsageError("--output TEMPLATE is required, e.g. --output 'out/{id}.mp4'", command: Self.name) }
        if encode.settings.crf != nil && encode.settings.bitRate != nil {
            throw UsageError("--crf and --bitrate exclude each other", command: Self.name)
        }
        if shard != nil && shardCount != nil {
            throw UsageError("--shard I/N already gives the count; --shard-count is for Kubernetes' JOB_COMPLETION_INDEX", command: Self.name)
        }
        // -y means what it means elsewhere: replace existing outputs.
        force = force || marks.overwrite
    }

    func run(console: Console) throws {
        console.verbosity = marks.verbosity
        VideoWMLibrary.configureLogging(verbose: marks.verbosity == .verbose)
        let config = try WatermarkConfig.load(path: try marks.requireConfig(command: Self.name), warn: console.warningHandler)
        let table = try CSVTable.load(path: csvPath!)
        let template = try OutputPathTemplate(outputTemplate!)
        let plan = try BatchPlan(config: config, table: table, outputTemplate: template, fixedVariables: marks.variables,
                                 warn: console.warningHandler)
        let selected = try shard.map(BatchShard.parse)
            ?? BatchShard.fromEnvironment(ProcessInfo.processInfo.environment, countOverride: shardCount)
        let rows = plan.rows(in: selected)
        if selected.count > 1 {
            console.info("shard \(selected) (from \(selected.origin)): \(rows.count) of \(plan.rows.count) rows")
        }
        let report = try reportPath.map { try BatchReport(path: $0) }

        let display = BatchProgressDisplay(mode: marks.progress, console: console)
        let runner = BatchRunner(input: input, config: config, rows: rows, outputDirectory: template.baseDirectory,
                                 settings: encode.settings, damagePolicy: encode.damagePolicy, outputsPerDecode: outputsPerDecode,
                                 force: force, warn: console.warningHandler)
        let summary: BatchSummary
        do {
            summary = try runner.run(onRow: { result in
                // A report that cannot be written must not fail the row that was made.
                do { try report?.record(result) } catch { console.warning("\(error)") }
                display.rowFinished(result)
            }, onProgress: { display.update($0) })
        } catch {
            display.stop()
            throw error
        }
        display.finish(summary.progress)
        // The gravest failure of the rows decides the exit status; each has had its line.
        if let worst = summary.failures.max(by: { exitStatus(for: $0) < exitStatus(for: $1) }) {
            throw CommandFailures(exitsAs: worst)
        }
    }
}

/// Progress of a whole batch in `ProgressDisplay`'s style: a live bar with rows done, failed
/// and the ETA on a terminal; with `--progress json`, one object per line on stdout (a
/// `row` event per row, `progress` at most once a second, `done` at the end).
final class BatchProgressDisplay {
    let mode: ProgressDisplay.Mode
    private let console: Console
    private var lastDraw = Date.distantPast
    private var barShown = false

    init(mode: ProgressDisplay.Mode, console: Console) {
        self.console = console
        switch mode {
        case .auto: self.mode = console.isTerminal && console.verbosity != .quiet ? .bar : .none
        default: self.mode = mode
        }
    }

    func rowFinished(_ result: BatchRowResult) {
        let row = result.row
        switch mode {
        case .json:
            emit("{\"event\":\"row\"," + result.jsonLine.dropFirst())
        default:
            break
        }
        if let error = result.error {
            clearBar()
            console.error("row \(row.number): \(errorLine(for: error))")
        } else if mode != .bar && (result.status == .done || console.verbosity == .verbose) {
            console.info(result.status == .done
                ? "row \(row.number): \(row.output) done in \(String(format: "%.1f", result.seconds)) s"
                : "row \(row.number): \(row.output) exists, skipped (--force redoes it)")
        }
    }

    func update(_ progress: BatchProgress, final: Bool = false) {
        guard mode == .bar || mode == .json else { return }
        let now = Date()
        guard final || now.timeIntervalSince(lastDraw) >= (mode == .json ? 1.0 : 0.2) else { return }
        lastDraw = now
        if mode == .json {
            var fields = ["\"event\":\"\(final ? "done" : "progress")\"", "\"total\":\(progress.total)", "\"done\":\(progress.done)",
                          "\"skipped\":\(progress.skipped)", "\"failed\":\(progress.failed)",
                          "\"percent\":\(round3(progress.fractionComplete * 100))", "\"elapsed\":\(round3(progress.elapsedSeconds))"]
            if let eta = progress.etaSeconds { fields.append("\"eta\":\(round3(eta))") }
            emit("{" + fields.joined(separator: ",") + "}")
            return
        }
        let width = 30
        let filled = Int(progress.fractionComplete * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let etaText = progress.etaSeconds.map { String(format: "ETA %02d:%02d", Int($0) / 60, Int($0) % 60) } ?? "ETA --:--"
        let failed = progress.failed > 0 ? String(format: " %d failed", progress.failed) : ""
        console.write(String(format: "\r[%@] %5.1f%% %d/%d rows%@ %@", bar, progress.fractionComplete * 100,
                             progress.finished, progress.total, failed, etaText) + (final ? "\n" : ""))
        barShown = !final
    }

    /// Draws the final state, then one summary line.
    func finish(_ progress: BatchProgress) {
        update(progress, final: true)
        console.info("\(progress.done) done, \(progress.skipped) skipped, \(progress.failed) failed of \(progress.total) rows"
                     + String(format: " in %.1f s", progress.elapsedSeconds))
    }

    /// Ends the bar's line so an error printed next starts on its own line.
    func stop() { clearBar() }

    private func clearBar() {
        if barShown { console.write("\r\u{1B}[2K") }
        barShown = false
    }

    private func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func round3(_ v: Double) -> String { String(format: "%.3f", v) }
}
