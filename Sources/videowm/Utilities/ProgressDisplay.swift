import Foundation
import VideoWM

/// `--progress auto|bar|json|none`: a live line on a terminal, or one JSON object a line.
final class ProgressDisplay {
    enum Mode: String { case auto, bar, json, none }
    let mode: Mode
    private let started = Date()
    private var lastDraw = Date.distantPast
    private let console: Console
    private let label: String

    init(mode: Mode, console: Console, label: String) {
        self.console = console
        self.label = label
        switch mode {
        case .auto: self.mode = console.isTerminal && console.verbosity != .quiet ? .bar : .none
        default: self.mode = mode
        }
    }

    private var last: (done: Double, total: Double?, frames: Int) = (0, nil, 0)
    private var damaged = 0

    /// Draws the last state as complete (and, for JSON, reports concealed damage).
    func finish(damaged: Int = 0) {
        self.damaged = damaged
        update(done: last.total ?? last.done, total: last.total, frames: last.frames, final: true)
    }

    func update(done: Double, total: Double?, frames: Int, final: Bool = false) {
        last = (done, total, frames)
        guard mode != .none else { return }
        let now = Date()
        guard final || now.timeIntervalSince(lastDraw) >= (mode == .json ? 1.0 : 0.2) else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(started), 1e-6)
        let fps = Double(frames) / elapsed
        let speed = done / elapsed
        let fraction = total.map { $0 > 0 ? min(1, done / $0) : 0 }
        let eta = fraction.flatMap { f in f > 0 && speed > 0 ? (total! - done) / speed : nil }
        switch mode {
        case .json:
            var fields = ["\"event\":\"progress\"", "\"file\":\(jsonString(label))", "\"seconds\":\(round3(done))", "\"frames\":\(frames)",
                          "\"fps\":\(round3(fps))", "\"speed\":\(round3(speed))"]
            if let total { fields.append("\"duration\":\(round3(total))") }
            if let fraction { fields.append("\"percent\":\(round3(fraction * 100))") }
            if let eta { fields.append("\"eta\":\(round3(eta))") }
            if final {
                fields[0] = "\"event\":\"done\""
                fields.append("\"damaged\":\(damaged)")
            }
            FileHandle.standardOutput.write(Data(("{" + fields.joined(separator: ",") + "}\n").utf8))
        case .bar:
            let width = 30
            let filled = Int((fraction ?? 0) * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let percent = fraction.map { String(format: "%5.1f%%", $0 * 100) } ?? "  ?  "
            let etaText = eta.map { String(format: "ETA %02d:%02d", Int($0) / 60, Int($0) % 60) } ?? "ETA --:--"
            console.write(String(format: "\r[%@] %@ %6.1f fps %5.2fx %@", bar, percent, fps, speed, etaText) + (final ? "\n" : ""))
        default:
            break
        }
    }

    private func round3(_ v: Double) -> String { String(format: "%.3f", v) }
}

/// A JSON string literal.
func jsonString(_ s: String) -> String { JSONText.string(s) }
