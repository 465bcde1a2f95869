import Foundation
import Overlay

extension BatchRunner {
    /// The rows writing ladders (`--ladder`/`--subtitles`, docs/hls.md §15): the lecture prepared
    /// once (`LectureLadder`: the input indexed, the ladder resolved, captions read), rows written
    /// `-j` at a time in one pass over the input each, and every file students share — each
    /// rendition's unmarked segments and initialization segment, audio, captions and their
    /// playlists — in the shared folder (`--shared-segments`, else `shared-segments` beside the
    /// outputs), made once per run and stored once.
    func runLadders(_ rows: [BatchRow], ladder: LadderOptions, images: ImageCache, outputsPerDecode: Int, tracker: BatchProgressTracker,
                    report: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws {
        let lecture = try LectureLadder(input: input, ladder: ladder.request, subtitles: ladder.subtitles, settings: settings,
                                        segment: hls.segmentDuration, damagePolicy: damagePolicy, render: render, warn: warn)
        let folder = try createSharedFolder()
        if let notice = VideoSource.timestampJumpNotice(path: input, jumps: lecture.source.index.timestampJumps) { warn(notice) }
        let shared = LadderWriter.SharedFiles()
        for start in stride(from: 0, to: rows.count, by: outputsPerDecode) {
            try Interruption.throwIfRequested()
            try writeLadders(Array(rows[start..<min(start + outputsPerDecode, rows.count)]), lecture: lecture, shared: shared, sharedFolder: folder,
                             images: images, tracker: tracker, report: report, onProgress: onProgress)
        }
    }

    /// One group of rows, written together.
    private func writeLadders(_ group: [BatchRow], lecture: LectureLadder, shared: LadderWriter.SharedFiles, sharedFolder: String,
                              images: ImageCache, tracker: BatchProgressTracker, report: (BatchRowResult) throws -> Void,
                              onProgress: (BatchProgress) -> Void) throws {
        let started = Date()
        var members: [(batchRow: BatchRow, student: LadderWriter.Student)] = []
        var reported = Set<Int>()
        func finish(_ row: BatchRow, _ error: Error?) throws {
            guard reported.insert(row.number).inserted else { return }
            // An interrupt, or a report that cannot be written, stops the batch; it is no row's failure.
            if let error = error as? InterruptedError { throw error }
            if let error = error as? StopBatch { throw error }
            let student = members.first { $0.batchRow.number == row.number }?.student
            try report(BatchRowResult(row: row, status: error == nil ? .done : .failed, seconds: Date().timeIntervalSince(started), error: error,
                                      render: error == nil ? student?.row.outcome : nil, bytes: student?.folder.bytesAdded))
        }
        for batchRow in group {
            do {
                let compositor = try Compositor.forJob(config: config, variables: batchRow.variables, images: images, warn: warn)
                let row = try lecture.student(compositor: compositor, warn: warn)
                try batchRow.createFolder()
                let folder = try LadderFolder(multivariant: batchRow.output, overwrite: force, inputs: [input] + (ladder?.subtitles.map(\.file) ?? []),
                                              sharedFolder: sharedFolder, warn: warn)
                members.append((batchRow, LadderWriter.Student(row: row, folder: folder)))
            } catch {
                try finish(batchRow, error)
            }
        }
        try writeGroup(of: members.map(\.batchRow), finish: finish, tracker: tracker, onProgress: onProgress) { failed, written, progress in
            try LadderWriter.write(members.map(\.student), lecture: lecture, shared: shared, onFailed: failed, onWritten: written, progress: progress)
        }
    }
}
