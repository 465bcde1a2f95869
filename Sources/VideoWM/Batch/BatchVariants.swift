import Foundation
import Overlay

extension BatchRunner {
    /// The rows of a lecture with a variant layer, HLS presentations or MP4 files (docs/design/variant-marks.md
    /// §6–§8): the input indexed once and cut every `seconds` (the `encoded` plan, one period a
    /// segment); the q variants of every segment rendered once and stored in the shared folder;
    /// each row's codeword derived from the key, the lecture and the row's student name, its
    /// playlist listing its codeword's variant of every segment, and the segments its own marks
    /// show in re-encoded for it (the variant layer hidden there), `-j` rows at a time. An `.mp4` row
    /// is the same segments in one fragmented MP4 file (`FragmentedMP4File`).
    func runVariantLecture(_ rows: [BatchRow], images: ImageCache, outputsPerDecode: Int, tracker: BatchProgressTracker,
                                 report: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws {
        guard config.pathKey != nil else { throw Self.keyNeeded(config: config) }
        let source = try PresentationSource(input: input, settings: settings.forVariantLecture, segment: hls.segmentDuration,
                                            damagePolicy: damagePolicy, warn: warn)
        let representative = try Compositor.forJob(config: config, variables: rows[0].variables, images: images, warn: { _ in })
        let lecture = try VariantLecture(source: source, compositor: representative, warn: warn)
        // The shared renders on two threads where there are cores for them and codec threads are
        // not held to one (`--threads 1` asks for one core's work).
        let partner = ProcessInfo.processInfo.activeProcessorCount > 1 && settings.threads != 1
            ? try VariantLecture(source: source, compositor: try Compositor.forJob(config: config, variables: rows[0].variables, images: images, warn: { _ in }),
                                 warn: warn)
            : nil
        let code = try VariantCode(config: config, input: input, periods: lecture.periodCount)
        let folder = try rows.contains(where: { $0.target.kind == .hlsPresentation }) ? createSharedFolder() : nil
        // MP4 rows take the shared renders from a scratch folder, made for the first of them and
        // removed when the batch ends.
        var scratch: String?
        defer { if let scratch { try? FileManager.default.removeItem(atPath: scratch) } }
        func scratchFolder() throws -> String {
            if let scratch { return scratch }
            let made = (outputDirectory as NSString).appendingPathComponent(".videowm-variant-renders-\(PartialOutputFiles.randomToken())")
            do {
                try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: false)
            } catch {
                throw OutputError(file: made, stage: .creating, detail: "cannot create the folder for the shared renders: \((error as NSError).localizedDescription)")
            }
            scratch = made
            return made
        }
        if let notice = VideoSource.timestampJumpNotice(path: input, jumps: source.index.timestampJumps) { warn(notice) }

        let started = Date()
        func finish(_ row: BatchRow, _ error: Error?) throws {
            if let error = error as? InterruptedError { throw error }
            if let error = error as? StopBatch { throw error }
            try report(BatchRowResult(row: row, status: error == nil ? .done : .failed, seconds: Date().timeIntervalSince(started), error: error,
                                      render: error == nil ? .full : nil))
        }
        var members: [(batchRow: BatchRow, student: VariantLecture.Student)] = []
        for batchRow in rows {
            do {
                let codeword = try code.codeword(variables: batchRow.variables, config: config)
                let own = lecture.ownSegments(markedBy: try Compositor.forJob(config: config, variables: batchRow.variables, images: images, warn: { _ in }))
                try batchRow.createFolder()
                let storage: PresentationStorage = if batchRow.target.kind == .hlsPresentation {
                    try PresentationFolder(playlist: batchRow.output, overwrite: force, inputs: [input], sharedFolder: folder, warn: warn)
                } else {
                    try FragmentedMP4File(target: batchRow.output, overwrite: force, inputs: [input], scratch: scratchFolder())
                }
                let config = self.config, warn = self.warn
                members.append((batchRow, VariantLecture.Student(codeword: codeword, ownSegments: own, storage: storage, makeRow: {
                    try lecture.row(compositor: try Compositor.forJob(config: config, variables: batchRow.variables, images: images, warn: warn),
                                    codeword: codeword)
                })))
            } catch {
                try finish(batchRow, error)
            }
        }
        try writeGroup(of: members.map(\.batchRow), finish: finish, tracker: tracker, onProgress: onProgress) { failed, written, progress in
            try lecture.write(members.map(\.student), group: outputsPerDecode, partner: partner, onRowFailed: failed, onRowWritten: written,
                              progress: progress)
        }
    }

    /// A variant layer's code is derived from the key: without one anybody could compute (and forge) a student's variants.
    static func keyNeeded(config: WatermarkConfig) -> Error { VariantCode.keyNeeded(config: config) }
}

extension BatchRunner {
    /// A batch with a variant layer needs the key and HLS or MP4 outputs: checked before anything is written.
    func refuseWhatVariantsCannotWrite() throws {
        guard let layer = config.variantLayer else { return }
        guard config.pathKey != nil else { throw Self.keyNeeded(config: config) }
        if let file = rows.first(where: {
            $0.target.kind != .hlsPresentation && !$0.target.isMP4File
        }) {
            throw RequestError(subject: file.output, problem: "a variant layer is written to .m3u8 and .mp4 outputs by this build, not to \(file.target.fileType) files (\(config.file): \(layer.path).variants)")
        }
    }
}
