import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Cuts off connections that take too long to send a request's header.
///
/// libmicrohttpd's own timeout counts inactivity, so a client that sends one byte a second
/// (slowloris) would keep a connection forever. The watchdog remembers when each connection
/// began waiting for a request (its start, or the end of its previous response) and shuts its
/// socket down once `headerDeadline` passes without a request reaching the application; the
/// library then sees the end of the stream and closes the connection as usual. A connection
/// busy with a request (waiting for a render, or sending) is left alone; one whose client
/// stops reading is the library's inactivity timeout's.
///
/// The socket is shut down under the same lock that the library's "closed" notification takes
/// to forget the connection, and the library closes the descriptor only after that
/// notification, so the number always still names this connection's socket.
final class ConnectionWatchdog: @unchecked Sendable {
    private struct Watched {
        let socket: Int32
        var waitingSince: Double?
        var cutOff = false
    }

    private let lock = NSLock()
    private var connections: [UnsafeMutableRawPointer: Watched] = [:]
    private let headerDeadline: Double
    private var running = true
    private var thread: Thread?
    private let stopped = DispatchSemaphore(value: 0)
    /// Connections cut off so far (for /metrics).
    private(set) var cutOffCount = 0

    init(headerDeadline: Double) {
        self.headerDeadline = headerDeadline
        let thread = Thread { [unowned self] in self.watch() }
        thread.name = "videowm-serve-watchdog"
        self.thread = thread
        thread.start()
    }

    func connectionOpened(_ connection: UnsafeMutableRawPointer, socket: Int32) {
        lock.withLock { connections[connection] = Watched(socket: socket, waitingSince: Self.now()) }
    }

    func requestArrived(_ connection: UnsafeMutableRawPointer) {
        lock.withLock { connections[connection]?.waitingSince = nil }
    }

    func requestEnded(_ connection: UnsafeMutableRawPointer) {
        lock.withLock { connections[connection]?.waitingSince = Self.now() }
    }

    func connectionClosed(_ connection: UnsafeMutableRawPointer) {
        lock.withLock { _ = connections.removeValue(forKey: connection) }
    }

    var cutOffConnections: Int { lock.withLock { cutOffCount } }

    /// Stops the thread (before the daemon that feeds it is stopped).
    func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        if wasRunning { stopped.wait() }
    }

    private func watch() {
        while lock.withLock({ running }) {
            usleep(200_000)
            let now = Self.now()
            lock.withLock {
                for (connection, watched) in connections where !watched.cutOff {
                    guard let since = watched.waitingSince, now - since > headerDeadline else { continue }
                    shutdown(watched.socket, Int32(SHUT_RDWR))
                    connections[connection]?.cutOff = true
                    cutOffCount += 1
                }
            }
        }
        stopped.signal()
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
