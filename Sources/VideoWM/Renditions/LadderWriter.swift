import Animation
import Foundation

/// Writes whole ladders: the students of one group together, in one pass over the input
/// (`SegmentMaker`): each segment's packets read once, its GOPs decoded once for every encoder
/// that needs its pictures — each encoded rendition's clean encode where some student shows no
/// mark, and each student's marked encode of every rendition where theirs shows — and every
/// shared file made once per run and published once (docs/hls.md §15).
///
/// Publication order (each file complete before anything lists it): per segment, every
/// rendition's segment (and at segment 0 the initialization segments); then the audio and
/// caption playlists (shared); then each student's video playlists; the multivariant playlist last.
enum LadderWriter {
    /// One student of a group: its ladder and where it goes.
    struct Student {
        let row: LadderRow
        let folder: LadderFolder
    }

    /// The shared files published in this run, so that a later group does not make them again.
    final class SharedFiles {
        /// By rendition id, per segment: the file's name in the shared place and its size.
        var segments: [String: [Int: (name: String, size: Int)]] = [:]
        var initializations: [String: String] = [:]
        var playlists: [String: String] = [:]
    }

    /// Writes the students' ladders. A student whose own work fails is abandoned alone
    /// (`onFailed`); an error of the input itself, or an interrupt, abandons every one and is thrown.
    static func write(_ students: [Student], lecture: LectureLadder, shared: SharedFiles, onFailed: (Int, Error) throws -> Void,
                      onWritten: (Int) throws -> Void = { _ in }, progress: (PresentationTime, Int) -> Void = { _, _ in }) throws -> PresentationSummary {
        guard let first = students.first else { return PresentationSummary(videoFrames: 0, damagedPackets: 0) }
        let plan = lecture.plan
        let videoIDs = lecture.renditions.filter { $0.kind == .video }.map(\.id)
        let audioIDs = lecture.renditions.filter { $0.kind == .audio }.map(\.id)
        let captionIDs = lecture.renditions.filter { $0.kind == .subtitles }.map(\.id)
        // The rows of the one pass: the lecture's rows of every video and audio rendition, then each student's.
        var rows: [PresentationRow] = []
        var sharedRow: [String: Int] = [:]
        var studentRow: [Int: [String: Int]] = [:]
        for id in videoIDs + audioIDs {
            sharedRow[id] = rows.count
            rows.append(try lecture.sharedRow(id))
        }
        for (s, student) in students.enumerated() {
            for id in videoIDs {
                guard let row = student.row.videoRows[id] else { continue }
                studentRow[s, default: [:]][id] = rows.count
                rows.append(row)
            }
        }
        var active = Array(students.indices)
        /// Own segment names and sizes, per student and rendition.
        var own = [[String: [Int: (name: String, size: Int)]]](repeating: [:], count: students.count)
        let maker: SegmentMaker
        do {
            maker = try SegmentMaker(source: lecture.source, plan: plan, rows: rows)
        } catch {
            for student in students { student.folder.abandon() }
            throw error
        }
        let folder = first.folder
        var frames = 0
        func fail(_ s: Int, _ error: Error) throws {
            active.removeAll { $0 == s }
            students[s].folder.abandon()
            try onFailed(s, error)
        }
        // Shared files go out through the group's first folder (their bytes count to its student).
        func publishShared(_ bytes: [UInt8], id: String, kind: LadderFolder.FileKind) throws -> String {
            try folder.publishShared(bytes, rendition: id, kind: kind).name
        }
        do {
            for k in 0..<plan.segmentCount where !active.isEmpty {
                let someoneUnmarked = active.contains { !students[$0].row.marked[k] }
                var asked = Set<Int>()
                for id in videoIDs where shared.segments[id]?[k] == nil && (someoneUnmarked || (k == 0 && shared.initializations[id] == nil)) {
                    asked.insert(try sharedRow.entry(id, "the shared row of rendition \(id)"))
                }
                for id in audioIDs where shared.segments[id]?[k] == nil || (k == 0 && shared.initializations[id] == nil) {
                    asked.insert(try sharedRow.entry(id, "the shared row of rendition \(id)"))
                }
                for s in active where students[s].row.marked[k] {
                    for (_, n) in studentRow[s] ?? [:] { asked.insert(n) }
                }
                let made = try maker.render(segment: k, seeking: false, keepingPackets: k == 0, only: asked)
                // The lecture's files: a failure here is the input's, every student's.
                for id in videoIDs + audioIDs {
                    let row = try sharedRow.entry(id, "the shared row of rendition \(id)")
                    guard let result = made[row] else { continue }
                    let segment = try result.get()
                    if k == 0 && shared.initializations[id] == nil {
                        let bytes = try rows[row].initializationSegment(firstSegmentPackets: segment.packets).bytes
                        lecture.remember(initialization: bytes, of: id)
                        shared.initializations[id] = try publishShared(bytes, id: id, kind: .initialization)
                    }
                    // A video segment every student of the group marks was made only for the
                    // initialization segment: nobody lists it, so it is not stored.
                    let listed = audioIDs.contains(id) || someoneUnmarked
                    if listed && shared.segments[id]?[k] == nil {
                        let name = try publishShared(segment.segment.bytes, id: id, kind: .segment)
                        shared.segments[id, default: [:]][k] = (name, segment.segment.bytes.count)
                        lecture.remember(size: segment.segment.bytes.count, of: id, segment: k)
                    }
                }
                for id in captionIDs where shared.segments[id]?[k] == nil {
                    let bytes = try lecture.captions(of: id)[k].bytes
                    shared.segments[id, default: [:]][k] = (try publishShared(bytes, id: id, kind: .captions), bytes.count)
                }
                for s in active {
                    do {
                        for (id, n) in studentRow[s] ?? [:] where students[s].row.marked[k] {
                            guard let result = made[n] else { continue }
                            let segment = try result.get().segment
                            let (name, _) = try students[s].folder.publishOwn(segment.bytes, rendition: id, kind: .segment)
                            own[s][id, default: [:]][k] = (name, segment.bytes.count)
                        }
                    } catch let error as InterruptedError {
                        throw error
                    } catch {
                        try fail(s, error)
                    }
                }
                frames += plan.positions[k].count
                progress(plan.time(plan.end(of: k)), frames)
            }
            // The shared playlists (audio, captions), once every segment they list is there.
            let sampleRow = students[active.first ?? 0].row
            for id in audioIDs + captionIDs where shared.playlists[id] == nil {
                let text = try sampleRow.mediaPlaylist(rendition: id, initializationURI: shared.initializations[id],
                                                   segmentURI: { try shared.segments.entry(id, "shared segments of rendition \(id)").entry($0.index, "shared segment \($0.index) of rendition \(id)").name })
                shared.playlists[id] = try publishShared(Array(text.utf8), id: id, kind: .playlist)
            }
            for s in active {
                let student = students[s]
                do {
                    var playlistNames: [String: String] = [:]
                    var rates: [String: SegmentBitRates] = [:]
                    for id in videoIDs {
                        let segments = student.row.segments(of: id)
                        func file(_ segment: LadderSegment) throws -> (uri: String, size: Int) {
                            if segment.isShared, let known = shared.segments[id]?[segment.index] { return (student.folder.uri(shared: known.name), known.size) }
                            let mine = try own[s].entry(id, "student \(s)'s segments of rendition \(id)").entry(segment.index, "student \(s)'s segment \(segment.index) of rendition \(id)")
                            return (student.folder.uri(own: mine.name), mine.size)
                        }
                        let initialization = try shared.initializations.entry(id, "the initialization segment of rendition \(id)")
                        let text = try student.row.mediaPlaylist(rendition: id, initializationURI: student.folder.uri(shared: initialization),
                                                                 segmentURI: { try file($0).uri })
                        playlistNames[id] = try student.folder.publishOwn(Array(text.utf8), rendition: id, kind: .playlist).name
                        rates[id] = SegmentBitRates(segments: try segments.map { .init(bytes: try file($0).size, duration: $0.duration) },
                                                    targetDurationSeconds: lecture.targetDurationSeconds)
                    }
                    for id in audioIDs + captionIDs {
                        let sizes = try student.row.segments(of: id).map { segment in
                            SegmentBitRates.Sample(bytes: try shared.segments.entry(id, "shared segments of rendition \(id)")
                                .entry(segment.index, "shared segment \(segment.index) of rendition \(id)").size, duration: segment.duration)
                        }
                        rates[id] = SegmentBitRates(segments: sizes, targetDurationSeconds: lecture.targetDurationSeconds)
                    }
                    let text = try student.row.multivariantPlaylist(uri: { rendition in
                        rendition.kind == .video ? student.folder.uri(own: try playlistNames.entry(rendition.id, "the playlist of rendition \(rendition.id)"))
                                                  : student.folder.uri(shared: try shared.playlists.entry(rendition.id, "the shared playlist of rendition \(rendition.id)"))
                    }, bitRates: { try rates.entry($0.id, "the rates of rendition \($0.id)") })
                    try student.folder.commit(multivariant: text)
                } catch let error as InterruptedError {
                    throw error
                } catch {
                    try fail(s, error)
                    continue
                }
                try onWritten(s)
            }
        } catch {
            for s in active { students[s].folder.abandon() }
            throw error
        }
        return PresentationSummary(videoFrames: frames, damagedPackets: maker.damagedPackets)
    }

    /// Makes every shared segment of renditions `ids` (video and audio) in one pass, handing each to `onSegment`.
    static func makeShared(of lecture: LectureLadder, renditions ids: [String], onSegment: (String, Int, [UInt8]) throws -> Void) throws {
        let rows = try ids.map { try lecture.sharedRow($0) }
        let maker = try SegmentMaker(source: lecture.source, plan: lecture.plan, rows: rows)
        for k in 0..<lecture.plan.segmentCount {
            let made = try maker.render(segment: k, seeking: false, keepingPackets: false)
            for (n, id) in ids.enumerated() { try onSegment(id, k, try made[n].get().segment.bytes) }
        }
    }
}
