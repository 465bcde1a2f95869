import Foundation

extension BatchRunner {
    /// The lecture every `.m3u8` row (and, with a variant layer, every row) is a copy of: the
    /// batch's options as a definition for a class, prepared once (`Lecture.prepare` decides the
    /// kind of lecture and refuses what cannot work, as for `transcode` and `serve`).
    func lectureDefinition() -> LectureDefinition {
        LectureDefinition(name: (input as NSString).lastPathComponent, video: input, marks: .loaded(config), ladder: ladder?.request,
                          captions: ladder?.subtitles ?? [], segment: hls.segment, settings: settings, render: render,
                          damagePolicy: damagePolicy, audience: .classOfStudents, jobValues: jobValues)
    }

    /// Writes `rows` as copies of the lecture (`Lecture.write`), `-j` at a time: each row ends
    /// through `report` (done, or failed alone); a failure of the input itself (damage under
    /// --errors fail, a read error) ends every row still open; concealed damage is said once.
    func runLecture(_ rows: [BatchRow], outputsPerDecode: Int, tracker: BatchProgressTracker,
                    report givenReport: (BatchRowResult) throws -> Void, onProgress givenProgress: (BatchProgress) -> Void) throws {
        // The callbacks run only while `write` does (exclusivity cannot tell without being told).
        try withoutActuallyEscaping(givenReport) { report in
            try withoutActuallyEscaping(givenProgress) { onProgress in
                try runLecture(rows, outputsPerDecode: outputsPerDecode, tracker: tracker, escapingReport: report, onProgress: onProgress)
            }
        }
    }

    private func runLecture(_ rows: [BatchRow], outputsPerDecode: Int, tracker: BatchProgressTracker,
                            escapingReport report: @escaping (BatchRowResult) throws -> Void,
                            onProgress: @escaping (BatchProgress) -> Void) throws {
        let lecture = try Lecture.prepare(lectureDefinition(), warn: warn)
        let started = Date()
        var ended = Set<Int>()
        func finish(_ n: Int, _ error: Error?, _ copy: CopyReport?) throws {
            guard ended.insert(n).inserted else { return }
            // An interrupt, or a report that cannot be written, stops the batch; it is no row's failure.
            if let error = error as? InterruptedError { throw error }
            if let error = error as? StopBatch { throw error }
            if error == nil, let line = copy?.outcome?.notice { notice(line) }
            try report(BatchRowResult(row: rows[n], status: error == nil ? .done : .failed, seconds: Date().timeIntervalSince(started),
                                      error: error, render: error == nil ? copy?.outcome : nil, bytes: copy?.bytes))
        }
        let summary: PresentationSummary
        do {
            var writing = CopyWriting(
                overwrite: force, sharedFolder: hls.sharedFolder ?? (outputDirectory as NSString).appendingPathComponent("shared-segments"),
                createsFolders: true, group: outputsPerDecode,
                onFailed: { n, error in try finish(n, error, nil) },
                onWritten: { n, copy in try finish(n, nil, copy) },
                progress: { reached, _ in
                    tracker.groupReached(seconds: reached.seconds, activeOutputs: rows.count - ended.count)
                    onProgress(tracker.snapshot())
                })
            writing.protection = protection
            summary = try lecture.write(rows.map { CopyRequest(variables: $0.variables, target: $0.target) }, writing)
        } catch let error as InterruptedError {
            throw error
        } catch let error as StopBatch {
            throw error
        } catch {
            for n in rows.indices { try finish(n, error, nil) }
            return
        }
        if summary.damagedPackets > 0 {
            warn("\(input): \(summary.damagedPackets) damaged packet(s) or frame(s) concealed; the rows' outputs are complete but may show glitches there")
        }
    }
}
