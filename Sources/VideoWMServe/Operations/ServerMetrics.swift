import Foundation

/// The numbers `/metrics` shows, in Prometheus' text format (version 0.0.4).
public final class ServerMetrics: @unchecked Sendable {
    /// A student's own file, a shared one, or a group of shared files rendered together (a segment's variants).
    public enum RenderKind: String, Sendable, CaseIterable { case student, shared, group }

    private let lock = NSLock()
    private var requestsByStatus: [Int: UInt64] = [:]
    private var bytesSent: UInt64 = 0
    private var cacheHits: UInt64 = 0
    private var cacheMisses: UInt64 = 0
    private var renders: [RenderKind: UInt64] = [:]
    private var renderFailures: UInt64 = 0
    private var renderedAhead: UInt64 = 0
    private var lectureIndexes: UInt64 = 0
    private var rejectedFull: UInt64 = 0
    private var waitsCutShort: UInt64 = 0
    private var tokenRejections: [String: UInt64] = [:]
    private var reloadFailures: UInt64 = 0
    /// Render latency histogram: upper bounds in seconds, counts per bucket (cumulative when shown).
    static let bucketBounds: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64]
    private var renderBuckets = [UInt64](repeating: 0, count: bucketBounds.count)
    private var renderCount: UInt64 = 0
    private var renderSecondsSum: Double = 0

    public init() {}

    func requestFinished(status: Int, bytes: UInt64) {
        lock.withLock {
            requestsByStatus[status, default: 0] += 1
            bytesSent += bytes
        }
    }

    func cacheHit() { lock.withLock { cacheHits += 1 } }
    func cacheMiss() { lock.withLock { cacheMisses += 1 } }
    func renderFailed() { lock.withLock { renderFailures += 1 } }
    func aheadScheduled() { lock.withLock { renderedAhead += 1 } }
    func lectureIndexed() { lock.withLock { lectureIndexes += 1 } }
    func queueFull() { lock.withLock { rejectedFull += 1 } }
    func waitCutShort() { lock.withLock { waitsCutShort += 1 } }
    func tokenRefused(_ reason: String) { lock.withLock { tokenRejections[reason, default: 0] += 1 } }
    func reloadFailed() { lock.withLock { reloadFailures += 1 } }

    func rendered(_ kind: RenderKind, seconds: Double) {
        lock.withLock {
            renders[kind, default: 0] += 1
            renderCount += 1
            renderSecondsSum += seconds
            if let bucket = Self.bucketBounds.firstIndex(where: { seconds <= $0 }) { renderBuckets[bucket] += 1 }
        }
    }

    /// Renders of `kind` this process made (tests and the two-process check read it).
    public func renderCount(_ kind: RenderKind) -> UInt64 { lock.withLock { renders[kind, default: 0] } }

    /// What the other parts of the server count, read at the moment of the scrape.
    struct Readings {
        var queueDepth = 0, busyWorkers = 0, workers = 0
        var cacheBytes: UInt64 = 0
        var evictions = 0, damagedFiles = 0, unstoredFiles = 0
        var cacheVolumeFull = false
        var slowHeaders = 0, connections = 0, connectionLimit = 0, refusedConnections = 0
        var tokenKeys = 0, revocations = 0
        var draining = false
    }

    /// The exposition text.
    func text(_ r: Readings) -> String {
        lock.withLock {
            var lines: [String] = []
            func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
                lines.append("# HELP \(name) \(help)")
                lines.append("# TYPE \(name) \(type)")
                for sample in samples { lines.append("\(name)\(sample.labels) \(sample.value)") }
            }
            metric("videowm_http_requests_total", "counter", "HTTP requests answered, by status code.",
                   requestsByStatus.sorted { $0.key < $1.key }.map { ("{code=\"\($0.key)\"}", String($0.value)) })
            metric("videowm_http_sent_bytes_total", "counter", "Response body bytes sent.", [("", String(bytesSent))])
            metric("videowm_cache_hits_total", "counter", "Lecture files served from the cache as they were.", [("", String(cacheHits))])
            metric("videowm_cache_misses_total", "counter", "Lecture files that had to be made (or waited for) first.", [("", String(cacheMisses))])
            metric("videowm_renders_total", "counter", "Renders this process made into the cache: a student's own file, a shared file, or a group of shared files made together (a segment's variants).",
                   RenderKind.allCases.map { ("{kind=\"\($0.rawValue)\"}", String(renders[$0, default: 0])) })
            metric("videowm_render_failures_total", "counter", "Renders that failed (answered 500, nothing cached).", [("", String(renderFailures))])
            metric("videowm_render_ahead_total", "counter", "Segments queued for rendering ahead of the request.", [("", String(renderedAhead))])
            metric("videowm_render_rejected_total", "counter", "Requests answered 503 because the render queue was full.", [("", String(rejectedFull))])
            metric("videowm_render_wait_timeouts_total", "counter", "Requests answered 503 because their render took longer than --max-wait.", [("", String(waitsCutShort))])
            metric("videowm_token_rejections_total", "counter", "Requests refused for their token, by reason (revoked, expired, unknownKey, signature…).",
                   tokenRejections.sorted { $0.key < $1.key }.map { ("{reason=\"\($0.key)\"}", String($0.value)) })
            metric("videowm_token_keys", "gauge", "Token keys in force (--token-key-file).", [("", String(r.tokenKeys))])
            metric("videowm_revocations", "gauge", "Entries of the revocations file in force (jti and sub lines).", [("", String(r.revocations))])
            metric("videowm_reload_failures_total", "counter", "Re-reads of the key or revocations file that failed (what was in force was kept).", [("", String(reloadFailures))])
            metric("videowm_lecture_indexes_total", "counter", "Lecture revisions indexed.", [("", String(lectureIndexes))])
            var cumulative: UInt64 = 0
            var buckets: [(String, String)] = []
            for (bound, count) in zip(Self.bucketBounds, renderBuckets) {
                cumulative += count
                buckets.append(("{le=\"\(bound)\"}", String(cumulative)))
            }
            buckets.append(("{le=\"+Inf\"}", String(renderCount)))
            lines.append("# HELP videowm_render_seconds Time to render one file (or group), request to file in the cache.")
            lines.append("# TYPE videowm_render_seconds histogram")
            for (labels, value) in buckets { lines.append("videowm_render_seconds_bucket\(labels) \(value)") }
            lines.append("videowm_render_seconds_sum \(renderSecondsSum)")
            lines.append("videowm_render_seconds_count \(renderCount)")
            metric("videowm_render_queue_depth", "gauge", "Jobs waiting for a render worker.", [("", String(r.queueDepth))])
            metric("videowm_render_workers_busy", "gauge", "Render workers at work.", [("", String(r.busyWorkers))])
            metric("videowm_render_workers", "gauge", "Render workers (--workers).", [("", String(r.workers))])
            metric("videowm_cache_bytes", "gauge", "Bytes in the cache folder, as last counted.", [("", String(r.cacheBytes))])
            metric("videowm_cache_evictions_total", "counter", "Files removed to keep the cache under --cache-size or to make room on a full volume.", [("", String(r.evictions))])
            metric("videowm_cache_volume_full", "gauge", "1 while the cache volume has no room for a rendered file even after eviction.", [("", r.cacheVolumeFull ? "1" : "0")])
            metric("videowm_cache_unstored_total", "counter", "Rendered files answered from memory because they could not be stored.", [("", String(r.unstoredFiles))])
            metric("videowm_cache_damaged_total", "counter", "Cached files found truncated or altered (against their recorded length and SHA-256) and rendered again.", [("", String(r.damagedFiles))])
            metric("videowm_http_connections", "gauge", "Connections open.", [("", String(r.connections))])
            metric("videowm_http_connection_limit", "gauge", "Connections allowed at once (--max-connections, or fewer when file descriptors are short).", [("", String(r.connectionLimit))])
            metric("videowm_http_connections_refused_total", "counter", "Connections closed at once for arriving past the limit.", [("", String(r.refusedConnections))])
            metric("videowm_slow_header_cutoffs_total", "counter", "Connections cut off for taking too long to send a request header.", [("", String(r.slowHeaders))])
            metric("videowm_draining", "gauge", "1 while the server finishes its requests before exiting.", [("", r.draining ? "1" : "0")])
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
