import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What happened to one row of a batch.
public struct BatchRowResult: Sendable {
    /// How a row ended: its raw value is what the report line says.
    public enum Status: String, Sendable {
        /// The output was written.
        case done
        /// The output already existed (a re-run); nothing was written.
        case skipped
        /// The output could not be written; the other rows went on.
        case failed
    }

    /// The row this result is for.
    public let row: BatchRow
    /// Done, skipped or failed.
    public let status: Status
    /// Wall time from the start of the row's group to its end (0 when skipped).
    public let seconds: Double
    /// Why a failed row failed; nil otherwise.
    public let error: (any Error)?
    /// How a done row's video was made (nil: copied, skipped or failed).
    public let render: RenderOutcome?
    /// Bytes the row added to the disk (nil: skipped, failed, or not counted): a media file's
    /// size; for an HLS presentation the files written for it — its own, and the shared files
    /// it was the first to need (so the rows' bytes add up to what the batch wrote).
    public let bytes: Int?

    /// A row's result; `render` and `bytes` are known only for a row that was written.
    public init(row: BatchRow, status: Status, seconds: Double, error: (any Error)?, render: RenderOutcome? = nil, bytes: Int? = nil) {
        self.row = row
        self.status = status
        self.seconds = seconds
        self.error = error
        self.render = render
        self.bytes = bytes
    }

    /// The report line: `{"row":…,"output":…,"status":…,"seconds":…,"reencoded":…,"bytes":…,"error":…}`, where
    /// `reencoded` is the share of the video re-encoded (0…1 with smart rendering, 1 for a full
    /// render, 0 when the video was copied; null when nothing was written) and `bytes` what the
    /// row added to the disk (null when nothing was written).
    public var jsonLine: String {
        let error = self.error.map { JSONText.string("\($0)") } ?? "null"
        let reencoded = status != .done ? "null" : String(format: "%.3f", render?.reencodedShare ?? 0)
        let bytes = status != .done ? "null" : self.bytes.map(String.init) ?? "null"
        return "{\"row\":\(row.number),\"output\":\(JSONText.string(row.output)),\"status\":\"\(status.rawValue)\","
            + "\"seconds\":\(String(format: "%.3f", seconds)),\"reencoded\":\(reencoded),\"bytes\":\(bytes),\"error\":\(error)}"
    }
}

/// `--report FILE`: one JSON line per row, appended as each row ends, so a report survives
/// an interrupt and several shards (or a re-run) can add to one file. Each line goes out in
/// a single `write` on an `O_APPEND` descriptor, which keeps lines from different processes
/// whole on a local file system.
public final class BatchReport {
    /// The report file.
    public let path: String
    private let descriptor: Int32

    /// Opens `path` for appending, creating it when missing; an `OutputError` when it cannot be.
    public init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OutputError(file: path, stage: .creating, detail: "cannot open the report for writing", code: ErrorCode(errno: errno))
        }
    }

    deinit { close(descriptor) }

    /// Appends `result` as one JSON line, in one write; an `OutputError` when it cannot be written.
    public func record(_ result: BatchRowResult) throws {
        let bytes = Array((result.jsonLine + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw OutputError(file: path, stage: .writing, operation: "writing the report", detail: written < 0 ? nil : "short write",
                              code: written < 0 ? ErrorCode(errno: errno) : nil)
        }
    }
}

/// JSON text for the few values reports and progress lines write.
public enum JSONText {
    /// `s` as a JSON string literal: quoted, with quotes, backslashes and control characters escaped.
    public static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
