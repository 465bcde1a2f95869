// Over 300 lines: the one runner every batch goes through, and the place it hands a batch to its
// kind (file rows, .m3u8 rows, ladders, variant lectures): the branches are short and read together.
import Foundation
import Overlay

/// What a whole batch ended with.
public struct BatchSummary: Sendable {
    /// The rows done, skipped and failed, and the time taken.
    public var progress: BatchProgress
    /// The errors of the failed rows, in the order the rows ended (empty when every row is
    /// done or skipped); the command line exits with the gravest.
    public var failures: [any Error]
}

/// `videowm batch`: one output per row, rows grouped so that each group shares one decode
/// of the input ("decode once, encode many"). A group holds at most `outputsPerDecode`
/// outputs, each with its own compositor and encoder, so memory grows with that number and
/// not with the row count.
///
/// One row's failure — its output cannot be created, its encoder or muxer fails midway —
/// abandons that output alone; the group goes on. Only an interrupt, or an input that
/// cannot be opened at all, stops the batch.
///
/// With smart rendering (`render`), the input's packets are indexed once and every row's spans
/// planned before anything is written (`BatchRendering`); a group then decodes only the GOPs some
/// row of it re-encodes, and each picture goes to the rows whose spans hold it. A row whose splice
/// fails midway is done again in full (`auto`) or fails with the reason (`smart`).
public struct BatchRunner {
    /// The video every row is made from.
    public var input: String
    /// The marks, bound to each row's values (keyed, when the rows' paths come from a key).
    public var config: WatermarkConfig
    /// The rows to make: a ``BatchPlan``'s, or one shard's of them.
    public var rows: [BatchRow]
    /// The folder every output stays inside (the template's); it must exist.
    public var outputDirectory: String
    /// How every row is encoded.
    public var settings: EncodeSettings
    /// What a damaged input packet does: conceal and count, or stop.
    public var damagePolicy: DamagePolicy
    /// Rows encoded at once from one decode of the input (`-j`).
    public var outputsPerDecode: Int
    /// Outputs per decode when the caller does not say (the command line's `-j` default too):
    /// more saves more decoding but runs more encoders at once, each holding its own frames.
    public static let defaultOutputsPerDecode = 4
    /// Redo rows whose output exists (replacing it) instead of skipping them.
    public var force: Bool
    /// `--render`: full (every frame re-encoded), smart or auto (`Transcoder`'s rules, per row).
    public var render: RenderMode
    /// Hears warnings, once each.
    public var warn: WarningHandler
    /// Hears the `--render auto` notices once the first row is done: one line per distinct fallback.
    public var notice: (String) -> Void
    /// How `.m3u8` rows are cut, and the folder of the segments they share (nil: `shared-segments`
    /// in `outputDirectory`, created when missing).
    public var hls = HLSSettings()
    /// `--ladder`/`--subtitles`: `.m3u8` rows become multivariant playlists of renditions.
    public var ladder: LadderOptions?
    /// `--encrypt cenc|cbcs`: every row's segments encrypted as they are published, or nil.
    public var protection: SegmentProtection?
    /// Values every row shares (`--var`), which a variant layer's text may use: its renders are
    /// the same for every row.
    public var jobValues: [String: String] = [:]

    /// A batch of `rows` from `input`; see the properties for each parameter.
    public init(input: String, config: WatermarkConfig, rows: [BatchRow], outputDirectory: String, settings: EncodeSettings,
                damagePolicy: DamagePolicy = .warn, outputsPerDecode: Int = defaultOutputsPerDecode, force: Bool = false,
                render: RenderMode = .full, warn: @escaping WarningHandler, notice: @escaping (String) -> Void = { _ in }) {
        precondition(outputsPerDecode >= 1, "a group needs room for one output")
        self.input = input
        self.config = config
        self.rows = rows
        self.outputDirectory = outputDirectory
        self.settings = settings
        self.damagePolicy = damagePolicy
        self.outputsPerDecode = outputsPerDecode
        self.force = force
        self.render = render
        self.warn = warn
        self.notice = notice
    }

