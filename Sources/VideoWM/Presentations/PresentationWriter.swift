import Animation
import Foundation

/// Where a presentation's files go. A folder for transcode and batch (`PresentationFolder`:
/// write-once, content-named, atomic publication, the playlist last); a server keeps the bytes
/// its own way.
public protocol PresentationStorage: AnyObject {
    /// Stores the initialization segment; returns the URI the playlist names it by.
    func store(initialization: RenderedInitialization) throws -> String
    /// Stores a media segment; returns its URI.
    func store(segment: RenderedSegment) throws -> String
    /// Last: the playlist itself.
    func commit(playlist: String) throws
    /// Gives the presentation up: what this run added of its own goes; shared files stay.
    func abandon()
}

extension PresentationFolder: PresentationStorage {
    public func store(initialization: RenderedInitialization) throws -> String {
        try publishInitialization(initialization.bytes, shared: initialization.isShared)
    }

    public func store(segment: RenderedSegment) throws -> String {
        try publishSegment(segment.bytes, shared: segment.isShared)
    }
}

/// What writing a presentation made.
public struct PresentationSummary: Sendable {
    /// Video samples written (every picture of the presentation).
    public var videoFrames: Int
    /// Damaged packets or pictures the decoder concealed.
    public var damagedPackets: Int
}

/// Writes whole presentations: every segment of each row in order, through the same
/// `SegmentMaker` a single segment is made with, each stored as it is made, the playlist last.
public enum PresentationWriter {
    /// Writes `row`'s presentation into `storage`. `progress` hears the end of each segment written.
    public static func write(_ row: PresentationRow, to storage: PresentationStorage,
                             progress: (PresentationTime, Int) -> Void = { _, _ in }) throws -> PresentationSummary {
        var failure: Error?
        let summary = try write([(row, storage)], onRowFailed: { _, error in failure = error }, progress: progress)
        if let failure { throw failure }
        return summary
    }

    /// Writes the presentations of `rows` (one plan) together: each segment's packets read once,
    /// its GOPs decoded once for every row that re-encodes it, a shared segment made once. A row
    /// whose own work fails is abandoned alone (`onRowFailed`); the others go on. An error of the
    /// input itself, or an interrupt, abandons every row and is thrown.
    static func write(_ rows: [(row: PresentationRow, storage: PresentationStorage)], onRowFailed: (Int, Error) throws -> Void,
                      onRowWritten: (Int) throws -> Void = { _ in }, progress: (PresentationTime, Int) -> Void = { _, _ in }) throws -> PresentationSummary {
        guard let first = rows.first?.row else { return PresentationSummary(videoFrames: 0, damagedPackets: 0) }
        let plan = first.plan
        var active = Array(rows.indices)
        var uris = [[String]](repeating: [], count: rows.count)
        var initializationURIs = [String](repeating: "", count: rows.count)
        var frames = 0
        let maker: SegmentMaker
        do {
            maker = try SegmentMaker(source: first.source, plan: plan, rows: rows.map(\.row))
        } catch {
            for (_, storage) in rows { storage.abandon() }
            throw error
        }
        func fail(_ n: Int, _ error: Error) throws {
            active.removeAll { $0 == n }
            rows[n].storage.abandon()
            try onRowFailed(n, error)
        }
        do {
            for k in 0..<plan.segmentCount where !active.isEmpty {
                let made = try maker.render(segment: k, seeking: false, keepingPackets: k == 0)
                var counted = false
                for n in active {
                    do {
                        let result = try made[n].get()
                        let (row, storage) = rows[n]
                        if k == 0 {
                            initializationURIs[n] = try storage.store(initialization: try row.initializationSegment(firstSegmentPackets: result.packets))
                        }
                        uris[n].append(try storage.store(segment: result.segment))
                        if !counted {
                            frames += result.segment.videoSamples
                            counted = true
                        }
                    } catch let error as InterruptedError {
                        throw error
                    } catch {
                        try fail(n, error)
                    }
                }
                progress(plan.time(plan.end(of: k)), frames)
            }
            for n in active {
                do {
                    let (row, storage) = rows[n]
                    try storage.commit(playlist: row.playlist(initializationURI: initializationURIs[n], uri: { uris[n][$0.index] }))
                } catch let error as InterruptedError {
                    throw error
                } catch {
                    try fail(n, error)
                    continue
                }
                try onRowWritten(n)
            }
        } catch {
            for n in active { rows[n].storage.abandon() }
            throw error
        }
        return PresentationSummary(videoFrames: frames, damagedPackets: maker.damagedPackets)
    }
}
