import Foundation

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
            if let current = known[name]?.entry, current.definition == definition {
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

/// One revision of a lecture: its definition, its index (made once, on first need) and the
/// presentations of the students seen lately.
final class LectureEntry: @unchecked Sendable {
    let definition: LectureDefinition
    private let condition = NSCondition()
    private var indexing = false
    private var indexed: Result<any IndexedLecture, any Error>?
    private var presentations = PresentationMemo(limit: 4096)

    init(definition: LectureDefinition) { self.definition = definition }

    /// Whether indexing failed (the lecture then answers 404 until its files change).
    var isBroken: Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .failure = indexed { return true }
        return false
    }

    /// The index when it is made, without waiting.
    var readyIndex: (any IndexedLecture)? {
        condition.lock()
        defer { condition.unlock() }
        return try? indexed?.get()
    }

    /// The index, made by the first caller (others wait for it). `onIndexed` runs once, for
    /// the caller that made it, with the outcome.
    func index(with indexer: any LectureIndexer, onIndexed: (Result<any IndexedLecture, any Error>) -> Void) throws -> any IndexedLecture {
        condition.lock()
        while indexing { condition.wait() }
        if let indexed {
            condition.unlock()
            return try indexed.get()
        }
        indexing = true
        condition.unlock()
        let outcome = Result { try indexer.index(definition) }
        condition.lock()
        indexed = outcome
        indexing = false
        condition.broadcast()
        condition.unlock()
        onIndexed(outcome)
        return try outcome.get()
    }

    func cachedPresentation(student: String) -> (any StudentPresentation)? {
        condition.lock()
        defer { condition.unlock() }
        return presentations.get(student)
    }

    func presentation(student: String, variables: [String: String], in index: any IndexedLecture) throws -> any StudentPresentation {
        if let cached = cachedPresentation(student: student) { return cached }
        let made = try index.presentation(for: variables)
        condition.lock()
        presentations.set(student, made)
        condition.unlock()
        return made
    }
}

/// Students' presentations, the least recently used forgotten past `limit`.
struct PresentationMemo {
    private var entries: [String: (presentation: any StudentPresentation, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    mutating func get(_ key: String) -> (any StudentPresentation)? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key]?.used = clock
        return entry.presentation
    }

    mutating func set(_ key: String, _ presentation: any StudentPresentation) {
        clock += 1
        entries[key] = (presentation, clock)
        if entries.count > limit, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
            entries[oldest.key] = nil
        }
    }
}
