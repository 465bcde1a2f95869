import Foundation
import ServeAccess
import ServeCache
import VideoWM

// The request handling of `videowm serve`, one route at a time, over 300 lines because
// authorisation, playlists, cached files and deferred renders (alone or a render group's)
// share the same few steps.

/// Answers every request: routes it, authorises it with the token, and serves a playlist, a
/// cached file, or a render made on a worker while the connection waits (suspended).
final class OriginHandler: HTTPHandler, @unchecked Sendable {
    let library: LectureLibrary
    let accessControl: AccessControl
    let cache: SegmentCache
    let pool: ServePool
    let preparer: any LecturePreparing
    let metrics: ServerMetrics
    let log: ServerLog
    let playerFolder: String?
    /// Longest a request waits for a job (a render, an index) before it is answered 503.
    let maxWaitSeconds: Double
    /// How files are made on the pool's workers into the cache (shared with `LectureWarmer`).
    let making: FileMaking
    weak var daemon: HTTPDaemon?
    private let lock = NSLock()
    private var draining = false
    private var waiting: [ObjectIdentifier: Delivery] = [:]

    init(library: LectureLibrary, access: AccessControl, cache: SegmentCache, pool: ServePool, preparer: any LecturePreparing,
         metrics: ServerMetrics, log: ServerLog, playerFolder: String?, maxWaitSeconds: Double) {
        self.library = library
        accessControl = access
        self.maxWaitSeconds = maxWaitSeconds
        self.cache = cache
        self.pool = pool
        self.preparer = preparer
        self.metrics = metrics
        self.log = log
        self.playerFolder = playerFolder
        making = FileMaking(cache: cache, metrics: metrics, log: log)
    }

    static let cors: [(name: String, value: String)] = [
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Expose-Headers", "Content-Length, Content-Range, ETag"),
    ]

    // MARK: HTTPHandler

    func respond(to request: HTTPRequest) -> HTTPReply {
        let reply = route(request)
        guard lock.withLock({ draining }) else { return reply }
        // While draining, every answer asks the client to reconnect (to another replica).
        switch reply {
        case .now(var response):
            response.headers.append(("Connection", "close"))
            return .now(response)
        case .later(let deferred):
            return .later(DeferredResponse { deliver in
                deferred.start { response in
                    var response = response
                    response.headers.append(("Connection", "close"))
                    deliver(response)
                }
            })
        }
    }

    func finished(_ record: HTTPExchangeRecord) {
        metrics.requestFinished(status: record.status, bytes: record.bodyBytes)
        log.access(record)
    }

