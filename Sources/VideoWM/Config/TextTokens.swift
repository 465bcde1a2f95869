import Animation
import Foundation
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
    public static let perFrame: Set<String> = ["timecode", "pts"]
    public static let perJob: Set<String> = ["date", "time"]
    public static var all: Set<String> { perFrame.union(perJob) }

    /// When this run started: fixed once, so every layer, frame and batch row shows the same.
    public static let jobStart = Date()

    /// `{date}` and `{time}` for a job started at `start`.
    public static func jobValues(start: Date = jobStart) -> [String: String] {
        let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: start)
        func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
        return ["date": "\(String(format: "%04d", parts.year ?? 0))-\(two(parts.month))-\(two(parts.day))",
                "time": "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"]
    }

    /// `{timecode}` and `{pts}` of one frame.
    public static func frameValues(_ frame: TimedText.Frame) -> [String: String] {
        // A still has no frame rate: whole seconds, frames 00.
        let timecode = frame.timecode ?? Self.stillTimecode
        return ["timecode": timecode.string(at: frame.time), "pts": frame.time.secondsText(decimals: 3)]
    }

    private static let stillTimecode = try! Timecode(rateNumerator: 1, rateDenominator: 1)
}
