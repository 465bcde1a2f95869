import Foundation
import Animation
import Overlay

extension BatchRow {
    /// Creates the row's output folder when a placeholder of the template made a new one (only
    /// folders below the template's own, which exists, can be missing).
    func createFolder() throws {
        let folder = (output as NSString).deletingLastPathComponent
        guard !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw OutputError(file: output, stage: .creating, detail: "cannot create the folder \(folder): \((error as NSError).localizedDescription)")
        }
    }
}

extension BatchRunner {
    /// The rows writing HLS presentations (docs/design/hls.md §11): the input indexed once
    /// (`PresentationSource`); every row's rendering decided before any is written (so
    /// `--render smart` refuses up front); rows of one rendering written `-j` at a time, each
    /// segment's packets read once and its GOPs decoded once for the rows that re-encode it.
    /// Segments no mark shows on go to the shared folder (`--shared-segments`, else
    /// `shared-segments` beside the outputs), the same files for every row.
    func runPresentations(_ rows: [BatchRow], images: ImageCache, outputsPerDecode: Int, tracker: BatchProgressTracker,
                          report: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws {
        if let ladder {
            return try runLadders(rows, ladder: ladder, images: images, outputsPerDecode: outputsPerDecode, tracker: tracker, report: report,
                                  onProgress: onProgress)
        }
        let source = try PresentationSource(input: input, settings: settings, segment: hls.segmentDuration, damagePolicy: damagePolicy, warn: warn)
        // One compositor per distinct set of kept layers decides the rendering (rows that differ only
        // in their variables show their marks at the same times).
        var representatives: [[Bool]: Compositor] = [:]
        var renderings: [Int: (rendering: PresentationRendering, outcome: RenderOutcome)] = [:]
        for row in rows {
            let kept = config.layers.map { !$0.isExcluded(by: row.variables) }
            let compositor = try representatives[kept] ?? Compositor.forJob(config: config, variables: row.variables, images: images, warn: { _ in })
            representatives[kept] = compositor
            renderings[row.number] = try source.rendering(markedBy: compositor, mode: render, forBatch: true)
        }
        var sharedFolder: String?
        if render != .full {
            sharedFolder = try createSharedFolder()
            // As for smart rendering's notice: an option that asks for every frame is simply obeyed.
            if let refusal = source.sharingRefusal, !refusal.askedByOptions {
                warn("\(input): every row's segments are its own, none shared (\(refusal))")
            }
        }
        if let notice = VideoSource.timestampJumpNotice(path: input, jumps: source.index.timestampJumps) { warn(notice) }

        for rendering in [PresentationRendering.sharedCopies, .encoded, .copied] {
            let group = rows.filter { renderings[$0.number]?.rendering == rendering }
            for start in stride(from: 0, to: group.count, by: outputsPerDecode) {
                try Interruption.throwIfRequested()
                try writePresentations(Array(group[start..<min(start + outputsPerDecode, group.count)]), source: source, rendering: rendering,
                                       outcomes: renderings.mapValues(\.outcome), sharedFolder: sharedFolder, images: images, tracker: tracker,
                                       report: report, onProgress: onProgress)
            }
        }
    }

    /// One group of rows of one rendering, written together.
    private func writePresentations(_ group: [BatchRow], source: PresentationSource, rendering: PresentationRendering,
                                    outcomes: [Int: RenderOutcome], sharedFolder: String?, images: ImageCache, tracker: BatchProgressTracker,
                                    report: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws {
        let started = Date()
        var members: [(batchRow: BatchRow, row: PresentationRow, storage: PresentationStorage)] = []
        func finish(_ row: BatchRow, _ error: Error?) throws {
            // An interrupt, or a report that cannot be written, stops the batch; it is no row's failure.
            if let error = error as? InterruptedError { throw error }
            if let error = error as? StopBatch { throw error }
            if error == nil, let line = outcomes[row.number]?.notice { notice(line) }
            let folder = members.first { $0.batchRow.number == row.number }?.storage as? PresentationFolder
            try report(BatchRowResult(row: row, status: error == nil ? .done : .failed, seconds: Date().timeIntervalSince(started), error: error,
                                      render: error == nil && rendering != .copied ? outcomes[row.number] : nil, bytes: folder?.bytesAdded))
        }
        for batchRow in group {
            do {
                let compositor = try Compositor.forJob(config: config, variables: batchRow.variables, images: images, warn: warn)
                let row = try PresentationRow(source: source, compositor: compositor, rendering: rendering, warn: warn)
                try batchRow.createFolder()
                let folder = try PresentationFolder(playlist: batchRow.output, overwrite: force, inputs: [input], sharedFolder: sharedFolder, warn: warn)
                members.append((batchRow, row, folder))
            } catch {
                try finish(batchRow, error)
            }
        }
        try writeGroup(of: members.map(\.batchRow), finish: finish, tracker: tracker, onProgress: onProgress) { failed, written, progress in
            try PresentationWriter.write(members.map { ($0.row, $0.storage) }, onRowFailed: failed, onRowWritten: written, progress: progress)
        }
    }

    /// The shared folder (`--shared-segments`, else `shared-segments` beside the outputs), created if missing.
    func createSharedFolder() throws -> String {
        let folder = hls.sharedFolder ?? (outputDirectory as NSString).appendingPathComponent("shared-segments")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw OutputError(file: folder, stage: .creating, detail: "cannot create the shared segments' folder: \((error as NSError).localizedDescription)")
        }
        return folder
    }

    /// Hands one group's rows (`batchRows`, in the writer's order) to a presentation writer: `write`
    /// gets the writer's row-failed, row-written and progress callbacks, which end each row through
    /// `finish` and keep the progress display current. A failure of the input itself (damage under
    /// --errors fail, a read error) ends every row still open; concealed damage is said once.
    func writeGroup(of batchRows: [BatchRow], finish: (BatchRow, Error?) throws -> Void, tracker: BatchProgressTracker,
                    onProgress: (BatchProgress) -> Void,
                    write: (_ onRowFailed: (Int, Error) throws -> Void, _ onRowWritten: (Int) throws -> Void,
                            _ progress: (PresentationTime, Int) -> Void) throws -> PresentationSummary) throws {
        guard !batchRows.isEmpty else { return }
        var active = batchRows.count
        let summary: PresentationSummary
        do {
            // The callbacks run only while `write` does (exclusivity cannot tell without being told).
            summary = try withoutActuallyEscaping(finish) { finish in
                try withoutActuallyEscaping(onProgress) { onProgress in
                    try write({ n, error in
                        active -= 1
                        try finish(batchRows[n], error)
                    }, { n in
                        try finish(batchRows[n], nil)
                    }, { reached, _ in
                        tracker.groupReached(seconds: reached.seconds, activeOutputs: active)
                        onProgress(tracker.snapshot())
                    })
                }
            }
        } catch let error as InterruptedError {
            throw error
        } catch let error as StopBatch {
            throw error
        } catch {
            for row in batchRows { try finish(row, error) }
            return
        }
        if summary.damagedPackets > 0 {
            warn("\(input): \(summary.damagedPackets) damaged packet(s) or frame(s) concealed; the outputs of rows \(batchRows.map { String($0.number) }.joined(separator: ", ")) are complete but may show glitches there")
        }
    }
}
