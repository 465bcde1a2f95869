import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where one HLS presentation is written on disk: its files published as they are made, under
/// names taken from their content, its playlist last (`PresentationStorage` for transcode and
/// batch; a server keeps segments its own way).
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
public final class PresentationFolder {
    let layout: PresentationLayout
    private let playlistOutput: AtomicOutput
    private let playlistLock: PartialFileLock
    /// The URIs of the files published for this presentation (what its playlist lists).
    private var published = Set<String>()
    private var addedOwnFiles: [String] = []
    private var committed = false
    private let warn: WarningHandler
    /// Bytes this presentation wrote to disk (its files, and shared files it was the first to write).
    private(set) var bytesAdded = 0

    /// - Parameters:
    ///   - playlist: the playlist's path; its folder holds the presentation's own files.
    ///   - sharedFolder: where files every row shares go (a batch); nil keeps every file beside the playlist.
    ///   - overwrite: replace an existing presentation (`-y`); without it an existing playlist is an `OutputError`.
    ///   - inputs: files the playlist must not replace (the input).
    ///   - warn: hears the partial files of an interrupted run it removes.
    public init(playlist: String, overwrite: Bool, inputs: [String], sharedFolder: String?, warn: @escaping WarningHandler) throws {
        playlistOutput = try AtomicOutput(target: playlist, overwrite: overwrite, inputs: inputs)
        playlistLock = PartialFileLock(path: playlistOutput.temporaryPath)
        layout = try PresentationLayout.forOutput(playlist: playlist, sharedFolder: sharedFolder)
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
            if try WriteOnceFile.publish(bytes, named: fileName, in: folder) == .written { bytesAdded += bytes.count }
            return layout.uri(sharedFile: fileName)
        }
        let fileName = name(hash)
        if try WriteOnceFile.publish(bytes, named: fileName, in: layout.folder) == .written {
            addedOwnFiles.append(fileName)
            bytesAdded += bytes.count
        }
        return layout.uri(ownFile: fileName)
    }

    /// Publishes the initialization segment; returns the URI the playlist names it by.
    func publishInitialization(_ bytes: [UInt8], shared: Bool) throws -> String {
        let uri = try place(bytes, shared: shared, name: layout.ownInitializationName, sharedName: PresentationLayout.sharedInitializationName)
        published.insert(uri)
        return uri
    }

    /// Publishes a media segment (`shared`: no mark of the row on it); returns its URI.
    func publishSegment(_ bytes: [UInt8], shared: Bool) throws -> String {
        let uri = try place(bytes, shared: shared, name: layout.ownSegmentName, sharedName: PresentationLayout.sharedSegmentName)
        published.insert(uri)
        return uri
    }

    /// Writes the playlist into place, then removes this presentation's own files it does not list.
    public func commit(playlist: String) throws {
        precondition(!published.isEmpty, "a presentation needs its initialization and a segment")
        WriteOnceFile.syncFolder(layout.folder)
        if let shared = layout.shared?.folder { WriteOnceFile.syncFolder(shared) }
        try playlistOutput.write(Array(playlist.utf8))
        try playlistOutput.commit()
        bytesAdded += playlist.utf8.count
        committed = true
        removeUnlistedOwnFiles()
    }

    /// Removes this presentation's own files (by their names) that its playlist does not list.
    private func removeUnlistedOwnFiles() {
        let listed = published
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
    public func abandon() {
        guard !committed else { return }
        playlistOutput.discard()
        for name in addedOwnFiles { unlink((layout.folder as NSString).appendingPathComponent(name)) }
        addedOwnFiles = []
    }

    deinit { abandon() }
}
