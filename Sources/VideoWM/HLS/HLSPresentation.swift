import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HLS presentation being written: its files published as they are made, its playlist last.
///
/// The guarantees, in the order things happen:
/// - The playlist is claimed first (`AtomicOutput`): an existing one without -y, a missing or
///   read-only folder, the input itself are refused before anything is written.
/// - Temporary files an earlier run left (a killed process cannot remove its own) are swept:
///   those of this presentation beside the playlist, and any in the shared folder that no live
///   process holds.
/// - Segments and the initialization segment are published under content names
///   (`WriteOnceFile`), each complete on disk before the next; a new run never overwrites a file
///   an existing playlist lists, it adds files (or finds them already there).
/// - The playlist is written last, through a temporary file renamed into place: a player sees
///   the old presentation or the new one, whole. Only then are this presentation's own files
///   that the new playlist does not list removed (the replaced presentation's, or those of an
///   interrupted run); shared files are never removed, other rows list them.
/// - Given up before the playlist (an error, an interrupt), the files this run added beside the
///   playlist are removed again; shared files stay, since another shard may already list them.
final class HLSPresentation {
    let layout: PresentationLayout
    private let playlistOutput: AtomicOutput
    private let playlistLock: PartialFileLock
    private var initializationURI: String?
    private var segments: [MediaPlaylist.Segment] = []
    private var independent = true
    private var addedOwnFiles: [String] = []
    private var committed = false
    private let warn: WarningHandler

    /// - Parameter sharedFolder: where segments without re-encoded video go (a batch); nil
    ///   keeps every file beside the playlist.
    init(playlist: String, overwrite: Bool, inputs: [String], sharedFolder: String?, warn: @escaping WarningHandler) throws {
        playlistOutput = try AtomicOutput(target: playlist, overwrite: overwrite, inputs: inputs)
        playlistLock = PartialFileLock(path: playlistOutput.temporaryPath)
        do {
            layout = try PresentationLayout(playlist: playlist, sharedFolder: sharedFolder)
        } catch .folderMissing(let folder) {
            throw OutputError(file: folder, stage: .creating, detail: "the folder does not exist")
        } catch .sharedFolderNeedsEscaping(let relative) {
            throw RequestError(subject: "--shared-segments", problem: "the way from \(playlist) to the shared folder (\(relative)) has characters a URL must escape, which FFmpeg and some players do not undo; use a folder named with letters, digits, '.', '_' and '-'")
        }
        self.warn = warn
        removeStaleTemporaryFiles()
    }

    /// The playlist's temporary file, until `commit`.
    var temporaryPath: String { playlistOutput.temporaryPath }

    /// Where a file goes: shared (content-named, in the shared folder) when the presentation has
    /// a shared folder and the bytes hold no re-encoded video.
    private func place(_ bytes: [UInt8], shared: Bool, name: (String) -> String, sharedName: (String) -> String) throws -> String {
        let hash = ContentName.of(bytes)
        if shared, let folder = layout.shared?.folder {
            let fileName = sharedName(hash)
            _ = try WriteOnceFile.publish(bytes, named: fileName, in: folder)
            return layout.uri(sharedFile: fileName)
        }
        let fileName = name(hash)
        if try WriteOnceFile.publish(bytes, named: fileName, in: layout.folder) == .written {
            addedOwnFiles.append(fileName)
        }
        return layout.uri(ownFile: fileName)
    }

    func publishInitialization(_ bytes: [UInt8], shared: Bool) throws {
        precondition(initializationURI == nil, "one initialization segment per presentation")
        initializationURI = try place(bytes, shared: shared, name: layout.ownInitializationName,
                                      sharedName: PresentationLayout.sharedInitializationName)
    }

    func publish(_ segment: HLSSegmenter.Segment) throws {
        let uri = try place(segment.bytes, shared: !segment.holdsReencodedVideo, name: layout.ownSegmentName,
                            sharedName: PresentationLayout.sharedSegmentName)
        segments.append(MediaPlaylist.Segment(uri: uri, duration: segment.duration))
        independent = independent && segment.startsIndependently
    }

    /// The playlist that `commit` writes.
    var playlist: MediaPlaylist {
        MediaPlaylist(initializationURI: initializationURI ?? "", segments: segments, independentSegments: independent)
    }

    /// Writes the playlist into place, then removes this presentation's own files it does not list.
    func commit() throws {
        precondition(initializationURI != nil && !segments.isEmpty, "a presentation needs its initialization and a segment")
        WriteOnceFile.syncFolder(layout.folder)
        if let shared = layout.shared?.folder { WriteOnceFile.syncFolder(shared) }
        let text = Array(playlist.text.utf8)
        let fd = open(playlistOutput.temporaryPath, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw OutputError(file: layout.playlist, stage: .writing, operation: "writing the playlist", code: ErrorCode(errno: errno)) }
        let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let writeError = errno
        close(fd)
        guard written == text.count else {
            throw OutputError(file: layout.playlist, stage: .writing, operation: "writing the playlist", code: ErrorCode(errno: written < 0 ? writeError : ENOSPC))
        }
        try playlistOutput.commit()
        committed = true
        removeUnlistedOwnFiles()
    }

    /// Removes this presentation's own files (by their names) that its playlist does not list.
    private func removeUnlistedOwnFiles() {
        let listed = Set(([initializationURI ?? ""] + segments.map(\.uri)))
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: layout.folder) else { return }
        for entry in entries where layout.isOwnFile(entry) && !listed.contains(layout.uri(ownFile: entry)) {
            unlink((layout.folder as NSString).appendingPathComponent(entry))
        }
    }

    private func removeStaleTemporaryFiles() {
        let playlistName = (layout.playlist as NSString).lastPathComponent
        var candidates: [String] = []
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: layout.folder) {
            candidates += entries.filter {
                ($0.hasPrefix("." + layout.prefix + "-") && $0.contains(PartialOutputFiles.marker))
                    || PartialOutputFiles.isPartial($0, ofTargetNamed: playlistName)
            }.map { (layout.folder as NSString).appendingPathComponent($0) }
        }
        if let shared = layout.shared?.folder, let entries = try? FileManager.default.contentsOfDirectory(atPath: shared) {
            candidates += entries.filter { $0.hasPrefix(".") && $0.contains(PartialOutputFiles.marker) }
                .map { (shared as NSString).appendingPathComponent($0) }
        }
        for path in candidates.sorted() where PartialOutputFiles.removeIfUnlocked(path) {
            warn("\(path): removed, a partial file left by an interrupted run")
        }
    }

    /// Gives the presentation up: its playlist's temporary file and the files this run added
    /// beside it are removed (shared files stay).
    func abandon() {
        guard !committed else { return }
        playlistOutput.discard()
        for name in addedOwnFiles { unlink((layout.folder as NSString).appendingPathComponent(name)) }
        addedOwnFiles = []
    }

    deinit { abandon() }
}
