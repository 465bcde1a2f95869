import Foundation
import ServeCache
import VideoWM

/// How a lecture's files are made on the render pool's workers and kept in the cache, for a
/// request, a render ahead or `--warm` alike: the same resource always gets the same cache key
/// and the same pool key, so whoever asks second joins the job already under way (in this
/// process) or waits on its lock (in another).
struct FileMaking: Sendable {
    let cache: SegmentCache
    let metrics: ServerMetrics
    let log: ServerLog

    /// The cache path of a resource: its URL path under /v1/, so every process agrees.
    static func cacheKey(_ route: LectureRoute, lecture: String) -> String {
        String(route.path(lecture: lecture).dropFirst("/v1/".count))
    }

    /// A file made alone under its own cache key, or with the files of its render group (a
    /// segment's variants) under the group's key, so requests for any member join one job.
    ///
    /// An encrypted lecture's media segments are encrypted here, before the cache keeps them, each
    /// with the IV its cache key names (`LectureEncryption`): the cache, a render ahead and
    /// `--warm` hold what is served, and the clear bytes never reach a disk.
    ///
    /// - Parameters:
    ///   - route: the route of each file (the resource's, a group member's), from its typed value.
    ///   - whose: for the log line of a failure ("shared", "student 3f2a…").
    ///   - encryption: the lecture's, nil for a lecture served in the clear.
    func job(lecture: String, _ resource: Resource, group: RenderGroup?, kind: ServerMetrics.RenderKind, whose: String,
             route: (Resource) -> LectureRoute, encryption: LectureEncryption?, render: @escaping @Sendable () throws -> [UInt8],
             renderGroup: @escaping @Sendable (RenderGroup) throws -> [[UInt8]]) -> RenderJob {
        let key = Self.cacheKey(route(resource), lecture: lecture)
        guard let group else {
            let served: @Sendable () throws -> [UInt8] = if let encryption, LectureEncryption.encrypts(resource) {
                { try encryption.encrypt(try render(), name: key) }
            } else {
                render
            }
            return RenderJob(fileKey: key, poolKey: key, work: { [self] in
                .file(try produce(key, kind: kind, failure: "lecture \(lecture), segment \(resource) (\(whose))", render: served))
            })
        }
        let keys = group.members.map { Self.cacheKey(route($0), lecture: lecture) }
        let encrypted = group.members.map { encryption != nil && LectureEncryption.encrypts($0) }
        // One component more than any file's key (RENDITION/GROUP/group): never a file's key or lock.
        let groupKey = Self.cacheKey(route(resource).naming(group), lecture: lecture) + "/group"
        let failure = "lecture \(lecture), segment \(group.rendition)/\(group.name) (\(whose), \(group.members.count) files made together)"
        return RenderJob(fileKey: key, poolKey: groupKey, work: { [self] in
            .files(try produceGroup(groupKey, keys: keys, failure: failure) {
                let files = try renderGroup(group)
                guard let encryption else { return files }
                return try zip(files, zip(keys, encrypted)).map { file, named in named.1 ? try encryption.encrypt(file, name: named.0) : file }
            })
        })
    }

    /// Makes the file (or finds it made, by this process or another) on a render worker.
    private func produce(_ key: String, kind: ServerMetrics.RenderKind, failure: String, render: () throws -> [UInt8]) throws -> CacheItem {
        let started = ConnectionWatchdog.now()
        do {
            let made = try cache.produce(key, render: render)
            if made.rendered { metrics.rendered(kind, seconds: ConnectionWatchdog.now() - started) }
            return made.item
        } catch {
            metrics.renderFailed()
            log.event("render failed: \(failure): \(error)")
            throw error
        }
    }

    /// Makes a group's files (or finds them made) on a render worker: each file's by its cache key.
    private func produceGroup(_ groupKey: String, keys: [String], failure: String, render: () throws -> [[UInt8]]) throws -> [String: CacheItem] {
        let started = ConnectionWatchdog.now()
        do {
            let made = try cache.produceGroup(groupKey, keys: keys, render: render)
            if made.rendered { metrics.rendered(.group, seconds: ConnectionWatchdog.now() - started) }
            return Dictionary(zip(keys, made.items)) { first, _ in first }
        } catch {
            metrics.renderFailed()
            log.event("render failed: \(failure): \(error)")
            throw error
        }
    }
}

/// What a job of the server's render pool makes: a student's copy (a preparation: the lecture
/// prepared and the student's variables bound), a file, or a render group's files by cache key.
enum ServeJobProduct: Sendable {
    case copy(any StudentCopy)
    case lecture(any PreparedLecture)
    case file(CacheItem)
    case files([String: CacheItem])
}

/// The server's pool: its jobs make `ServeJobProduct`s.
typealias ServePool = RenderPool<ServeJobProduct>

/// How a file is made on a worker (`FileMaking.job`).
struct RenderJob: Sendable {
    /// The file's cache key.
    let fileKey: String
    /// The pool's key for the job: the file's, or its group's.
    let poolKey: String
    let work: @Sendable () throws -> ServeJobProduct

    /// The file asked for, from what the job made (a file, or a group's files by key).
    func file(in product: ServeJobProduct) -> CacheItem? {
        switch product {
        case .file(let file): file
        case .files(let files): files[fileKey]
        case .copy, .lecture: nil
        }
    }
}
