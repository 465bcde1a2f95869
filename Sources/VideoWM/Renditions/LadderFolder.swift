import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where one student's ladder is written on disk, with `PresentationFolder`'s guarantees over
/// every file of every rendition (docs/design/hls.md §15):
/// - the multivariant playlist (the output path) is claimed first (an existing one without -y,
///   a missing folder, the input itself are refused before anything is written) and written
///   last, through a temporary file renamed into place: the ladder is there whole or not at all;
/// - every other file is content-named and write-once, published complete before anything that
///   lists it: segments and initialization segments, then the media playlists, then the
///   multivariant playlist — so no playlist ever names a missing file, and a re-run or another
///   shard that makes the same file finds it there;
/// - the student's own files (`<prefix>-<rendition>-<hash>.m4s|.m3u8`) lie beside the
///   multivariant playlist; files every student shares lie in the shared folder (`<hash>.m4s`,
///   `init-<hash>.mp4`, `<hash>.vtt`, `audio-en-<hash>.m3u8`), or — a transcode, without one —
///   beside it as own files (`<prefix>-audio-en-<hash>.m4s`);
/// - given up before the multivariant playlist, the own files this run added are removed
///   (shared ones stay: another shard may list them); once it is written, the presentation's own
///   files it no longer lists (a replaced ladder's, or a replaced single-rendition
///   presentation's) are removed.
final class LadderFolder {
    let layout: PresentationLayout
    private let output: AtomicOutput
    private let lock: PartialFileLock
    /// Own files published for this presentation (what its playlists list), by name.
    private var listed = Set<String>()
    private var added: [String] = []
    private var committed = false
    private let warn: WarningHandler
    /// Bytes this presentation added to the disk (own and shared files this run wrote for it).
    private(set) var bytesAdded = 0

    enum FileKind {
        case segment, initialization, playlist, captions

        var fileExtension: String {
            switch self {
            case .segment: "m4s"
            case .initialization: "mp4"
            case .playlist: "m3u8"
            case .captions: "vtt"
            }
        }
    }

    init(multivariant: String, overwrite: Bool, inputs: [String], sharedFolder: String?, warn: @escaping WarningHandler) throws {
        output = try AtomicOutput(target: multivariant, overwrite: overwrite, inputs: inputs)
        lock = PartialFileLock(path: output.temporaryPath)
        layout = try PresentationLayout.forOutput(playlist: multivariant, sharedFolder: sharedFolder)
        self.warn = warn
        removeStaleTemporaryFiles()
    }

    var hasSharedFolder: Bool { layout.shared != nil }

    /// Common Encryption of the CMAF files as they are published (nil: clear).
    var protection: SegmentProtection?

    /// A file every student shares: in the shared folder under a name of its content alone
    /// (prefixed by the rendition for playlists, which are easier to find so), or beside the
    /// playlist as an own file when there is no shared folder. Returns the file's name in its
    /// folder (what a playlist in the same folder lists) and whether this call wrote it.
    func publishShared(_ given: [UInt8], rendition id: String, kind: FileKind) throws -> (name: String, written: Bool) {
        guard let folder = layout.shared?.folder else { return try publishOwn(given, rendition: id, kind: kind) }
        let bytes = try protection?.protect(given, rendition: id, kind: kind) ?? given
        let hash = ContentName.of(bytes)
        let name: String
        switch kind {
        case .segment, .captions: name = "\(hash).\(kind.fileExtension)"
        case .initialization: name = PresentationLayout.sharedInitializationName(hash: hash)
        case .playlist: name = "\(id)-\(hash).m3u8"
        }
        let written = try WriteOnceFile.publish(bytes, named: name, in: folder) == .written
        if written { bytesAdded += bytes.count }
        return (name, written)
    }

    /// A file of this student's alone, beside the multivariant playlist.
    func publishOwn(_ given: [UInt8], rendition id: String, kind: FileKind) throws -> (name: String, written: Bool) {
        let bytes = try protection?.protect(given, rendition: id, kind: kind) ?? given
        let hash = ContentName.of(bytes)
        let name = kind == .initialization ? "\(layout.prefix)-\(id)-init-\(hash).mp4" : "\(layout.prefix)-\(id)-\(hash).\(kind.fileExtension)"
        let written = try WriteOnceFile.publish(bytes, named: name, in: layout.folder) == .written
        if written {
            added.append(name)
            bytesAdded += bytes.count
        }
        listed.insert(name)
        return (name, written)
    }

    /// The URI, from the multivariant playlist's folder, of a shared file named `name`.
    func uri(shared name: String) -> String { layout.shared.map { $0.uriPrefix + name } ?? name }

    /// The URI of an own file.
    func uri(own name: String) -> String { name }

    /// Writes the multivariant playlist into place, then removes this presentation's own files
    /// that it no longer lists.
    func commit(multivariant text: String) throws {
        WriteOnceFile.syncFolder(layout.folder)
        if let shared = layout.shared?.folder { WriteOnceFile.syncFolder(shared) }
        let bytes = Array(text.utf8)
        try output.write(bytes)
        try output.commit()
        committed = true
        bytesAdded += bytes.count
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: layout.folder) else { return }
        for entry in entries where isOwnFile(entry) && !listed.contains(entry) {
            unlink((layout.folder as NSString).appendingPathComponent(entry))
        }
    }

    /// Whether `name` is one of this presentation's own files: `<prefix>-<rendition>-[init-]<hash>.<ext>`,
    /// or a single-rendition presentation's (`PresentationLayout.isOwnFile`) it replaced.
    func isOwnFile(_ name: String) -> Bool {
        if layout.isOwnFile(name) { return true }
        let start = layout.prefix + "-"
        guard name.hasPrefix(start), let dot = name.lastIndex(of: "."), ["m4s", "mp4", "m3u8", "vtt"].contains(name[name.index(after: dot)...]) else {
            return false
        }
        var stem = name[name.index(name.startIndex, offsetBy: start.count)..<dot]
        guard stem.count > ContentName.length + 1, ContentName.isName(stem.suffix(ContentName.length)) else { return false }
        stem = stem.dropLast(ContentName.length)
        guard stem.hasSuffix("-") else { return false }
        stem = stem.dropLast()
        if name.hasSuffix(".mp4") {
            guard stem.hasSuffix("-init") else { return false }
            stem = stem.dropLast("-init".count)
        }
        return LadderRendition.isID(stem)
    }

    private func removeStaleTemporaryFiles() {
        let name = (layout.playlist as NSString).lastPathComponent
        var candidates: [String] = []
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: layout.folder) {
            candidates += entries.filter {
                ($0.hasPrefix("." + layout.prefix + "-") && $0.contains(PartialOutputFiles.marker)) || PartialOutputFiles.isPartial($0, ofTargetNamed: name)
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

    /// Gives the presentation up: the multivariant playlist's temporary file and the own files
    /// this run added are removed (shared files stay).
    func abandon() {
        guard !committed else { return }
        output.discard()
        for name in added { unlink((layout.folder as NSString).appendingPathComponent(name)) }
        added = []
    }

    deinit { abandon() }
}
