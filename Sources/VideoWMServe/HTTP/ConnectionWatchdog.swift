import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Cuts off connections that take too long to send a request's header.
///
/// libmicrohttpd's own timeout counts inactivity, so a client that sends one byte a second
/// (slowloris) would keep a connection forever. The watchdog gives every request's header
/// `headerDeadline` to arrive whole, counted from when it began: a new connection's from its
/// opening; a kept-alive connection's from the first byte after its previous response, seen in
/// the socket's TCP_INFO (time since data last came in), since the library reads the bytes and
/// tells nobody. A kept-alive connection that is merely silent between requests (a player with
/// a full buffer, a client waiting out a 503's Retry-After) is the library's inactivity
/// timeout's, not cut off as slow. Past the deadline the watchdog shuts the socket down; the
/// library then sees the end of the stream and closes the connection as usual. A connection
/// busy with a request (waiting for a render, or sending) is left alone; one whose client
/// stops reading is the inactivity timeout's too.
///
/// The socket is shut down under the same lock that the library's "closed" notification takes
/// to forget the connection, and the library closes the descriptor only after that
/// notification, so the number always still names this connection's socket.
final class ConnectionWatchdog: @unchecked Sendable {
    private struct Watched {
        let socket: Int32
        /// Since when the connection has waited for a request (nil while one is being answered).
        var waitingSince: Double?
        /// When the awaited request's header began arriving; nil while a kept-alive connection is silent.
        var headerSince: Double?
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
        // A new connection is opened to send a request: its header's time runs from the start.
        let now = Self.now()
        lock.withLock { connections[connection] = Watched(socket: socket, waitingSince: now, headerSince: now) }
    }

    func requestArrived(_ connection: UnsafeMutableRawPointer) {
        lock.withLock {
            connections[connection]?.waitingSince = nil
            connections[connection]?.headerSince = nil
        }
    }

    func requestEnded(_ connection: UnsafeMutableRawPointer) {
        lock.withLock {
            connections[connection]?.waitingSince = Self.now()
            connections[connection]?.headerSince = nil
        }
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
                    guard let waitingSince = watched.waitingSince else { continue }
                    let headerSince = watched.headerSince ?? Self.headerStart(of: watched.socket, waitingSince: waitingSince, now: now)
                    connections[connection]?.headerSince = headerSince
                    guard let headerSince, now - headerSince > headerDeadline else { continue }
                    shutdown(watched.socket, Int32(SHUT_RDWR))
                    connections[connection]?.cutOff = true
                    cutOffCount += 1
                }
            }
        }
        stopped.signal()
    }

    /// When a kept-alive connection's next request began arriving: the last time data came in,
    /// if that is after the wait began (polled every 0.2 s, so within that of the first byte);
    /// nil while it has been silent. Where the system cannot tell, the wait's start (strict).
    private static func headerStart(of socket: Int32, waitingSince: Double, now: Double) -> Double? {
        let milliseconds = vwm_socket_milliseconds_since_receive(socket)
        guard milliseconds >= 0 else { return waitingSince }
        let lastReceived = now - Double(milliseconds) / 1000
        // The kernel counts in jiffies (up to 10 ms) and rounds down: the previous request's
        // last bytes, answered within a jiffy, could seem to come after the wait began.
        return lastReceived > waitingSince + clockMargin ? lastReceived : nil
    }

    /// Seconds by which data must follow the start of a wait to count as the next request.
    static let clockMargin = 0.05

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
