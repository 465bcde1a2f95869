import Foundation
import VideoWM

/// What both progress displays draw with (`--progress auto|bar|json|none`): one live bar
/// line on stderr, redrawn at most five times a second, or one JSON object a line on stdout,
/// at most one a second; the final state is always drawn.
final class ProgressLine {
    enum Mode: String, CaseIterable { case auto, bar, json, none }

    /// `.bar`, `.json` or `.none`: `.auto` is a bar on a terminal unless -q, else nothing.
    let mode: Mode
    private let console: Console
    private var lastDraw = Date.distantPast
    /// A bar is on screen without its line ended.
    private var barShown = false
    /// Stdout refused a line: no more are tried.
    private var stdoutRefused = false

    init(mode: Mode, console: Console) {
        self.console = console
        switch mode {
        case .auto: self.mode = console.isTerminal && console.verbosity != .quiet ? .bar : .none
        default: self.mode = mode
        }
    }

    /// Whether to draw now (and if so, the time of this draw is remembered).
    func isDue(final: Bool) -> Bool {
        guard mode == .bar || mode == .json else { return false }
        let now = Date()
        guard final || now.timeIntervalSince(lastDraw) >= (mode == .json ? 1.0 : 0.2) else { return false }
        lastDraw = now
        return true
    }

    /// Redraws the bar: `[#####-----] ` and `text`; the final one ends its line.
    func drawBar(fraction: Double, _ text: String, final: Bool) {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        console.write("\r[\(bar)] \(text)" + (final ? "\n" : ""))
        barShown = !final
    }

    /// Ends a bar's line so a message printed next starts on its own line.
    func clearBar() {
        if barShown { console.write("\r\u{1B}[2K") }
        barShown = false
    }

    /// One JSON object on stdout from `"key":value` fields already encoded.
    func emit(_ fields: [String]) {
        emitLine("{" + fields.joined(separator: ",") + "}")
    }

    /// Writes one line to stdout. Progress is commentary: should stdout be closed, full or a
    /// pipe whose reader has gone (`| head -1`), the line is dropped, and so are the rest.
    func emitLine(_ line: String) {
        guard !stdoutRefused else { return }
        do {
            try StandardStream.output.write(line + "\n")
        } catch {
            stdoutRefused = true
        }
    }

    /// A number in JSON with three decimals.
    static func number(_ v: Double) -> String { String(format: "%.3f", v) }

    /// "ETA 01:05", or "ETA --:--" when unknown.
    static func eta(_ seconds: Double?) -> String {
        seconds.map { String(format: "ETA %02d:%02d", Int($0) / 60, Int($0) % 60) } ?? "ETA --:--"
    }
}

/// A JSON string literal.
func jsonString(_ s: String) -> String { JSONText.string(s) }