    /// Runs every row. `onRow` hears each row's result as it ends (skipped rows first); an
    /// error it throws (its report cannot be written) stops the batch, with every output still
    /// being written abandoned, and is rethrown. `onProgress` is called often (every frame):
    /// throttle before drawing.
    public func run(onRow: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws -> BatchSummary {
        do {
            return try runRows(onRow: onRow, onProgress: onProgress)
        } catch let stop as StopBatch {
            throw stop.reason
        }
    }

    private func runRows(onRow: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws -> BatchSummary {
        let tracker = BatchProgressTracker(total: rows.count)
        var failures: [any Error] = []
        func report(_ result: BatchRowResult) throws {
            tracker.record(result)
            if let error = result.error { failures.append(error) }
            do { try onRow(result) } catch { throw StopBatch(reason: error) }
            onProgress(tracker.snapshot())
        }
        // Settings the encoder or a row's container would refuse stop the batch before any row
        // (checked once per kind of output: every row of one container gets the same answer).
        var checked: [(OutputTarget.Kind, Container)] = []
        for row in rows where !checked.contains(where: { $0 == (row.target.kind, row.target.container) }) {
            checked.append((row.target.kind, row.target.container))
            try settings.validate(for: row.target)
            try Lecture.checkCopyTarget(row.target, config: config)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw OutputError(file: outputDirectory, stage: .creating, detail: "the output folder does not exist (create it first)")
        }
        for path in PartialOutputFiles.removeStale(forTargets: rows.map(\.output)) {
            warn("\(path): removed, a partial output left by an interrupted run")
        }

        var pending: [BatchRow] = []
        for row in rows {
            if !force && PartialOutputFiles.finishedOutputExists(at: row.output) {
                try report(BatchRowResult(row: row, status: .skipped, seconds: 0, error: nil))
            } else {
                pending.append(row)
            }
        }
        guard !pending.isEmpty else { return BatchSummary(progress: tracker.snapshot(), failures: failures) }

        // Open the input once before any output exists: a missing or unreadable input is the
        // batch's failure, not every row's.
        let probed = try VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
        tracker.start(pendingRows: pending.count, inputSeconds: probed.input.durationSeconds)
        let images = ImageCache()
        try loadImages(usedBy: pending, into: images)

        var outputsPerDecode = outputsPerDecode
        if let lowered = DescriptorBudget.lowered(outputsPerDecode) {
            warn("\(outputsPerDecode) outputs per decode (-j) lowered to \(lowered.outputs): the open-file limit (ulimit -n \(lowered.limit)) leaves room for no more")
            outputsPerDecode = lowered.outputs
        }
        // Copies of one lecture: every .m3u8 row, and with a variant layer every row (a file row is
        // then its presentation's segments in one file); other file rows are rendered as files.
        let copies = pending.filter { $0.target.kind == .hlsPresentation || config.variantLayer != nil }
        let files = pending.filter { $0.target.kind == .file && config.variantLayer == nil }
        if !copies.isEmpty {
            try runLecture(copies, outputsPerDecode: outputsPerDecode, tracker: tracker, report: report, onProgress: onProgress)
        }
        if !files.isEmpty {
            try runFiles(files, probed: probed, images: images, outputsPerDecode: outputsPerDecode, tracker: tracker, report: report,
                         onProgress: onProgress)
        }
        return BatchSummary(progress: tracker.snapshot(), failures: failures)
    }

    /// The rows writing media files: `-j` at a time, each group fed by one decode.
    private func runFiles(_ pending: [BatchRow], probed: VideoSource, images: ImageCache, outputsPerDecode: Int, tracker: BatchProgressTracker,
                          report: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws {
        var probedSource: VideoSource? = probed
        let rendering = try BatchRendering(mode: render, rows: pending, config: config, source: probed, settings: settings, images: images)
        var queue = pending
        while !queue.isEmpty {
            for start in stride(from: 0, to: queue.count, by: outputsPerDecode) {
                try Interruption.throwIfRequested()
                let group = Array(queue[start..<min(start + outputsPerDecode, queue.count)])
                let source = probedSource
                probedSource = nil
                try runGroup(group, source: source, images: images, rendering: rendering, tracker: tracker, report: report,
                             onProgress: onProgress)
            }
            // Rows whose splice failed midway, done again in full.
            queue = pending.filter { rendering.retryInFull.contains($0.number) }
            for number in rendering.retryInFull { rendering.rows[number] = .full(.full) }
            rendering.retryInFull = []
        }
    }

    /// Decodes every logo a pending row draws, once, so a missing logo stops the batch up front.
    private func loadImages(usedBy rows: [BatchRow], into images: ImageCache) throws {
        for layer in config.layers {
            guard case .image(let source) = layer.content, rows.contains(where: { !layer.isExcluded(by: $0.variables) }) else { continue }
            _ = try images.logo(at: source)
        }
    }

    /// One decode of the input feeding every output of `group`.
    private func runGroup(_ group: [BatchRow], source probed: VideoSource?, images: ImageCache, rendering: BatchRendering,
                          tracker: BatchProgressTracker,
                          report: (BatchRowResult) throws -> Void, onProgress: (BatchProgress) -> Void) throws {
        let started = Date()
        func finish(_ row: BatchRow, _ error: Error?) throws {
            // An interrupt, or a report that cannot be written, stops the batch; it is no row's failure.
            if let error = error as? InterruptedError { throw error }
            if let error = error as? StopBatch { throw error }
            if let failure = error as? SpliceSink.Failure {
                // Found while encoding: auto renders the row in full afterwards; smart reports why it could not.
                let fallback: RenderOutcome
                do {
                    fallback = try failure.fallback(under: render, input: input)
                } catch {
                    return try finish(row, error)
                }
                rendering.retryInFull.insert(row.number)
                warn("row \(row.number): \(fallback.notice ?? "render: full"); done again after this group")
                return
            }
            if error == nil { rendering.announceNotices(to: notice) }
            let size = error == nil ? (try? FileManager.default.attributesOfItem(atPath: row.output)[.size] as? Int) ?? nil : nil
            try report(BatchRowResult(row: row, status: error == nil ? .done : .failed,
                                      seconds: Date().timeIntervalSince(started), error: error,
                                      render: error == nil ? rendering.rows[row.number]?.outcome : nil, bytes: size))
        }

        let source: VideoSource
        do {
            source = try probed ?? VideoSource(path: input, threads: settings.threads, damagePolicy: damagePolicy)
        } catch {
            for row in group { try finish(row, error) }
            return
        }
        var outputs: [GroupOutput] = []
        // The outputs mark pictures side by side (`consumeSideBySide`): their warnings reach the
        // caller's handler one at a time.
        let warningLock = NSLock()
        let handler = warn
        let warnInTurn: WarningHandler = { message in warningLock.withLock { handler(message) } }
        for row in group {
            do {
                outputs.append(try GroupOutput(row: row, source: source, config: config, images: images, settings: settings,
                                               splice: rendering.rows[row.number]?.job, overwrite: force, warn: warnInTurn))
            } catch {
                try finish(row, error)
            }
        }
        guard !outputs.isEmpty else { return }
        let selection = rendering.decodeSelection(for: outputs.map(\.row))

        /// Runs `step` on every output; one that throws is abandoned and reported, the rest go on.
        /// Once none is left, decoding the rest of the input would be wasted: stop it.
        func forEachOutput(_ step: (MarkedOutput) throws -> Void) throws {
            var index = 0
            while index < outputs.count {
                do {
                    try step(outputs[index].output)
                    index += 1
                } catch {
                    let failed = outputs.remove(at: index)
                    failed.output.abandon()
                    try finish(failed.row, error)
                    if outputs.isEmpty { throw EveryOutputFailed() }
                }
            }
        }

        /// `forEachOutput` for a decoded picture: the outputs mark and encode it side by side (each
        /// output's marks, encoder and file its own; the picture shared, copied on write), then the
        /// failed ones are abandoned and reported in row order, as `forEachOutput` would.
        func consumeSideBySide(_ timed: VideoSource.TimedFrame) throws {
            let failures = SideBySide.run(outputs.map(\.output)) { try $0.consume(timed, exclusive: false) }
            guard !failures.isEmpty else { return }
            let failed = failures.map { (outputs[$0.index], $0.error) }
            outputs.removeAll { output in failed.contains { $0.0.output === output.output } }
            for (output, _) in failed { output.output.abandon() }
            for (output, error) in failed { try finish(output.row, error) }
            if outputs.isEmpty { throw EveryOutputFailed() }
        }

        do {
            try source.run(selection: selection, onFrame: { timed in
                try consumeSideBySide(timed)
                tracker.groupReached(seconds: source.lastTimeSeconds, activeOutputs: outputs.count)
                onProgress(tracker.snapshot())
            }, onPacket: { packet, videoPacket in
                try forEachOutput { try $0.passThrough(packet, videoPacket: videoPacket) }
                if selection != nil && videoPacket != nil {
                    // Copied stretches decode nothing: progress follows the packets read.
                    tracker.groupReached(seconds: source.positionSeconds, activeOutputs: outputs.count)
                    onProgress(tracker.snapshot())
                }
            }, onDecodeRunEnd: { end in
                try forEachOutput { try $0.decodeRunEnded(before: end) }
            })
        } catch is EveryOutputFailed {
            return
        } catch {
            // Raised by the input itself (damage under --errors fail, a read error): every
            // output still open has lost its source.
            let survivors = outputs
            outputs = []
            for output in survivors {
                output.output.abandon()
                try finish(output.row, error)
            }
            return
        }
        // Said once a batch, by the first group (every group reads the same input).
        if probed != nil, let notice = source.timestampJumpNotice { warn(notice) }
        if source.damagedPackets > 0 {
            warn("\(input): \(source.damagedPackets) damaged packet(s) or frame(s) concealed; the outputs of rows \(outputs.map { String($0.row.number) }.joined(separator: ", ")) are complete but may show glitches there")
        }
        let finishing = outputs
        outputs = []
        for output in finishing {
            do {
                try output.output.finish()
                try finish(output.row, nil)
            } catch {
                output.output.abandon()
                try finish(output.row, error)
            }
        }
    }
}

/// Stops a group's decode when its last output has failed.
private struct EveryOutputFailed: Error {}

/// Stops the whole batch with `reason` (what `onRow` threw), past every row's error handling.
struct StopBatch: Error {
    var reason: any Error
}

/// One row's output inside a group.
private final class GroupOutput {
    let row: BatchRow
    let output: MarkedOutput

    init(row: BatchRow, source: VideoSource, config: WatermarkConfig, images: ImageCache, settings: EncodeSettings,
         splice: SpliceJob?, overwrite: Bool, warn: @escaping WarningHandler) throws {
        self.row = row
        // A row whose every layer is left out by `unless` gets an empty compositor: MarkedOutput then copies the video.
        let compositor = try Compositor.forJob(config: config, variables: row.variables, images: images, warn: warn)
        try row.createFolder()
        let plan = try OutputPlan.make(source: source, target: row.target, compositor: compositor, settings: settings, unmarkedVideo: .copy,
                                       splice: splice)
        output = try MarkedOutput(plan: plan, source: source, compositor: compositor, settings: settings, overwrite: overwrite, warn: warn)
    }
}

extension BatchRow {
    /// Creates the row's output folder when a placeholder of the template made a new one.
    func createFolder() throws {
        try CopyRequest(variables: variables, target: target).createFolder()
    }
}
