import Foundation
import VideoWM

/// Progress of one transcode: a bar with percent, fps, speed and ETA on a terminal, or
/// `progress` objects (and a final `done` with the count of damaged packets) on stdout.
final class TranscodeProgressDisplay {
    private let line: ProgressLine
    private let started = Date()
    private let label: String
    private var last: (done: Double, total: Double?, frames: Int) = (0, nil, 0)
    /// With smart rendering, the share of the video re-encoded (0…1); nil for a full render.
    var reencodedShare: Double?
    /// How the video is rendered and why (`--render`), once known: JSON's `render` and `renderReason`.
    var render: RenderOutcome?

    init(mode: ProgressLine.Mode, console: Console, label: String) {
        line = ProgressLine(mode: mode, console: console)
        self.label = label
    }

    /// Draws the last state as complete (and, for JSON, reports concealed damage).
    func finish(damaged: Int = 0) {
        draw(done: last.total ?? last.done, total: last.total, frames: last.frames, damaged: damaged)
    }

    /// `done` and `total` are seconds of the input; `frames` the frames written so far.
    func update(done: Double, total: Double?, frames: Int) {
        draw(done: done, total: total, frames: frames, damaged: nil)
    }

    /// `damaged` is nil until the final draw.
    private func draw(done: Double, total: Double?, frames: Int, damaged: Int?) {
        last = (done, total, frames)
        let final = damaged != nil
        guard line.isDue(final: final) else { return }
        let elapsed = max(Date().timeIntervalSince(started), 1e-6)
        let fps = Double(frames) / elapsed
        let speed = done / elapsed
        let fraction = total.map { $0 > 0 ? min(1, done / $0) : 0 }
        let eta = total.flatMap { total in (fraction ?? 0) > 0 && speed > 0 ? (total - done) / speed : nil }
        if line.mode == .json {
            let number = ProgressLine.number
            var fields = ["\"event\":\"\(final ? "done" : "progress")\"", "\"file\":\(jsonString(label))", "\"seconds\":\(number(done))",
                          "\"frames\":\(frames)", "\"fps\":\(number(fps))", "\"speed\":\(number(speed))"]
            if let total { fields.append("\"duration\":\(number(total))") }
            if let fraction { fields.append("\"percent\":\(number(fraction * 100))") }
            if let eta { fields.append("\"eta\":\(number(eta))") }
            if let reencodedShare { fields.append("\"reencoded\":\(number(reencodedShare))") }
            if let render {
                fields.append("\"render\":\"\(render.isSmart ? "smart" : "full")\"")
                if let reason = render.reason { fields.append("\"renderReason\":\(jsonString(reason))") }
            }
            if let damaged { fields.append("\"damaged\":\(damaged)") }
            line.emit(fields)
        } else {
            let percent = fraction.map { String(format: "%5.1f%%", $0 * 100) } ?? "  ?  "
            let smart = reencodedShare.map { String(format: " %.0f%% re-encoded", $0 * 100) } ?? ""
            line.drawBar(fraction: fraction ?? 0, String(format: "%@ %6.1f fps %5.2fx%@ ", percent, fps, speed, smart) + ProgressLine.eta(eta),
                         final: final)
        }
    }
}
