import Foundation
import VideoWM

/// `serve --warm`: makes every lecture's shared files that cost an encode (its ladder's
/// renditions, its variant groups: `PreparedLecture.sharedWork`) before any student asks, so
/// first requests are cache hits and a lecture's cost is paid once, when it appears.
///
/// A thread of its own walks the library every few seconds (a lecture appears without a
/// restart, and a changed one is a new revision), indexes each lecture it has not warmed, and
/// hands its shared files to the render pool one at a time at the lowest priority: a request, a
/// student's playlist or a render ahead always goes first, a full queue drops warming work
/// first, and a request for a file being warmed joins that job. The cache's locks make several
/// processes warming one cache share the work.
final class LectureWarmer: @unchecked Sendable {
    private let library: LectureLibrary
    private let preparer: any LecturePreparing
    private let pool: ServePool
    private let making: FileMaking
    private let metrics: ServerMetrics
    private let log: ServerLog
    private let condition = NSCondition()
    private var running = true
    /// "NAME/REVISION" of each lecture revision warmed (or found broken).
    private var warmed: Set<String> = []
    static let rescanSeconds = 5.0

    init(library: LectureLibrary, preparer: any LecturePreparing, pool: ServePool, making: FileMaking, metrics: ServerMetrics, log: ServerLog) {
        self.library = library
        self.preparer = preparer
        self.pool = pool
        self.making = making
        self.metrics = metrics
        self.log = log
        let thread = Thread { [self] in walk() }
        thread.name = "videowm-serve-warmer"
        thread.start()
    }

    /// Stops after the file in hand (a drain); the thread ends on its own.
    func stop() {
        condition.withLock {
            running = false
            condition.broadcast()
        }
    }

    private var isRunning: Bool { condition.withLock { running } }

    /// Waits `seconds` or until stopped; false when stopped.
    private func pause(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return condition.withLock {
            while running && condition.wait(until: deadline) {}
            return running
        }
    }

    private func walk() {
        repeat {
            for name in library.folderNames() where Route.isSafeComponent(name) {
                guard isRunning else { return }
                guard case .ready(let entry) = library.lookup(name) else { continue }
                let revision = "\(name)/\(entry.definition.revision)"
                guard !warmed.contains(revision) else { continue }
                warm(name, entry)
                warmed.insert(revision)
            }
        } while pause(Self.rescanSeconds)
    }

    /// Prepares the lecture (on a worker, as a request would) and makes its shared work, file by file.
    private func warm(_ name: String, _ entry: LectureEntry) {
        let started = ConnectionWatchdog.now()
        let prepared = run(key: "index/\(name)/\(entry.definition.revision)") { [preparer, metrics, log] in
            .lecture(try entry.prepare(with: preparer) { outcome in
                switch outcome {
                case .success: metrics.lectureIndexed()
                case .failure(let error): log.event("lecture \(name) not served: indexing failed: \(error)")
                }
            })
        }
        guard case .success(.lecture(let lecture))? = prepared else { return }
        let work = lecture.sharedWork()
        guard !work.isEmpty else { return }
        var made = 0, cached = 0, failed = 0
        for unit in work {
            guard isRunning else { return }
            let job = job(for: unit, of: lecture, name: name, revision: entry.definition.revision, encryption: entry.definition.encryption)
            let files = if case .group(let group) = unit { group.members.count } else { 1 }
            if making.cache.contains(job.fileKey) {
                cached += files
                continue
            }
            switch run(key: job.poolKey, job.work) {
            case .success?: made += files
            case .failure?: failed += files
            case nil: return
            }
        }
        log.event("lecture \(name) warmed: \(made) shared files made, \(cached) already cached\(failed > 0 ? ", \(failed) failed" : "") in \(String(format: "%.1f", ConnectionWatchdog.now() - started)) s")
    }

    private func job(for unit: SharedWork, of lecture: any PreparedLecture, name: String, revision: String,
                     encryption: LectureEncryption?) -> RenderJob {
        let route = { (resource: Resource) in LectureRoute.shared(revision: revision, ResourcePath(resource, in: lecture)) }
        switch unit {
        case .file(let resource):
            return making.job(lecture: name, resource, group: nil, kind: .shared, whose: "shared, warming", route: route,
                              encryption: encryption, render: { try lecture.renderShared(resource) }, renderGroup: { try lecture.renderShared($0) })
        case .group(let group):
            return making.job(lecture: name, group.members[0], group: group, kind: .shared, whose: "shared, warming", route: route,
                              encryption: encryption, render: { try lecture.renderShared(group.members[0]) }, renderGroup: { try lecture.renderShared($0) })
        }
    }

    /// Runs `work` on the pool at warming priority and waits for it; a full queue (or a drop to
    /// make room for a request) is waited out and tried again. Nil when stopped first.
    private func run(key: String, _ work: @escaping @Sendable () throws -> ServeJobProduct) -> ServePool.Outcome? {
        while isRunning {
            let done = DispatchSemaphore(value: 0)
            let box = OutcomeBox()
            let admission = pool.submit(key: key, priority: .warming, work: work) { outcome in
                box.outcome = outcome
                done.signal()
            }
            if admission == .accepted {
                done.wait()
                if case .failure(is ServePool.Dropped)? = box.outcome {
                    if !pause(1) { return nil }
                    continue
                }
                return box.outcome
            }
            if !pause(1) { return nil }
        }
        return nil
    }

    private final class OutcomeBox: @unchecked Sendable {
        var outcome: ServePool.Outcome?
    }
}
