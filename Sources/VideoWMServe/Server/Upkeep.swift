import Foundation
import ServeAccess

/// What a running server does every second besides answering: re-reads the revocations file
/// when it has changed (a revoked token is refused within a second or two), and says in the log
/// when the connection limit begins to turn clients away and when it stops (one line each).
final class Upkeep: @unchecked Sendable {
    private let access: AccessControl
    private weak var daemon: HTTPDaemon?
    private let metrics: ServerMetrics
    private let log: ServerLog
    private let condition = NSCondition()
    private var running = true
    private var refusedBefore = 0
    private var refusing = false

    init(access: AccessControl, daemon: HTTPDaemon, metrics: ServerMetrics, log: ServerLog) {
        self.access = access
        self.daemon = daemon
        self.metrics = metrics
        self.log = log
        let thread = Thread { [self] in run() }
        thread.name = "videowm-serve-upkeep"
        thread.start()
    }

    /// A re-read's line in the log; one that kept what was in force counts as a failure.
    func report(_ reload: AccessControl.Reload) {
        if case .kept = reload { metrics.reloadFailed() }
        if let line = reload.logLine { log.event(line) }
    }

    func stop() {
        condition.withLock {
            running = false
            condition.broadcast()
        }
    }

    private func run() {
        while condition.withLock({ () -> Bool in
            let deadline = Date().addingTimeInterval(1)
            while running && condition.wait(until: deadline) {}
            return running
        }) {
            report(access.reloadRevocations(force: false))
            watchConnections()
        }
    }

    private func watchConnections() {
        guard let daemon else { return }
        let refused = daemon.refusedConnections
        if refused > refusedBefore && !refusing {
            refusing = true
            log.event("connection limit reached (\(daemon.connectionLimit) open): new connections are closed as they arrive")
        } else if refused == refusedBefore && refusing {
            refusing = false
            log.event("connections accepted again (\(refused) refused since the start)")
        }
        refusedBefore = refused
    }
}