    private func route(_ request: HTTPRequest) -> HTTPReply {
        if request.method == "OPTIONS" {
            return .now(HTTPResponse(status: 204, headers: Self.cors + [("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS"),
                                                                        ("Access-Control-Allow-Headers", "Range"), ("Access-Control-Max-Age", "86400")]))
        }
        let route = Route(path: request.path)
        // POST only to prepare (a platform's server may send it as a form's or a beacon's).
        let isPrepare = if case .lecture(_, .prepare)? = route { true } else { false }
        guard request.method == "GET" || request.method == "HEAD" || (request.method == "POST" && isPrepare) else {
            return .now(.text(405, "method not allowed", headers: [("Allow", isPrepare ? "GET, HEAD, POST, OPTIONS" : "GET, HEAD, OPTIONS")]))
        }
        guard let route else { return .now(notFound) }
        switch route {
        case .health:
            return .now(lock.withLock({ draining }) ? .text(503, "draining") : .text(200, "ok", headers: [("Cache-Control", "no-store")]))
        case .metrics:
            let readings = ServerMetrics.Readings(
                queueDepth: pool.queueDepth, busyWorkers: pool.busyWorkers, workers: pool.workerCount, cacheBytes: cache.approximateBytes,
                evictions: cache.evictedFiles, damagedFiles: cache.damagedFiles, unstoredFiles: cache.unstoredFiles, cacheVolumeFull: cache.isVolumeFull,
                slowHeaders: daemon?.slowHeaderCutOffs ?? 0, connections: daemon?.openConnections ?? 0, connectionLimit: daemon?.connectionLimit ?? 0,
                refusedConnections: daemon?.refusedConnections ?? 0, tokenKeys: accessControl.keyIDs.count, revocations: accessControl.revocationCount,
                draining: lock.withLock { draining })
            let text = metrics.text(readings)
            return .now(HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Cache-Control", "no-store")],
                                     body: .bytes(Array(text.utf8))))
        case .player(let file):
            return .now(playerFile(file, request: request))
        case .authorize:
            // A proxy's auth_request (nginx): the same checks as serving the original URI, and
            // nothing else; any refusal is 403, the only refusal such a proxy passes on.
            guard let original = request.header("x-original-uri"), let target = RequestTarget(original),
                  case .lecture(let name, let lectureRoute)? = Route(path: target.path) else {
                return .now(forbidden)
            }
            return lecture(name, lectureRoute, token: target.query["token"], request: request, authorizeOnly: true)
        case .lecture(let name, let lectureRoute):
            return lecture(name, lectureRoute, token: request.query["token"], request: request, authorizeOnly: false)
        }
    }

    // MARK: Lectures

    private var notFound: HTTPResponse { .text(404, "not found", headers: [("Cache-Control", "no-store")] + Self.cors) }
    private var forbidden: HTTPResponse { .text(403, "forbidden", headers: [("Cache-Control", "no-store")] + Self.cors) }

    /// Everything a lecture URL needs before the student's copy: the lecture, a valid token for
    /// it, the current revision, the student's own name in their URLs.
    private func lecture(_ name: String, _ route: LectureRoute, token: String?, request: HTTPRequest, authorizeOnly: Bool) -> HTTPReply {
        let refuse = { (response: HTTPResponse) in HTTPReply.now(authorizeOnly ? self.forbidden : response) }
        guard case .ready(let entry) = library.lookup(name) else { return refuse(notFound) }
        guard let token else {
            metrics.tokenRefused(TokenRejection.missing.label)
            return .now(forbidden)
        }
        let admission: AccessControl.Admission
        switch accessControl.admit(token, to: name) {
        case .success(let admitted): admission = admitted
        case .failure(let rejection):
            metrics.tokenRefused(rejection.label)
            return .now(rejection == .noMemory ? .text(503, "out of memory", headers: [("Retry-After", "1")]) : forbidden)
        }
        if let revision = route.revision, revision != entry.definition.revision { return refuse(notFound) }
        let student = admission.student
        if case .own(_, let owner, _) = route, owner != student { return .now(forbidden) }
        let request = Authorised(name: name, route: route, token: token, access: admission.access, student: student, entry: entry,
                                 http: request, authorizeOnly: authorizeOnly)
        // The key needs no student's copy: a valid token for this lecture is all it asks.
        if case .key = route {
            guard let encryption = entry.definition.encryption else { return refuse(notFound) }
            if authorizeOnly { return .now(HTTPResponse(status: 204)) }
            return .now(HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store")] + Self.cors,
                                     body: .bytes(encryption.keyBytes)))
        }
        if let lecture = entry.readyLecture, let copy = entry.cachedCopy(student: student) {
            return answer(request, lecture, copy)
        }
        return deferred(key: "prepare/\(name)/\(entry.definition.revision)/\(student)", priority: .preparation, forFile: false, work: { [preparer, metrics, log] in
            let lecture: any PreparedLecture
            do {
                lecture = try entry.prepare(with: preparer) { outcome in
                    switch outcome {
                    case .success: metrics.lectureIndexed()
                    case .failure(let error): log.event("lecture \(name) not served: indexing failed: \(error)")
                    }
                }
            } catch {
                throw PreparationFailure.lecture
            }
            do {
                return .copy(try entry.copy(student: student, variables: admission.access.variables, of: lecture))
            } catch {
                log.event("lecture \(name): a token's variables cannot be used: \(error)")
                throw PreparationFailure.variables
            }
        }) { [self] outcome, deliver in
            switch outcome {
            case .success(.copy(let copy)):
                guard let lecture = entry.readyLecture else { preconditionFailure("a copy is made of a prepared lecture") }
                switch answer(request, lecture, copy) {
                case .now(let response): deliver(response)
                case .later(let later): later.start(deliver)
                }
            case .success: preconditionFailure("a preparation job makes a student's copy")
            case .failure(PreparationFailure.variables): deliver(forbidden)
            case .failure(PreparationFailure.lecture): deliver(request.authorizeOnly ? forbidden : notFound)
            case .failure: deliver(.text(503, "shutting down", headers: [("Retry-After", "1")]))
            }
        }
    }

    private enum PreparationFailure: Error { case lecture, variables }

    /// A request that passed every check that needs no student's copy.
    struct Authorised: Sendable {
        let name: String
        let route: LectureRoute
        let token: String
        let access: AccessToken
        let student: String
        let entry: LectureEntry
        let http: HTTPRequest
        let authorizeOnly: Bool
        var revision: String { entry.definition.revision }
    }

    private func answer(_ request: Authorised, _ lecture: any PreparedLecture, _ copy: any StudentCopy) -> HTTPReply {
        let query = "?token=" + request.token
        let served = Served(request: request, lecture: lecture, copy: copy)
        // The playlists' file URIs, and for those of encrypted segments the name their IV is made
        // from (their cache key), recorded as the copy names them: the key tags need no URI read back.
        var encryptedNames: [String: String] = [:]
        let encryption = request.entry.definition.encryption
        func uri(_ resource: Resource, _ ownership: ResourceOwnership) -> String {
            let route = served.route(of: resource, ownership)
            let uri = route.path(lecture: request.name) + query
            if encryption != nil, LectureEncryption.encrypts(resource) { encryptedNames[uri] = FileMaking.cacheKey(route, lecture: request.name) }
            return uri
        }
        switch request.route {
        case .master:
            if request.authorizeOnly { return .now(HTTPResponse(status: 204)) }
            let playback: PlaybackPlaylist
            do {
                playback = try copy.playbackPlaylist(mediaPlaylistURI: { rendition in
                    LectureRoute.mediaPlaylist(revision: request.revision, rendition: rendition).path(lecture: request.name) + query
                }, resourceURI: uri)
            } catch {
                log.event("playlist failed: lecture \(request.name), master playlist (student \(request.student)): \(error)")
                return .now(.text(500, "playlist failed", headers: [("Cache-Control", "no-store")] + Self.cors))
            }
            if let rendition = playback.startRendition { startPlayback(served, in: rendition) }
            return servedPlaylist(playback.text, served, encryptedNames: encryptedNames)
        case .prepare:
            if request.authorizeOnly { return .now(HTTPResponse(status: 204)) }
            do {
                let playback = try copy.playbackPlaylist(mediaPlaylistURI: { $0 }, resourceURI: { _, _ in "" })
                if let rendition = playback.startRendition { startPlayback(served, in: rendition) }
            } catch {
                log.event("prepare failed: lecture \(request.name) (student \(request.student)): \(error)")
                return .now(.text(500, "prepare failed", headers: [("Cache-Control", "no-store")] + Self.cors))
            }
            return .now(HTTPResponse(status: 204, headers: [("Cache-Control", "no-store")] + Self.cors))
        case .mediaPlaylist(_, let rendition):
            guard let text = copy.mediaPlaylist(rendition: rendition, uri: uri) else { return .now(request.authorizeOnly ? forbidden : notFound) }
            if request.authorizeOnly { return .now(HTTPResponse(status: 204)) }
            renderAhead(served, in: rendition, after: nil)
            return servedPlaylist(text, served, encryptedNames: encryptedNames)
        case .key:
            preconditionFailure("the key is answered before a student's copy is made")
        case .shared(_, let path), .own(_, _, let path):
            let asked: ResourceOwnership = if case .shared = request.route { .shared } else { .student }
            // The one place a URL's file name is read: into the typed resource it names.
            guard let resource = lecture.resource(rendition: path.rendition, file: path.file),
                  let ownership = copy.ownership(of: resource) else { return .now(request.authorizeOnly ? forbidden : notFound) }
            // A shared segment where this student has a marked one is not theirs: the unmarked copy stays out of reach.
            guard ownership == asked else { return .now(forbidden) }
            if request.authorizeOnly { return .now(HTTPResponse(status: 204)) }
            renderAhead(served, in: resource.rendition, after: resource)
            let job = renderJob(resource, ownership, served)
            if let item = cache.open(job.fileKey) {
                metrics.cacheHit()
                return .now(fileResponse(item, resource: resource, ownership: ownership, request: request))
            }
            metrics.cacheMiss()
            return deferred(key: job.poolKey, priority: .request, forFile: true, work: job.work) { [self] outcome, deliver in
                switch outcome {
                case .success(let product):
                    guard let item = job.file(in: product) else { preconditionFailure("a render job makes its files") }
                    deliver(fileResponse(item, resource: resource, ownership: ownership, request: request))
                case .failure(is DrainingError):
                    deliver(.text(503, "shutting down", headers: [("Retry-After", "1")]))
                case .failure:
                    deliver(.text(500, "rendering failed", headers: [("Cache-Control", "no-store")] + Self.cors))
                }
            }
        }
    }

    /// An authorised request with the lecture and the student's copy it is answered from.
    struct Served: Sendable {
        let request: Authorised
        let lecture: any PreparedLecture
        let copy: any StudentCopy

        /// The route of a typed resource of this student's copy: named by the lecture, placed by whose it is.
        func route(of resource: Resource, _ ownership: ResourceOwnership) -> LectureRoute {
            let path = ResourcePath(resource, in: lecture)
            switch ownership {
            case .shared: return .shared(revision: request.revision, path)
            case .student: return .own(revision: request.revision, student: request.student, path)
            }
        }
    }

    private func renderJob(_ resource: Resource, _ ownership: ResourceOwnership, _ served: Served) -> RenderJob {
        let whose = ownership == .shared ? "shared" : "student \(served.request.student)"
        let copy = served.copy
        return making.job(lecture: served.request.name, resource, group: copy.renderGroup(containing: resource),
                          kind: ownership == .shared ? .shared : .student, whose: whose, route: { served.route(of: $0, ownership) },
                          encryption: served.request.entry.definition.encryption,
                          render: { try copy.render(resource).bytes }, renderGroup: { try copy.render($0) })
    }

    /// A playlist as served: for an encrypted lecture, each encrypted segment preceded by its key
    /// tag (the key's URL with the student's token, the IV of the name `encryptedNames` gives its
    /// URI: its cache key, as `FileMaking` encrypts it).
    private func servedPlaylist(_ text: String, _ served: Served, encryptedNames: [String: String]) -> HTTPReply {
        let request = served.request
        guard let encryption = request.entry.definition.encryption else { return .now(playlist(text, request: request.http)) }
        let keyURI = LectureRoute.key(revision: request.revision).path(lecture: request.name) + "?token=" + request.token
        var lines: [String] = []
        do {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                // A segment's URI follows its EXTINF: the tag goes before the EXTINF.
                if let name = encryptedNames[line], let extinf = lines.last, extinf.hasPrefix("#EXTINF:") {
                    lines.insert(try encryption.keyTag(keyURI: keyURI, name: name), at: lines.count - 1)
                }
                lines.append(line)
            }
        } catch {
            log.event("playlist failed: lecture \(request.name) (student \(request.student)): \(error)")
            return .now(.text(500, "playlist failed", headers: [("Cache-Control", "no-store")] + Self.cors))
        }
        return .now(playlist(lines.joined(separator: "\n"), request: request.http))
    }

    /// What a player starting `rendition` fetches before it can play — its initialization
    /// segment and first segment, the student's own from the first frame their mark shows —
    /// queued at a request's priority (before render-ahead and warming, after the requests
    /// already waiting) unless cached or on its way; then their first own segment ahead, as
    /// while playing. The master playlist and `prepare` start it, so the render is under way
    /// (or done) when the player asks for the segment, which then joins it.
    private func startPlayback(_ served: Served, in rendition: String) {
        for (resource, ownership) in served.copy.leadingResources(of: rendition, segments: 1) {
            let job = renderJob(resource, ownership, served)
            guard !pool.isPending(job.poolKey), !cache.contains(job.fileKey) else { continue }
            if pool.submit(key: job.poolKey, priority: .request, work: job.work) == .accepted { metrics.startScheduled() }
        }
        renderAhead(served, in: rendition, after: nil)
    }

    /// Queues what the student will want next after `resource` (their next own segment; in a variant
    /// lecture the next segment, own or a variant group) when it is neither cached nor on its way.
    private func renderAhead(_ served: Served, in rendition: String, after resource: Resource?) {
        guard let next = served.copy.nextResourceAhead(in: rendition, after: resource) else { return }
        let job = renderJob(next.resource, next.ownership, served)
        guard !pool.isPending(job.poolKey), !cache.contains(job.fileKey) else { return }
        let admission = pool.submit(key: job.poolKey, priority: .ahead, work: job.work)
        if admission == .accepted { metrics.aheadScheduled() }
    }

    // MARK: Deferred answers

    /// An answer that waits for a pool job under `key` (`forFile`: one making a file) for
    /// `maxWaitSeconds` at most; a full queue answers 503 at once, a job that takes longer 503
    /// then (the job carries on, and the client's retry finds its file).
    private func deferred(key: String, priority: ServePool.Priority, forFile: Bool, work: @escaping @Sendable () throws -> ServeJobProduct,
                          then: @escaping @Sendable (ServePool.Outcome, @escaping @Sendable (HTTPResponse) -> Void) -> Void) -> HTTPReply {
        .later(DeferredResponse { [self] deliver in
            let delivery = Delivery(forFile: forFile, deliver)
            lock.withLock { waiting[ObjectIdentifier(delivery)] = delivery }
            let guarded: @Sendable (HTTPResponse) -> Void = { [weak self] response in
                if delivery.deliver(response) { self?.lock.withLock { _ = self?.waiting.removeValue(forKey: ObjectIdentifier(delivery)) } }
            }
            let admission = pool.submit(key: key, priority: priority, work: work) { outcome in then(outcome, guarded) }
            if admission == .full {
                metrics.queueFull()
                guarded(.text(503, "busy", headers: [("Retry-After", retryAfter()), ("Cache-Control", "no-store")] + Self.cors))
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + maxWaitSeconds) { [weak self] in
                    guard let self, delivery.deliver(.text(503, "still rendering", headers: [("Retry-After", retryAfter()), ("Cache-Control", "no-store")] + Self.cors)) else { return }
                    lock.withLock { _ = waiting.removeValue(forKey: ObjectIdentifier(delivery)) }
                    metrics.waitCutShort()
                }
            }
        })
    }

    /// Seconds a refused client should wait: the queue's work spread over the workers, 1…20 —
    /// under the connection's 30-s idle timeout, so a client that waits it out on its kept-alive
    /// connection finds the connection still open.
    private func retryAfter() -> String {
        String(min(20, max(1, (pool.queueDepth + pool.busyWorkers) / max(1, pool.workerCount))))
    }

    /// Requests whose answer waits for a file to be made (tests wait on it instead of on time).
    var requestsWaitingForFiles: Int { lock.withLock { waiting.values.filter(\.forFile).count } }

    func startDraining() {
        lock.withLock { draining = true }
        // Requests accepted before the daemon stops accepting are in flight: their renders are still taken.
        pool.stopAccepting(from: .ahead)
    }

    /// Answers every request still waiting for a job (the drain's time is up).
    func answerEveryWaitingRequest(with response: HTTPResponse) {
        let all = lock.withLock { () -> [Delivery] in
            defer { waiting.removeAll() }
            return Array(waiting.values)
        }
        for delivery in all { _ = delivery.deliver(response) }
    }

    // MARK: Responses

    private func playlist(_ text: String, request: HTTPRequest) -> HTTPResponse {
        let bytes = Array(text.utf8)
        let etag = "\"" + Hex.string(ContentDigest.sha256(bytes).prefix(8)) + "\""
        let headers: [(name: String, value: String)] = [("Content-Type", "application/vnd.apple.mpegurl"), ("ETag", etag),
                                                        ("Cache-Control", "private, no-cache")] + Self.cors
        if let match = request.header("if-none-match"), Self.matches(match, etag) { return HTTPResponse(status: 304, headers: headers) }
        return HTTPResponse(status: 200, headers: headers, body: .bytes(bytes))
    }

    private func fileResponse(_ item: CacheItem, resource: Resource, ownership: ResourceOwnership, request: Authorised) -> HTTPResponse {
        let etag = "\"" + Hex.string(item.digest.prefix(12)) + "\""
        // Shared files may sit in shared caches (keyed by the token-bearing URL, or by path
        // behind a proxy that authorises every request); a student's own stay in their browser.
        // Neither outlives the token that fetched it.
        let lifetime = max(0, Int(request.access.expires - Date().timeIntervalSince1970))
        let cacheControl = ownership == .shared ? "public, max-age=\(min(lifetime, 31_536_000)), immutable"
                                                : "private, max-age=\(min(lifetime, 86_400)), immutable"
        var headers: [(name: String, value: String)] = [("Content-Type", Self.contentType(of: resource)), ("ETag", etag),
                                                        ("Accept-Ranges", "bytes"), ("Cache-Control", cacheControl)] + Self.cors
        if let match = request.http.header("if-none-match"), Self.matches(match, etag) { return HTTPResponse(status: 304, headers: headers) }
        var range = ByteRange(header: request.http.header("range"), size: item.size)
        if let ifRange = request.http.header("if-range"), ifRange != etag { range = .whole }  // RFC 9110 §13.1.5
        switch range {
        case .whole:
            return HTTPResponse(status: 200, headers: headers, body: Self.body(item, offset: 0, length: item.size))
        case .part(let offset, let length):
            headers.append(("Content-Range", "bytes \(offset)-\(offset + length - 1)/\(item.size)"))
            return HTTPResponse(status: 206, headers: headers, body: Self.body(item, offset: offset, length: length))
        case .unsatisfiable:
            return HTTPResponse(status: 416, headers: [("Content-Range", "bytes */\(item.size)"), ("Cache-Control", "no-store")] + Self.cors)
        }
    }

    /// Part of a cached file (sent from disk) or of bytes that could not be stored.
    static func body(_ item: CacheItem, offset: UInt64, length: UInt64) -> HTTPResponse.Body {
        switch item.body {
        case .file(let file): .file(file, offset: offset, length: length)
        case .memory(let bytes): .bytes(Array(bytes[Int(offset)..<Int(offset + length)]))
        }
    }

    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    static func contentType(of resource: Resource) -> String {
        switch resource.file {
        case .initialization, .segment, .variant: "video/mp4"
        case .captions: "text/vtt"
        }
    }

    static func contentType(of file: String) -> String {
        switch (file as NSString).pathExtension.lowercased() {
        case "m3u8": "application/vnd.apple.mpegurl"
        case "m4s", "mp4": "video/mp4"
        case "m4a": "audio/mp4"
        case "vtt": "text/vtt"
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript"
        case "css": "text/css"
        default: "application/octet-stream"
        }
    }

    /// A file of the --player folder (the demo page and video.js), or 404.
    private func playerFile(_ file: String, request: HTTPRequest) -> HTTPResponse {
        guard let playerFolder, let opened = OpenFile(path: (playerFolder as NSString).appendingPathComponent(file)) else { return notFound }
        return HTTPResponse(status: 200, headers: [("Content-Type", Self.contentType(of: file)), ("Cache-Control", "no-cache")],
                            body: .file(opened, offset: 0, length: opened.size))
    }
}

/// A deferred response's delivery, made at most once (a render's completion and the drain's
/// deadline may both try).
final class Delivery: @unchecked Sendable {
    private let lock = NSLock()
    private var send: (@Sendable (HTTPResponse) -> Void)?
    /// Whether the job waited for makes a file (rather than preparing a presentation).
    let forFile: Bool

    init(forFile: Bool, _ send: @escaping @Sendable (HTTPResponse) -> Void) {
        self.forFile = forFile
        self.send = send
    }

    /// Delivers unless delivered already; true when this call did.
    func deliver(_ response: HTTPResponse) -> Bool {
        let taken = lock.withLock { () -> (@Sendable (HTTPResponse) -> Void)? in
            defer { send = nil }
            return send
        }
        taken?(response)
        return taken != nil
    }
}

/// A request target from a header (a proxy's X-Original-URI): the path and the query's
/// arguments, split at `&` and `=` (values kept as sent: tokens need no escaping).
struct RequestTarget {
    let path: String
    let query: [String: String]

    init?(_ text: String) {
        guard text.hasPrefix("/") else { return nil }
        let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts[0])
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(field[0])
                if query[name] == nil { query[name] = field.count == 2 ? String(field[1]) : "" }
            }
        }
        self.query = query
    }
}
