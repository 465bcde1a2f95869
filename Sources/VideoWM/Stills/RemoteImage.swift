import Foundation

/// An http(s) image named in a config (or given to `stamp`), fetched with FFmpeg's own
/// http/https protocols and nothing else, within a total time limit, and decoded like a file.
///
/// A URL that cannot be fetched (refused, unreachable, timed out, 404 or any HTTP error)
/// is missing input (`InputError`) naming the URL; a fetched body that is not a usable image
/// is unreadable input (`MediaError`). Callers cache the decoded image (`ImageCache`), so a run
/// fetches each URL once.
enum RemoteImage {
    /// Connecting and every read must make progress within this many seconds.
    static let timeoutSeconds = 20
    /// The whole fetch must be over within this many seconds, unless `VIDEOWM_FETCH_TIMEOUT` says otherwise.
    static let defaultTotalSeconds = 60
    static let totalSecondsRange = 1...3600

    /// The total deadline of a fetch: `VIDEOWM_FETCH_TIMEOUT` (whole seconds, range-checked), else the default.
    static func totalSeconds(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        guard let text = environment["VIDEOWM_FETCH_TIMEOUT"], !text.isEmpty else { return defaultTotalSeconds }
        guard let value = Int(text), totalSecondsRange.contains(value) else {
            throw RequestError(subject: "VIDEOWM_FETCH_TIMEOUT='\(text)'",
                               problem: "must be a whole number of seconds from \(totalSecondsRange.lowerBound) to \(totalSecondsRange.upperBound)")
        }
        return value
    }
    /// A logo larger than this is refused while downloading.
    static let maximumBytes = 64 << 20

    static func isURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Downloads `url` and decodes it through `StillImageReader`, whose messages then name the URL.
    static func read(url: String) throws -> StillImageReader.Decoded {
        try withDownloadedFile(url) { try StillImageReader.read(path: $0, name: url) }
    }

    /// Downloads `url` into a temporary file, runs `body` on its path, and removes the file.
    static func withDownloadedFile<R>(_ url: String, _ body: (String) throws -> R) throws -> R {
        let bytes = try download(url)
        guard !bytes.isEmpty else { throw MediaError(file: url, detail: "the server sent an empty body, not an image") }
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("videowm-image-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw OutputError(file: url, stage: .writing, detail: "cannot keep the downloaded image in \(FileManager.default.temporaryDirectory.path)")
        }
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        return try body(temporary)
    }

    static func download(_ url: String) throws -> [UInt8] {
        let connection = try NetworkInput(url: url, timeoutSeconds: timeoutSeconds, totalSeconds: totalSeconds())
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = try connection.read(into: &chunk)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maximumBytes else {
                throw MediaError(file: url, detail: "is larger than \(maximumBytes >> 20) MB; a logo should be far smaller")
            }
        }
        return bytes
    }
}
