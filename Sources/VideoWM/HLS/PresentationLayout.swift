import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the files of one HLS presentation go and what they are called.
///
/// - The playlist is the output path given (`out/alice.m3u8`), written last.
/// - The presentation's own files lie beside it: `<prefix>-<hash>.m4s` segments and a
///   `<prefix>-init-<hash>.mp4` initialization segment, `<prefix>` being the playlist's name
///   without its extension, reduced to characters a URL carries unescaped.
/// - Shared files (a batch's segments without a visible mark) lie in the shared folder as
///   `<hash>.m4s` and `init-<hash>.mp4`, referenced by every row's playlist.
///
/// `<hash>` is 16 hex digits of the file's SHA-256, so a name always means the same bytes: a
/// re-run, another row or another shard that makes the same segment finds it already there.
/// Playlists refer to files by relative URIs made only of unreserved characters, so any static
/// file server, any player and FFmpeg (which does not decode percent escapes in file URIs) read
/// them alike.
struct PresentationLayout: Sendable, Equatable {
    /// The playlist's path, as given.
    let playlist: String
    /// The folder of the playlist and of the presentation's own files.
    let folder: String
    /// The start of every own file's name.
    let prefix: String
    /// The shared folder and the URI prefix that reaches it from `folder` ("shared-segments/",
    /// "../shared-segments/"), for a batch.
    let shared: (folder: String, uriPrefix: String)?

    static func == (a: PresentationLayout, b: PresentationLayout) -> Bool {
        a.playlist == b.playlist && a.folder == b.folder && a.prefix == b.prefix
            && a.shared?.folder == b.shared?.folder && a.shared?.uriPrefix == b.shared?.uriPrefix
    }

    /// Why a presentation cannot be laid out.
    enum Problem: Error, Equatable, Sendable {
        /// The path from the playlist's folder to the shared folder holds characters a URI would
        /// have to escape.
        case sharedFolderNeedsEscaping(relativePath: String)
        case folderMissing(String)
    }

    /// The layout of an output being written (a presentation's or a ladder's playlist), its
    /// problems said as the user's errors: a missing folder, or a way to the shared folder a URL
    /// would have to escape (`--shared-segments`).
    static func forOutput(playlist: String, sharedFolder: String?) throws -> PresentationLayout {
        do {
            return try PresentationLayout(playlist: playlist, sharedFolder: sharedFolder)
        } catch .folderMissing(let folder) {
            throw OutputError(file: folder, stage: .creating, detail: "the folder does not exist")
        } catch .sharedFolderNeedsEscaping(let relative) {
            throw RequestError(subject: "--shared-segments", problem: "the way from \(playlist) to the shared folder (\(relative)) has characters a URL must escape, which FFmpeg and some players do not undo; use a folder named with letters, digits, '.', '_' and '-'")
        }
    }

    /// - Parameters:
    ///   - playlist: the output path.
    ///   - sharedFolder: an existing folder for shared files, or nil (a single transcode).
    init(playlist: String, sharedFolder: String?) throws(Problem) {
        self.playlist = playlist
        let directory = (playlist as NSString).deletingLastPathComponent
        folder = directory.isEmpty ? "." : directory
        let stem = ((playlist as NSString).lastPathComponent as NSString).deletingPathExtension
        prefix = Self.safePrefix(stem)
        if let sharedFolder {
            guard let from = Self.realPath(folder) else { throw .folderMissing(folder) }
            guard let to = Self.realPath(sharedFolder) else { throw .folderMissing(sharedFolder) }
            let relative = Self.relativePath(from: from, to: to)
            guard relative.unicodeScalars.allSatisfy({ Self.isUnreserved($0) || $0 == "/" }) else {
                throw .sharedFolderNeedsEscaping(relativePath: relative)
            }
            shared = (sharedFolder, relative)
        } else {
            shared = nil
        }
    }

    func ownSegmentName(hash: String) -> String { "\(prefix)-\(hash).m4s" }
    func ownInitializationName(hash: String) -> String { "\(prefix)-init-\(hash).mp4" }
    static func sharedSegmentName(hash: String) -> String { "\(hash).m4s" }
    static func sharedInitializationName(hash: String) -> String { "init-\(hash).mp4" }

    /// Whether `name` (in `folder`) is one of this presentation's own files: what replacing the
    /// presentation or finishing an interrupted one may remove when its playlist no longer lists it.
    func isOwnFile(_ name: String) -> Bool {
        for (start, end) in [(prefix + "-", ".m4s"), (prefix + "-init-", ".mp4")]
        where name.hasPrefix(start) && name.hasSuffix(end) {
            let hash = name.dropFirst(start.count).dropLast(end.count)
            if ContentName.isName(hash) { return true }
        }
        return false
    }

    /// The URI a playlist uses for a file of this presentation.
    func uri(ownFile name: String) -> String { name }
    func uri(sharedFile name: String) -> String {
        guard let shared else { preconditionFailure("a presentation without a shared folder has no shared files") }
        return shared.uriPrefix + name
    }

    /// The playlist's name without extension, kept when it is made of unreserved characters and
    /// does not start with a dot; otherwise every other character becomes "_" and 8 hex digits
    /// of the name's SHA-256 are added, so two names that reduce alike still differ.
    static func safePrefix(_ stem: String) -> String {
        let limit = 80
        var reduced = String(String.UnicodeScalarView(stem.unicodeScalars.map { isUnreserved($0) ? $0 : "_" }))
        if reduced.hasPrefix(".") { reduced = "_" + reduced.dropFirst() }
        if reduced == stem && !stem.isEmpty && stem.utf8.count <= limit { return stem }
        let digest = ContentDigest.sha256(Array(stem.utf8))
        return String(reduced.prefix(limit)) + "-" + ContentName.hex(digest.prefix(4))
    }

    /// RFC 3986's unreserved characters: letters, digits, "-", ".", "_", "~".
    static func isUnreserved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", ".", "_", "~": true
        default: false
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// "../shared/" from "/a/b/c" to "/a/b/shared"; "" when they are the same folder.
    static func relativePath(from: String, to: String) -> String {
        let a = from.split(separator: "/"), b = to.split(separator: "/")
        var common = 0
        while common < a.count && common < b.count && a[common] == b[common] { common += 1 }
        let up = Array(repeating: "..", count: a.count - common)
        let parts = up + b[common...].map(String.init)
        return parts.isEmpty ? "" : parts.joined(separator: "/") + "/"
    }
}
