import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The hidden `.NAME.RANDOM.videowm-partial.EXT` files `AtomicOutput` writes beside each
/// target: a process killed outright (SIGKILL, a node lost, a crash) leaves them behind, and
/// the next run for the same target must clear them without touching one that another live
/// process is writing.
///
/// `AtomicOutput` holds an advisory `flock` on each partial file while it writes; the kernel
/// drops it when the process dies, so a partial file nobody can lock is live and one we can
/// lock is stale.
enum PartialOutputFiles {
    static let marker = ".videowm-partial"
    /// The longest file name Linux file systems take, in bytes.
    static let maximumNameBytes = 255
    /// The random token: a UInt64 in base 36 is at most 13 characters.
    static let maximumTokenBytes = 13

    /// A fresh random token for a temporary name.
    static func randomToken() -> String { String(UInt64.random(in: 0...UInt64.max), radix: 36) }

    /// `.NAME.TOKEN.videowm-partial.EXT` for the output named `targetName`, with NAME cut at a
    /// character boundary so the whole stays within 255 bytes: an output name may use all of
    /// the file system's limit, so its temporary name must not simply add to it. EXT (kept so
    /// a reader can tell the format) is left out when it is unusually long.
    static func temporaryName(forTargetNamed targetName: String, token: String) -> String {
        precondition(token.utf8.count <= maximumTokenBytes, "token longer than its budget")
        return "." + namePart(of: targetName) + "." + token + marker + extensionPart(of: targetName)
    }

    private static func extensionPart(of targetName: String) -> String {
        let ext = (targetName as NSString).pathExtension
        return ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext
    }

    private static func namePart(of targetName: String) -> String {
        let budget = maximumNameBytes - 2 - maximumTokenBytes - marker.utf8.count - extensionPart(of: targetName).utf8.count
        var part = "", bytes = 0
        for character in targetName {
            bytes += character.utf8.count
            if bytes > budget { break }
            part.append(character)
        }
        return part
    }

    /// Whether `name` (a file name, no folder) is a partial file of the output named `targetName`.
    static func isPartial(_ name: String, ofTargetNamed targetName: String) -> Bool {
        let prefix = "." + namePart(of: targetName) + "."
        guard name.hasPrefix(prefix), let markerRange = name.range(of: marker, options: .backwards),
              markerRange.lowerBound >= name.index(name.startIndex, offsetBy: prefix.count) else { return false }
        let token = name[name.index(name.startIndex, offsetBy: prefix.count)..<markerRange.lowerBound]
        guard !token.isEmpty, token.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."z").contains($0) }) else { return false }
        return name[markerRange.upperBound...] == extensionPart(of: targetName)
    }

    /// Removes the stale partial files of `targets` and returns their paths.
    static func removeStale(forTargets targets: [String]) -> [String] {
        var namesByFolder: [String: Set<String>] = [:]
        for target in targets {
            let folder = (target as NSString).deletingLastPathComponent
            namesByFolder[folder.isEmpty ? "." : folder, default: []].insert((target as NSString).lastPathComponent)
        }
        var removed: [String] = []
        for (folder, names) in namesByFolder {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for entry in entries where entry.hasPrefix(".") && entry.contains(marker) {
                guard names.contains(where: { isPartial(entry, ofTargetNamed: $0) }) else { continue }
                let path = (folder as NSString).appendingPathComponent(entry)
                if removeIfUnlocked(path) { removed.append(path) }
            }
        }
        return removed.sorted()
    }

    /// Removes `path` when no process holds a lock on it; whether it did.
    static func removeIfUnlocked(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        return unlink(path) == 0
    }

    /// Whether a finished output is at `path`: outputs only ever appear complete, so any
    /// file there is one. A folder is not (writing the row then fails, naming it).
    static func finishedOutputExists(at path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }
}

/// An advisory lock on a partial file, held while this process writes it.
final class PartialFileLock {
    private let descriptor: Int32

    init(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd >= 0, flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            descriptor = -1
        } else {
            descriptor = fd
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}
