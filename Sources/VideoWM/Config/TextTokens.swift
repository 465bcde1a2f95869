import Animation
import Foundation
import Glibc
import Overlay

/// The placeholders videowm fills in itself. A `--var` or CSV column of the same name replaces
/// one (`--var date=2024-05-01` keeps a re-run identical).
///
/// - `{timecode}`: HH:MM:SS:FF of the frame, at the video's frame rate, drop-frame (`;`) at
///   29.97 and 59.94 fps, from the input's start timecode when it has one; on a still image,
///   the `--at` time to the nearest second, frames 00.
/// - `{pts}`: the frame's presentation time in seconds, three decimals ("12.345").
/// - `{date}`, `{time}`: when the job started, local time ("2024-05-01", "14:03:59"); the same
///   for every frame and every row of a batch.
public enum TextTokens {
    /// The placeholders whose value changes with every frame.
    public static let perFrame: Set<String> = ["timecode", "pts"]
    /// The placeholders fixed when the job starts.
    public static let perJob: Set<String> = ["date", "time"]
    /// Every placeholder videowm fills in.
    public static var all: Set<String> { perFrame.union(perJob) }

    /// When this run started: fixed once, so every layer, frame and batch row shows the same.
    public static let jobStart = Date()

    /// `{date}` and `{time}` for a job started at `start`.
    ///
    /// Broken down by the C library (`localtime_r`: the same `TZ` and /etc/localtime as
    /// Foundation), not by `Calendar.current`: every job binds its config, marks or not, and
    /// Foundation's calendar maps ICU's calendar and time-zone data into the process for it,
    /// about 5 MB of peak resident memory for two strings.
    public static func jobValues(start: Date = jobStart) -> [String: String] {
        var seconds = time_t(start.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else {
            // Only a time beyond the C library's years fails; `jobStart` is now.
            return ["date": "0000-00-00", "time": "00:00:00"]
        }
        func padded(_ n: Int32, _ digits: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return ["date": "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))",
                "time": "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))"]
    }

    /// `{timecode}` and `{pts}` of one frame.
    public static func frameValues(_ frame: TimedText.Frame) -> [String: String] {
        // A still has no frame rate: whole seconds, frames 00.
        let timecode = frame.timecode ?? Self.stillTimecode
        return ["timecode": timecode.string(at: frame.time), "pts": frame.time.secondsText(decimals: 3)]
    }

    private static let stillTimecode = try! Timecode(rateNumerator: 1, rateDenominator: 1)
}
