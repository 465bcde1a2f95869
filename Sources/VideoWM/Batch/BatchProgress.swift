import Foundation

/// Where a running batch stands, for a progress display.
public struct BatchProgress: Sendable {
    /// Rows of this shard.
    public var total: Int
    /// Rows whose output was written.
    public var done = 0
    /// Rows skipped because their output existed.
    public var skipped = 0
    /// Rows abandoned with an error.
    public var failed = 0
    /// Share of the encoding work finished, 0…1 (skipped rows are no work).
    public var fractionComplete = 0.0
    /// Wall time since the batch started.
    public var elapsedSeconds = 0.0
    /// Seconds left at the rate so far; nil until that can be told.
    public var etaSeconds: Double?

    /// Rows that have ended, whichever way.
    public var finished: Int { done + skipped + failed }
}

/// Counts rows and estimates the time left from the share of encoding work done.
final class BatchProgressTracker {
    private var progress: BatchProgress
    private var pendingRows = 0
    private var finishedPendingRows = 0
    private var inputSeconds: Double?
    /// How far the open group's decode is (0…1) and how many of its outputs are still unfinished.
    private var groupPosition = 0.0
    private var groupOutputs = 0
    private var started: Date?

    init(total: Int) { progress = BatchProgress(total: total) }

    func start(pendingRows: Int, inputSeconds: Double?) {
        self.pendingRows = pendingRows
        self.inputSeconds = inputSeconds.flatMap { $0 > 0 ? $0 : nil }
        started = Date()
    }

    func record(_ result: BatchRowResult) {
        switch result.status {
        case .done: progress.done += 1
        case .failed: progress.failed += 1
        case .skipped: progress.skipped += 1; return
        }
        finishedPendingRows += 1
        groupOutputs = max(0, groupOutputs - 1)
    }

    /// The open group's decode has reached `seconds` of the input, feeding `activeOutputs` outputs.
    func groupReached(seconds: Double, activeOutputs: Int) {
        guard let inputSeconds else { return }
        groupPosition = min(1, seconds / inputSeconds)
        groupOutputs = activeOutputs
    }

    func snapshot() -> BatchProgress {
        var p = progress
        if pendingRows > 0 {
            p.fractionComplete = min(1, (Double(finishedPendingRows) + Double(groupOutputs) * groupPosition) / Double(pendingRows))
        } else {
            p.fractionComplete = 1
        }
        if let started {
            p.elapsedSeconds = Date().timeIntervalSince(started)
            if p.fractionComplete >= 1 {
                p.etaSeconds = 0
            } else if p.fractionComplete > 0 {
                p.etaSeconds = p.elapsedSeconds * (1 - p.fractionComplete) / p.fractionComplete
            }
        }
        return p
    }
}
