import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The hidden `.NAME.RANDOM.videowm-partial.EXT` files `AtomicOutput` writes beside each
/// target, seen from a batch: a process killed outright (SIGKILL, a node lost) leaves them
/// behind, and a re-run must clear them without touching one another live process is writing.
///
/// A batch holds an advisory `flock` on each partial file it writes; the kernel drops it
/// when the process dies, so a partial file nobody can lock is live and one we can lock is stale.
enum PartialOutputFiles {
    static let marker = ".videowm-partial"

    /// Whether `name` (a file name, no folder) is a partial file of the output named `targetName`.
    static func isPartial(_ name: String, ofTargetNamed targetName: String) -> Bool {
        let prefix = "." + targetName + "."
        guard name.hasPrefix(prefix), let markerRange = name.range(of: marker, options: .backwards) else { return false }
        let token = name[name.index(name.startIndex, offsetBy: prefix.count)..<markerRange.lowerBound]
        guard !token.isEmpty, token.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."z").contains($0) }) else { return false }
        let ext = (targetName as NSString).pathExtension
        let rest = name[markerRange.upperBound...]
        return rest == (ext.isEmpty ? "" : "." + ext)
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

    private static func removeIfUnlocked(_ path: String) -> Bool {
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
