import Animation
import Foundation
import Overlay

/// Writes whole copies of a lecture with renditions (docs/design/hls.md §15), a variant layer's or not:
/// copies written `writing.group` at a time in one pass over the input each (`LadderWriter`), and
/// every file students share — each rendition's unmarked segments and initialization segment,
/// audio, captions and their playlists — in the shared folder, made once per run and stored once.
///
/// With a variant layer (issue 29, docs/design/variant-marks.md §6): every rendition encoded and cut
/// every period, each segment's q variants of every rendition rendered once and shared (the
/// segment decoded once for all of them), each copy's codeword derived from the key, its playlists
/// listing its codeword's variant in every rendition and its own segments where its own marks show.
enum LadderCopies {
    /// - Parameter makeRow: a student's row from their variables (the lecture's `makeRow`).
    static func write(_ requests: [CopyRequest], of ladder: LectureLadder, definition: LectureDefinition, config: WatermarkConfig,
                      images: ImageCache, code: VariantCode?, notices: OnceNotices, makeRow: ([String: String]) throws -> LadderRow,
                      _ writing: CopyWriting) throws -> PresentationSummary {
        let jobValues = definition.jobValues
        let values = { (request: CopyRequest) in jobValues.merging(request.variables) { _, given in given } }
        let sharedFolder = try writing.sharedFolder.map(Lecture.createSharedFolder)
        if let notice = VideoSource.timestampJumpNotice(path: ladder.source.input, jumps: ladder.source.index.timestampJumps) { notices.say(notice) }
        let shared = LadderWriter.SharedFiles()
        if let code {
            // Every variant some copy lists is stored with the first render of its segment (a copy
            // that cannot be bound lists nothing: it fails in its group).
            var listed = [Set<Int>](repeating: [], count: ladder.segments.count)
            for request in requests {
                guard let codeword = try? code.codeword(variables: request.variables, config: config),
                      let compositor = try? Compositor.forJob(config: config, variables: values(request), images: images, warn: { _ in })
                else { continue }
                for (k, isOwn) in ladder.ownSegments(markedBy: compositor).enumerated() where !isOwn { listed[k].insert(codeword[k]) }
            }
            shared.listedVariants = listed
        }
        var total = PresentationSummary(videoFrames: 0, damagedPackets: 0)
        for start in stride(from: 0, to: requests.count, by: writing.group) {
            try Interruption.throwIfRequested()
            var members: [(request: Int, student: LadderWriter.Student)] = []
            for n in start..<min(start + writing.group, requests.count) {
                do {
                    let row = try makeRow(requests[n].variables)
                    if writing.createsFolders { try requests[n].createFolder() }
                    let folder = try LadderFolder(multivariant: requests[n].target.path, overwrite: writing.overwrite,
                                                  inputs: [definition.video] + definition.captions.map(\.file), sharedFolder: sharedFolder, warn: notices.say)
                    folder.protection = writing.protection
                    members.append((n, LadderWriter.Student(row: row, folder: folder)))
                } catch {
                    try Lecture.rethrowingStops(error) { try writing.onFailed(n, error) }
                }
            }
            guard !members.isEmpty else { continue }
            for member in members { writing.onStarted(member.request, member.student.row.outcome) }
            let summary = try LadderWriter.write(members.map(\.student), lecture: ladder, shared: shared, onFailed: { position, error in
                try writing.onFailed(members[position].request, error)
            }, onWritten: { position in
                let member = members[position]
                try writing.onWritten(member.request, CopyReport(outcome: member.student.row.outcome, bytes: member.student.folder.bytesAdded))
            }, progress: writing.progress)
            total.videoFrames = max(total.videoFrames, summary.videoFrames)
            total.damagedPackets += summary.damagedPackets
        }
        return total
    }
}
