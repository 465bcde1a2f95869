import Foundation
import VideoWM

/// The lectures under LIBRARY, one folder each, looked up by name when a request names one:
/// a folder that appears is served from its first request on, a changed `lecture.json`,
/// config, video or subtitle file makes a new revision (checked at most once a second per
/// lecture), and a broken one answers 404 with one log line per distinct problem while the
/// others keep serving.
final class LectureLibrary: @unchecked Sendable {
    enum Lookup {
        case missing
        case broken
        case ready(LectureEntry)
    }

    private struct Known {
        var entry: LectureEntry?
        var problem: String?
        var checked: Double
    }

    let folder: String
    private let salt: [UInt8]
    private let log: ServerLog
    private let lock = NSLock()
    private var known: [String: Known] = [:]
    static let recheckSeconds = 1.0

    init(folder: String, salt: [UInt8], log: ServerLog) {
        self.folder = folder
        self.salt = salt
        self.log = log
    }

    /// The names of the library's folders now (each a lecture, or a folder that is not one
    /// yet: `lookup` tells), in name order.
    func folderNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(name), isDirectory: &isFolder) && isFolder.boolValue
        }.sorted()
    }

    /// Makes the next lookup of every lecture read its files again (SIGHUP).
    func recheckAll() {
        lock.withLock { for name in known.keys { known[name]?.checked = -.infinity } }
    }

    func lookup(_ name: String, now: Double = ConnectionWatchdog.now()) -> Lookup {
        if let cached = lock.withLock({ known[name] }), now - cached.checked < Self.recheckSeconds {
            if let entry = cached.entry { return entry.isBroken ? .broken : .ready(entry) }
            return cached.problem == nil ? .missing : .broken
        }
        let lectureFolder = (folder as NSString).appendingPathComponent(name)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: lectureFolder, isDirectory: &isFolder), isFolder.boolValue else {
            lock.withLock { known[name] = Known(entry: nil, problem: nil, checked: now) }
            return .missing
        }
        let definition: LectureDefinition
        do {
            definition = try LectureDefinition.read(name: name, folder: lectureFolder, salt: salt)
        } catch {
            let problem = error.description
            let previous = lock.withLock { () -> String? in
                defer { known[name] = Known(entry: nil, problem: problem, checked: now) }
                return known[name]?.problem
            }
            if previous != problem { log.event("lecture \(name) not served: \(problem)") }
            return .broken
        }
        let entry = lock.withLock { () -> LectureEntry in
            if let current = known[name]?.entry, current.definition.revision == definition.revision {
                known[name]?.checked = now
                return current
            }
            let entry = LectureEntry(definition: definition)
            known[name] = Known(entry: entry, problem: nil, checked: now)
            return entry
        }
        return entry.isBroken ? .broken : .ready(entry)
    }
}

/// One revision of a lecture: its definition, the lecture prepared from it (once, on first need)
/// and the copies of the students seen lately.
final class LectureEntry: @unchecked Sendable {
    let definition: LectureDefinition
    private let condition = NSCondition()
    private var preparing = false
    private var prepared: Result<any PreparedLecture, any Error>?
    private var copies = StudentCopyMemo(limit: 4096)

    init(definition: LectureDefinition) { self.definition = definition }

    /// Whether preparing failed (the lecture then answers 404 until its files change).
    var isBroken: Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .failure = prepared { return true }
        return false
    }

    /// The lecture when it is prepared, without waiting.
    var readyLecture: (any PreparedLecture)? {
        condition.lock()
        defer { condition.unlock() }
        return try? prepared?.get()
    }

    /// The lecture, prepared by the first caller (others wait for it). `onPrepared` runs once,
    /// for the caller that prepared it, with the outcome.
    func prepare(with preparer: any LecturePreparing, onPrepared: (Result<any PreparedLecture, any Error>) -> Void) throws -> any PreparedLecture {
        condition.lock()
        while preparing { condition.wait() }
        if let prepared {
            condition.unlock()
            return try prepared.get()
        }
        preparing = true
        condition.unlock()
        let outcome = Result { try preparer.prepare(definition) }
        condition.lock()
        prepared = outcome
        preparing = false
        condition.broadcast()
        condition.unlock()
        onPrepared(outcome)
        return try outcome.get()
    }

    func cachedCopy(student: String) -> (any StudentCopy)? {
        condition.lock()
        defer { condition.unlock() }
        return copies.get(student)
    }

    func copy(student: String, variables: [String: String], of lecture: any PreparedLecture) throws -> any StudentCopy {
        if let cached = cachedCopy(student: student) { return cached }
        let made = try lecture.student(variables: variables)
        condition.lock()
        copies.set(student, made)
        condition.unlock()
        return made
    }
}

/// Students' copies, the least recently used forgotten past `limit`.
struct StudentCopyMemo {
    private var entries: [String: (copy: any StudentCopy, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    mutating func get(_ key: String) -> (any StudentCopy)? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key]?.used = clock
        return entry.copy
    }

    mutating func set(_ key: String, _ copy: any StudentCopy) {
        clock += 1
        entries[key] = (copy, clock)
        if entries.count > limit, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
            entries[oldest.key] = nil
        }
    }
}
