import Foundation

/// A bounded pool of worker threads for the slow work behind requests: indexing a lecture,
/// binding a student's presentation, rendering a segment.
///
/// - Jobs are keyed: a job submitted while one with the same key is queued or running waits
///   for that one instead of running again (request collapsing within the process; across
///   processes the cache's file locks do the same).
/// - Jobs wait in order of priority, then arrival: preparing a presentation (indexing a lecture,
///   binding a student: what their playlist waits for, and short once the lecture is indexed)
///   before renders a request waits for, before renders ahead. A student starting to play is
///   not queued behind every other student's segments. Warming (`serve --warm`: shared files
///   made before anyone asks) comes last of all.
/// - At most `queueLimit` jobs wait. A request's job that finds the queue full is refused
///   (the caller answers 503 with Retry-After), after the queue has made room by dropping a
///   render-ahead or warming job if it holds one (its waiters get `Dropped`): neither ever
///   costs a student a 503.
/// - Results go to every waiter, on the worker thread that ran the job. A waiter that has
///   gone (a client that disconnected) costs nothing: the job finishes and its result is
///   kept where the job keeps it (the cache).
/// Generic over what its jobs make (`Product`): the server's jobs make a student's copy or files
/// (`ServeJobProduct`), whose waiters switch on it rather than cast an erased value back.
public final class RenderPool<Product: Sendable>: @unchecked Sendable {
    /// Most urgent first.
    public enum Priority: Int, Sendable, Comparable {
        case preparation, request, ahead, warming
        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
    }
    public enum Admission: Sendable, Equatable { case accepted, full }

    public typealias Outcome = Result<Product, any Error>

    /// A job dropped from a full queue to make room for a request's.
    public struct Dropped: Error {}

    private final class Job {
        let key: String
        var priority: Priority
        let work: @Sendable () throws -> Product
        var waiters: [@Sendable (Outcome) -> Void] = []
        init(key: String, priority: Priority, work: @escaping @Sendable () throws -> Product) {
            self.key = key
            self.priority = priority
            self.work = work
        }
    }

    private let lock = NSLock()
    private let wake = NSCondition()
    private var queued: [Job] = []
    private var byKey: [String: Job] = [:]
    private var running = 0
    private var accepting = true
    /// Jobs of this priority and lower are refused (a draining server's render-ahead and warming).
    private var refusedFrom: Priority?
    private var stopping = false
    private var threads: [Thread] = []
    private var threadsLeft: Int
    private let finishedAll = DispatchSemaphore(value: 0)
    public let workerCount: Int
    public let queueLimit: Int

    public init(workers: Int, queueLimit: Int) {
        precondition(workers >= 1 && queueLimit >= 0)
        workerCount = workers
        self.queueLimit = queueLimit
        threadsLeft = workers
        for index in 0..<workers {
            let thread = Thread { [unowned self] in self.workLoop() }
            thread.name = "videowm-render-\(index)"
            // Renders decode and encode video: the default 512 KB of a secondary thread is too little for codecs.
            thread.stackSize = 8 << 20
            threads.append(thread)
            thread.start()
        }
    }

    /// Runs `work` under `key` (or joins the job already under it) and hands the outcome to
    /// `completion`. `.full` means nothing was queued and `completion` will not be called.
    @discardableResult
    public func submit(key: String, priority: Priority, work: @escaping @Sendable () throws -> Product,
                       completion: (@Sendable (Outcome) -> Void)? = nil) -> Admission {
        // A dropped job's waiters hear of it after the lock is released (they may call back in).
        var droppedWaiters: [@Sendable (Outcome) -> Void] = []
        defer { for waiter in droppedWaiters { waiter(.failure(Dropped())) } }
        wake.lock()
        defer { wake.unlock() }
        if let existing = byKey[key] {
            if let completion { existing.waiters.append(completion) }
            if priority < existing.priority {
                existing.priority = priority
                if let index = queued.firstIndex(where: { $0 === existing }) {
                    queued.remove(at: index)
                    insert(existing)
                }
            }
            return .accepted
        }
        guard accepting, refusedFrom.map({ priority < $0 }) ?? true else { return .full }
        if queued.count >= queueLimit {
            guard priority < .ahead, let droppable = queued.lastIndex(where: { $0.priority >= .ahead }) else { return .full }
            let dropped = queued.remove(at: droppable)
            byKey[dropped.key] = nil
            droppedWaiters = dropped.waiters
        }
        let job = Job(key: key, priority: priority, work: work)
        if let completion { job.waiters.append(completion) }
        byKey[key] = job
        insert(job)
        wake.signal()
        return .accepted
    }

    /// After every job as urgent or more, before the first less urgent one.
    private func insert(_ job: Job) {
        if let firstLater = queued.firstIndex(where: { job.priority < $0.priority }) {
            queued.insert(job, at: firstLater)
        } else {
            queued.append(job)
        }
    }

    /// Whether a job is queued or running under `key`.
    public func isPending(_ key: String) -> Bool {
        wake.lock()
        defer { wake.unlock() }
        return byKey[key] != nil
    }

    public var queueDepth: Int {
        wake.lock()
        defer { wake.unlock() }
        return queued.count
    }

    public var busyWorkers: Int {
        wake.lock()
        defer { wake.unlock() }
        return running
    }

    /// Refuses new jobs of `priority` and lower from now on; queued and running ones carry on.
    /// A draining server refuses render-ahead and warming (`.ahead`) but still takes the jobs of
    /// the requests in flight, whose answers it promised to finish.
    public func stopAccepting(from priority: Priority) {
        wake.lock()
        refusedFrom = min(priority, refusedFrom ?? priority)
        wake.unlock()
    }

    /// Waits until nothing is queued or running, at most `seconds`; true when it got there.
    public func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        wake.lock()
        defer { wake.unlock() }
        while !(queued.isEmpty && running == 0) {
            if !wake.wait(until: deadline) { return queued.isEmpty && running == 0 }
        }
        return true
    }

    /// Fails every queued job (`error` to its waiters) and returns once the running ones end.
    /// The pool takes no work afterwards.
    public func shutDown(failingQueuedWith error: any Error) {
        wake.lock()
        accepting = false
        stopping = true
        let abandoned = queued
        queued.removeAll()
        for job in abandoned { byKey[job.key] = nil }
        wake.broadcast()
        wake.unlock()
        for job in abandoned { for waiter in job.waiters { waiter(.failure(error)) } }
        finishedAll.wait()
    }

    private func workLoop() {
        while true {
            wake.lock()
            while queued.isEmpty && !stopping { wake.wait() }
            if queued.isEmpty {
                threadsLeft -= 1
                let last = threadsLeft == 0
                wake.unlock()
                if last { finishedAll.signal() }
                return
            }
            let job = queued.removeFirst()
            running += 1
            wake.unlock()

            let outcome: Outcome = Result { try job.work() }

            wake.lock()
            byKey[job.key] = nil
            running -= 1
            let waiters = job.waiters
            wake.broadcast()
            wake.unlock()
            for waiter in waiters { waiter(outcome) }
        }
    }
}
