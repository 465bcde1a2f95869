import Foundation
import VideoWM

/// `videowm serve`: the HTTP origin for per-student HLS, put together — the HTTP daemon, the
/// lecture library, the token verifier, the cache and the render pool — and taken apart in
/// order on `drain`.
public final class OriginServer: @unchecked Sendable {
    public struct Settings: Sendable {
        public var library: String
        public var listen: ListenAddress
        public var tokenKey: SecretKey
        public var cacheFolder: String
        public var cacheBytes: UInt64
        public var workers: Int
        public var queue: Int
        /// A folder served under /player/ (the demo's page and its player), or nil.
        public var playerFolder: String?
        /// Goes into every lecture's revision: what else changes rendered bytes (the marks'
        /// key's fingerprint, the program's version).
        public var revisionSalt: [UInt8]
        /// Make every lecture's shared files that cost an encode before anyone asks (`--warm`).
        public var warm = false
        public var http = HTTPDaemon.Settings()

        public init(library: String, listen: ListenAddress, tokenKey: SecretKey, cacheFolder: String, cacheBytes: UInt64,
                    workers: Int, queue: Int, playerFolder: String? = nil, revisionSalt: [UInt8] = []) {
            self.library = library
            self.listen = listen
            self.tokenKey = tokenKey
            self.cacheFolder = cacheFolder
            self.cacheBytes = cacheBytes
            self.workers = workers
            self.queue = queue
            self.playerFolder = playerFolder
            self.revisionSalt = revisionSalt
        }
    }

    public let metrics = ServerMetrics()
    private let handler: OriginHandler
    private var daemon: HTTPDaemon?
    private let warmer: LectureWarmer?
    public let port: Int

    public init(settings: Settings, preparer: any LecturePreparing, log: ServerLog = ServerLog()) throws {
        let cache = try SegmentCache(folder: settings.cacheFolder, capacity: settings.cacheBytes)
        let pool = ServePool(workers: settings.workers, queueLimit: settings.queue)
        let library = LectureLibrary(folder: settings.library, salt: settings.revisionSalt, log: log)
        handler = OriginHandler(library: library, verifier: TokenVerifier(key: settings.tokenKey), cache: cache, pool: pool,
                                preparer: preparer, metrics: metrics, log: log, playerFolder: settings.playerFolder)
        do {
            let daemon = try HTTPDaemon(listen: settings.listen, handler: handler, settings: settings.http)
            self.daemon = daemon
            port = daemon.port
            handler.daemon = daemon
        } catch {
            pool.shutDown(failingQueuedWith: DrainingError())
            throw error
        }
        warmer = settings.warm ? LectureWarmer(library: library, preparer: preparer, pool: pool, making: handler.making, metrics: metrics, log: log) : nil
    }

    /// Requests waiting for a file to be made (by this process or, on the cache's lock, by
    /// another): tests wait on it rather than on time.
    var requestsWaitingForFiles: Int { handler.requestsWaitingForFiles }

    /// Stops accepting connections, lets the requests in flight finish for at most `seconds`
    /// (renders they wait for included), answers whatever still waits with 503, and stops the
    /// daemon. True when everything in flight finished in time.
    @discardableResult
    public func drain(seconds: Double) -> Bool {
        guard let daemon else { return true }
        warmer?.stop()
        handler.startDraining()
        daemon.stopAccepting()
        let deadline = ConnectionWatchdog.now() + seconds
        while daemon.requestsInFlight > 0 && ConnectionWatchdog.now() < deadline { usleep(20_000) }
        let finished = daemon.requestsInFlight == 0
        if !finished {
            handler.answerEveryWaitingRequest(with: .text(503, "shutting down", headers: [("Retry-After", "1"), ("Connection", "close")]))
            let grace = ConnectionWatchdog.now() + 1
            while daemon.requestsInFlight > 0 && ConnectionWatchdog.now() < grace { usleep(20_000) }
        }
        self.daemon = nil  // MHD_stop_daemon: closes the remaining (idle) connections
        handler.daemon = nil
        return finished
    }
}

struct DrainingError: Error, CustomStringConvertible {
    var description: String { "the server is shutting down" }
}
