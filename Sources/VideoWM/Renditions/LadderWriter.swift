import Animation
import Foundation

/// Writes whole ladders: the students of one group together, in one pass over the input
/// (`SegmentMaker`): each segment's packets read once, its GOPs decoded once for every encoder
/// that needs its pictures — each encoded rendition's clean encode where some student shows no
/// mark, and each student's marked encode of every rendition where theirs shows — and every
/// shared file made once per run and published once (docs/design/hls.md §15).
///
/// With a variant layer (issue 29), a video rendition's shared files of a segment are its q
/// variants, rendered in the pass that first needs one of them (the segment decoded once for
/// every rendition's q encoders) and padded to one size (`LectureLadder.sharedFiles`); each
/// student lists their codeword's variant in every rendition.
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

    /// A shared segment's place: its rendition, index and variant (0 but in a variant ladder's
    /// video renditions).
    struct SharedKey: Hashable {
        let rendition: String
        let segment: Int
        var variant = 0
    }

    /// The shared files published in this run, so that a later group does not make them again.
    final class SharedFiles {
        /// Each shared media or caption segment: the file's name in the shared place and its size.
        var segments: [SharedKey: (name: String, size: Int)] = [:]
        var initializations: [String: String] = [:]
        var playlists: [String: String] = [:]
        /// A variant ladder's: per segment, the variants some row of the whole batch lists there
        /// (known before writing). They are stored when the segment's variants are first
        /// rendered, so a later group finds its own there. Nil: those the group lists.
        var listedVariants: [Set<Int>]?
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
        // The rows of the one pass: the lecture's rows of every video rendition (its clean row, or
        // a variant ladder's q variants) and audio rendition, then each student's.
        var rows: [PresentationRow] = []
        var sharedRows: [String: [Int]] = [:]
        var studentRow: [Int: [String: Int]] = [:]
        do {
            for id in videoIDs + audioIDs {
                let made = videoIDs.contains(id) ? try lecture.sharedVideoRows(id) : [try lecture.sharedRow(id)]
                sharedRows[id] = Array(rows.count..<rows.count + made.count)
                rows += made
            }
        } catch {
            for student in students { student.folder.abandon() }
            throw error
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
        /// The shared variants of segment `k` the group's students list (0 without a variant layer).
        func listed(_ k: Int) -> Set<Int> {
            Set(active.filter { !students[$0].row.marked[k] }.map { students[$0].row.variant(at: k) })
        }
        /// Whether video rendition `id`'s shared rows render segment `k`: a listed variant of it
        /// is not stored yet, or segment 0's initialization segment is not.
        func rendersShared(_ id: String, _ k: Int) -> Bool {
            listed(k).contains { shared.segments[SharedKey(rendition: id, segment: k, variant: $0)] == nil }
                || (k == 0 && shared.initializations[id] == nil)
        }
        // An encoded ladder's pass that renders no shared video (a later group: its students' own
        // segments alone) seeks to each of those; otherwise one run of the decoder through the
        // video decodes each GOP once. The bytes are the same either way (docs/design/hls.md §13).
        let seeking = plan.rendering == .encoded && !(0..<plan.segmentCount).contains { k in videoIDs.contains { rendersShared($0, k) } }
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
        func sharedFile(_ id: String, _ k: Int) throws -> (name: String, size: Int) {
            try shared.segments.entry(SharedKey(rendition: id, segment: k), "shared segment \(k) of rendition \(id)")
        }
        do {
            for k in 0..<plan.segmentCount where !active.isEmpty {
                for id in captionIDs where shared.segments[SharedKey(rendition: id, segment: k)] == nil {
                    let bytes = try lecture.captions(of: id)[k].bytes
                    shared.segments[SharedKey(rendition: id, segment: k)] = (try publishShared(bytes, id: id, kind: .captions), bytes.count)
                }
                let listedHere = listed(k)
                var asked = Set<Int>()
                for id in videoIDs where rendersShared(id, k) {
                    asked.formUnion(try sharedRows.entry(id, "the shared rows of rendition \(id)"))
                }
                for id in audioIDs where shared.segments[SharedKey(rendition: id, segment: k)] == nil || (k == 0 && shared.initializations[id] == nil) {
                    asked.formUnion(try sharedRows.entry(id, "the shared rows of rendition \(id)"))
                }
                for s in active where students[s].row.marked[k] {
                    for (_, n) in studentRow[s] ?? [:] { asked.insert(n) }
                }
                frames += plan.positions[k].count
                // Seeking, a segment nobody needs is not even read.
                if seeking && asked.isEmpty {
                    progress(plan.time(plan.end(of: k)), frames)
                    continue
                }
                let made = try maker.render(segment: k, seeking: seeking, keepingPackets: k == 0, only: asked)
                // The lecture's files: a failure here is the input's, every student's.
                for id in videoIDs + audioIDs {
                    let members = try sharedRows.entry(id, "the shared rows of rendition \(id)")
                    let results = members.compactMap { made[$0] }
                    guard !results.isEmpty else { continue }
                    let segments = try results.map { try $0.get() }
                    if k == 0 && shared.initializations[id] == nil {
                        let bytes = try rows[members[0]].initializationSegment(firstSegmentPackets: segments[0].packets).bytes
                        lecture.remember(initialization: bytes, of: id)
                        shared.initializations[id] = try publishShared(bytes, id: id, kind: .initialization)
                    }
                    let isVideo = videoIDs.contains(id)
                    let files = isVideo ? lecture.sharedFiles(segments.map(\.segment.bytes)) : [segments[0].segment.bytes]
                    // Stored: what some student lists (a video segment every student of the group
                    // marks was made only for the initialization segment, and is not), and of a
                    // variant ladder's the variants the batch's other rows list.
                    let stored = isVideo ? listedHere.union(shared.listedVariants?[k] ?? []) : [0]
                    for v in stored.sorted() where shared.segments[SharedKey(rendition: id, segment: k, variant: v)] == nil {
                        let name = try publishShared(files[v], id: id, kind: .segment)
                        shared.segments[SharedKey(rendition: id, segment: k, variant: v)] = (name, files[v].count)
                        lecture.remember(size: files[v].count, of: id, segment: k)
                    }
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
                progress(plan.time(plan.end(of: k)), frames)
            }
            // The shared playlists (audio, captions), once every segment they list is there.
            let sampleRow = students[active.first ?? 0].row
            for id in audioIDs + captionIDs where shared.playlists[id] == nil {
                let text = try sampleRow.mediaPlaylist(rendition: id, initializationURI: shared.initializations[id],
                                                       segmentURI: { try sharedFile(id, $0.index).name })
                shared.playlists[id] = try publishShared(Array((folder.protection?.tagged(mediaPlaylist: text) ?? text).utf8), id: id, kind: .playlist)
            }
            for s in active {
                let student = students[s]
                do {
                    var playlistNames: [String: String] = [:]
                    var rates: [String: SegmentBitRates] = [:]
                    for id in videoIDs {
                        let segments = student.row.segments(of: id)
                        func file(_ segment: LadderSegment) throws -> (uri: String, size: Int) {
                            if segment.isShared, let known = shared.segments[SharedKey(rendition: id, segment: segment.index, variant: segment.variant)] {
                                return (student.folder.uri(shared: known.name), known.size)
                            }
                            let mine = try own[s].entry(id, "student \(s)'s segments of rendition \(id)").entry(segment.index, "student \(s)'s segment \(segment.index) of rendition \(id)")
                            return (student.folder.uri(own: mine.name), mine.size)
                        }
                        let initialization = try shared.initializations.entry(id, "the initialization segment of rendition \(id)")
                        let text = try student.row.mediaPlaylist(rendition: id, initializationURI: student.folder.uri(shared: initialization),
                                                                 segmentURI: { try file($0).uri })
                        let tagged = student.folder.protection?.tagged(mediaPlaylist: text) ?? text
                        playlistNames[id] = try student.folder.publishOwn(Array(tagged.utf8), rendition: id, kind: .playlist).name
                        rates[id] = SegmentBitRates(segments: try segments.map { .init(bytes: try file($0).size, duration: $0.duration) },
                                                    targetDurationSeconds: lecture.targetDurationSeconds)
                    }
                    for id in audioIDs + captionIDs {
                        let sizes = try student.row.segments(of: id).map { segment in
                            SegmentBitRates.Sample(bytes: try sharedFile(id, segment.index).size, duration: segment.duration)
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

    /// Makes every shared segment of renditions `ids` (video and audio) in one pass, handing each
    /// to `onSegment` (a variant ladder's video segment: its variant 0, of the size of every variant).
    static func makeShared(of lecture: LectureLadder, renditions ids: [String], onSegment: (String, Int, [UInt8]) throws -> Void) throws {
        var rows: [PresentationRow] = []
        var rowsOf: [[Int]] = []
        for id in ids {
            let shared = lecture.rendition(id, of: [.video, .audio]).kind == .video ? try lecture.sharedVideoRows(id) : [try lecture.sharedRow(id)]
            rowsOf.append(Array(rows.count..<rows.count + shared.count))
            rows += shared
        }
        let maker = try SegmentMaker(source: lecture.source, plan: lecture.plan, rows: rows)
        for k in 0..<lecture.plan.segmentCount {
            let made = try maker.render(segment: k, seeking: false, keepingPackets: false)
            for (id, members) in zip(ids, rowsOf) {
                let renders = try members.map { try made[$0].get().segment.bytes }
                try onSegment(id, k, lecture.rendition(id, of: [.video, .audio]).kind == .video ? lecture.sharedFiles(renders)[0] : renders[0])
            }
        }
    }
}
