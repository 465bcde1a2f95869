import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `probe` of an HLS media playlist (fMP4): the presentation's duration (the sum of its
/// `EXTINF`s), its bit rate (its files' sizes over that), and its streams, read from the
/// initialization segment followed by the first media segment, demuxed in memory as one MP4.
/// (`MediaDescription.probe(path:)`, in Renditions, sends a multivariant playlist elsewhere.)
///
/// The input rules hold as for any file: only the files the playlist names are read, by
/// relative path, and only inside the playlist's folder or the folder above it (where a batch
/// keeps the segments its rows share) — no URL, no absolute path, nothing a symlink leads out
/// of. Every listed file must be there: a playlist naming a missing segment is damaged (65).
enum PlaylistProbe {
    static let maximumPlaylistBytes = 16 << 20
    /// Enough of the first segment for the demuxer to see every stream's first packets.
    static let maximumSegmentBytes = 32 << 20

    static func describe(playlist path: String) throws -> MediaDescription {
        let text = try readPlaylist(path)
        let playlist: MediaPlaylist
        do {
            playlist = try MediaPlaylist(parsing: text)
        } catch {
            throw MediaError(file: path, detail: error.description)
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard let folder = PresentationLayout.realPath(directory.isEmpty ? "." : directory) else { throw InputError.missing(path) }
        let root = (folder as NSString).deletingLastPathComponent
        let uris = [playlist.initializationURI] + playlist.segments.map(\.uri)
        var totalBytes = 0
        var files: [String: String] = [:]
        for uri in Set(uris) {
            let file = try resolve(uri, in: folder, root: root, playlist: path)
            files[uri] = file.path
            totalBytes += file.size
        }
        // Every URI was resolved above (a missing one threw).
        guard let initialization = files[playlist.initializationURI], let first = files[playlist.segments[0].uri] else {
            throw MediaError(file: path, detail: "lists a file that could not be read")
        }
        var description = try streams(initialization: initialization, firstSegment: first, reportedAs: path)
        let seconds = playlist.totalDuration.seconds
        description.format = "hls"
        description.durationSeconds = seconds
        description.bitRate = seconds > 0 ? Int((Double(totalBytes) * 8 / seconds).rounded()) : nil
        for index in description.streams.indices { description.streams[index].durationSeconds = nil }
        return description
    }

    /// The streams of an fMP4 presentation, read from its initialization segment followed by its
    /// first media segment (enough of it for the demuxer to see every stream's first packets),
    /// demuxed in memory as one MP4 and reported as `name`.
    static func streams(initialization: String, firstSegment: String, reportedAs name: String) throws -> MediaDescription {
        var bytes = try read(initialization, limit: maximumPlaylistBytes, playlist: name)
        bytes += try read(firstSegment, limit: maximumSegmentBytes, playlist: name)
        let input = try InputFile(memory: try MemoryIO(bytes: bytes), name: name, formatName: "mp4")
        return MediaDescription.describe(input, file: name)
    }

    /// The text of the playlist (or, `kind` naming it, another manifest) at `path`: a regular,
    /// readable UTF-8 file of at most 16 MB.
    static func readPlaylist(_ path: String, kind: String = "an HLS playlist") throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw errno == ENOENT ? InputError.missing(path) : InputError(file: path, problem: .cannotOpen, code: ErrorCode(errno: errno))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw InputError(file: path, problem: .notARegularFile) }
        guard Int(info.st_size) <= maximumPlaylistBytes else { throw MediaError(file: path, detail: "is over 16 MB, too large for \(kind)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError(file: path, problem: .permissionDenied) }
        guard let text = String(data: data, encoding: .utf8) else { throw MediaError(file: path, detail: "is not UTF-8 text, so not \(kind)") }
        return text
    }

    /// The real path and size of the file `uri` names, if the rules allow reading it.
    static func resolve(_ uri: String, in folder: String, root: String, playlist: String) throws -> (path: String, size: Int) {
        let schemeEnd = uri.firstIndex(of: ":").map { uri[..<$0].allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } } ?? false
        guard !uri.hasPrefix("/"), !schemeEnd, !uri.contains("?"), !uri.contains("#") else {
            throw MediaError(file: playlist, detail: "names \(uri), which is not a relative path; only files beside the playlist are read")
        }
        guard let real = PresentationLayout.realPath((folder as NSString).appendingPathComponent(uri)) else {
            throw MediaError(file: playlist, detail: "lists \(uri), which is missing")
        }
        guard real.hasPrefix(root == "/" ? "/" : root + "/") else {
            throw MediaError(file: playlist, detail: "lists \(uri), which is outside its folder and the folder above it; it is not read")
        }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw MediaError(file: playlist, detail: "lists \(uri), which is not a file")
        }
        return (real, Int(info.st_size))
    }

    private static func read(_ path: String, limit: Int, playlist: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw InputError(file: path, problem: .permissionDenied) }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.read(upToCount: limit) ?? Data())
        } catch {
            throw InputError(file: path, problem: .cannotOpen)
        }
    }
}
