import Foundation

/// What a still's trace shows a developer while it works, off unless asked for: each stage's
/// findings and the seconds since the first note on standard error (`VIDEOWM_STILL_DEBUG` set to
/// anything), and the pictures it compares and reads, as greyscale PGM files, in a folder
/// (`VIDEOWM_STILL_DEBUG_DIR`). docs/design/testing.md says how to use them on a still that
/// names the wrong row or nobody. Neither changes what the trace decides or prints on stdout.
public enum StillTraceDiagnostics {
    private static let environment = ProcessInfo.processInfo.environment
    /// Notes are written.
    public static let isOn = environment["VIDEOWM_STILL_DEBUG"] != nil
    /// Where pictures are written, if anywhere.
    public static let folder = environment["VIDEOWM_STILL_DEBUG_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    private static let clock = Date()

    /// One line on standard error: the seconds since the trace began, then `message`.
    public static func note(_ message: @autoclosure () -> String) {
        guard isOn else { return }
        let line = String(format: "[%.2f s] ", Date().timeIntervalSince(clock)) + message() + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// `values` (row by row, `width` wide) times `gain`, clamped to 0…255, as `name`.pgm in the folder.
    public static func save(_ name: String, values: [Float], width: Int, height: Int, gain: Float = 1) {
        guard let folder else { return }
        let bytes = Array("P5 \(width) \(height) 255\n".utf8) + values.map { UInt8(min(max($0 * gain, 0), 255)) }
        FileManager.default.createFile(atPath: "\(folder)/\(name).pgm", contents: Data(bytes))
    }
}
