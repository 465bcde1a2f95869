import Foundation
import Overlay

extension BatchRunner {
    /// The rows writing ladders (`--ladder`/`--subtitles`, docs/design/hls.md §15): the lecture prepared
    /// once (`LectureLadder`: the input indexed, the ladder resolved, captions read), rows written
    /// `-j` at a time in one pass over the input each, and every file students share — each
    /// rendition's unmarked segments and initialization segment, audio, captions and their
    /// playlists — in the shared folder (`--shared-segments`, else `shared-segments` beside the
    /// outputs), made once per run and stored once.
    ///
    /// With a variant layer (issue 29, docs/design/variant-marks.md §6): every rendition encoded and cut
    /// every period, each segment's q variants of every rendition rendered once and shared (the
    /// segment decoded once for all of them), each row's codeword derived from the key as a
    /// single-rendition batch derives it, its playlists listing its codeword's variant in every
    /// rendition and its own segments where its own marks show.
    func runLadders(_ rows: [BatchRow], ladder: LadderOptions, images: ImageCache, outputsPerDecode: Int, tracker: BatchProgressTracker,
                    report: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws {
        // The variant layer as the first row binds it, as `runVariantLecture` binds it.
        let variantLayer = config.variantLayer == nil ? nil : VariantLayerSource.binding(config, variables: rows[0].variables, images: images)
        let lecture = try LectureLadder(input: input, ladder: ladder.request, subtitles: ladder.subtitles, settings: settings,
                                        segment: hls.segmentDuration, damagePolicy: damagePolicy, render: render, variantLayer: variantLayer, warn: warn)
        let code = try variantLayer.map { _ in try VariantCode(config: config, input: input, periods: lecture.segments.count) }
        let folder = try createSharedFolder()
        if let notice = VideoSource.timestampJumpNotice(path: input, jumps: lecture.source.index.timestampJumps) { warn(notice) }
        let shared = LadderWriter.SharedFiles()
        if let code {
            // Every variant some row lists is stored with the first render of its segment (a row
            // that cannot be bound lists nothing: it fails in its group).
            var listed = [Set<Int>](repeating: [], count: lecture.segments.count)
            for row in rows {
                guard let codeword = try? code.codeword(variables: row.variables, config: config),
                      let compositor = try? Compositor.forJob(config: config, variables: row.variables, images: images, warn: { _ in }) else { continue }
                for (k, isOwn) in lecture.ownSegments(markedBy: compositor).enumerated() where !isOwn { listed[k].insert(codeword[k]) }
            }
            shared.listedVariants = listed
        }
        for start in stride(from: 0, to: rows.count, by: outputsPerDecode) {
            try Interruption.throwIfRequested()
            try writeLadders(Array(rows[start..<min(start + outputsPerDecode, rows.count)]), lecture: lecture, code: code, shared: shared,
                             sharedFolder: folder, images: images, tracker: tracker, report: report, onProgress: onProgress)
        }
    }

    /// One group of rows, written together.
    private func writeLadders(_ group: [BatchRow], lecture: LectureLadder, code: VariantCode?, shared: LadderWriter.SharedFiles, sharedFolder: String,
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
                let codeword = try code?.codeword(variables: batchRow.variables, config: config)
                let row = try lecture.student(compositor: compositor, codeword: codeword, warn: warn)
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
